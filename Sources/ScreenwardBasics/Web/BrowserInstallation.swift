import Foundation
import _CryptoExtras

/// What makes Debian's Chromium and Firefox ESR run Screenward's extension for every person
/// on the machine, installed as root-owned files the browsers read at start (docs/websites.md
/// says how each was proven): the packed extension (a CRX3 signed with this machine's key and
/// an XPI of the same source), each browser's enterprise policy force-installing it, and each
/// browser's native-messaging manifest naming `screenward-web-host`.
///
/// The extension's key is made on the first installation and kept (root's alone) in the
/// state folder: Chromium derives the extension's ID from it, so every later installation
/// keeps the same extension in people's profiles.
public struct BrowserInstallation: Sendable {
    /// The native-messaging host's name, as the extension connects to it.
    public static let hostName = "org.screenward.web"
    /// The extension's ID in Firefox (its manifest's `browser_specific_settings`).
    public static let firefoxExtensionID = "web@screenward.org"
    /// What `screenward-web-host` calls itself to the state owner.
    public static let hostBundleIdentifier = "org.screenward.web-host"
    /// The browsers' main executables, as Debian installs them: the only parents the daemon
    /// takes a managed user's host from.
    public static let browserExecutables: Set<String> = [
        "/usr/lib/chromium/chromium", "/usr/lib/firefox-esr/firefox-esr",
    ]

    /// Everything is written under `root` (`/`, or a system image being built).
    public var root: URL
    /// Where the packed extension goes, as the installed system sees it.
    public var packageDirectory: String
    /// The installed `screenward-web-host`, as the installed system sees it.
    public var hostProgram: String
    /// Where the extension's signing key is kept.
    public var keyDirectory: String

    public init(root: URL = URL(fileURLWithPath: "/"), prefix: String = "/usr/local") {
        self.root = root
        packageDirectory = "\(prefix)/share/screenward/web"
        hostProgram = "\(prefix)/bin/screenward-web-host"
        keyDirectory = "/var/lib/screenward/web"
    }

    // The files each browser reads, fixed by the browsers (Debian's builds).
    static let chromiumPolicy = "/etc/chromium/policies/managed/screenward.json"
    static let chromiumHostManifest = "/etc/chromium/native-messaging-hosts/\(hostName).json"
    static let firefoxPolicies = "/etc/firefox/policies/policies.json"
    static let firefoxHostManifest = "/usr/lib/mozilla/native-messaging-hosts/\(hostName).json"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What was installed.
    public struct Installed: Sendable, Equatable {
        /// The extension's ID in Chromium (from the key).
        public var chromiumExtensionID: String
        /// Every file written, as the installed system sees it.
        public var files: [String]
    }

    /// Packs the extension in `source` (a folder with its `manifest.json`) and installs it with
    /// the policies and manifests. Existing Firefox policies of the administrator's are kept:
    /// only Screenward's entries are set.
    public func install(extensionSource source: URL) throws -> Installed {
        let files = try extensionFiles(in: source)
        let key = try signingKey()
        let archive = StoredZip.archive(files)
        let crx = try CRX3.package(archive: archive, key: key)
        let id = CRX3.extensionID(publicKeyDER: key.publicKey.derRepresentation)
        let version = try extensionVersion(files)

        let crxPath = "\(packageDirectory)/screenward.crx"
        let xpiPath = "\(packageDirectory)/screenward.xpi"
        let updatesPath = "\(packageDirectory)/updates.xml"
        try write(crx, to: crxPath)
        try write(archive, to: xpiPath)
        try write(
            Data(
                """
                <?xml version='1.0' encoding='UTF-8'?>
                <gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>
                  <app appid='\(id)'>
                    <updatecheck codebase='file://\(crxPath)' version='\(version)' />
                  </app>
                </gupdate>

                """.utf8), to: updatesPath)
        try write(
            json([
                "ExtensionSettings": [
                    id: ["installation_mode": "force_installed", "update_url": "file://\(updatesPath)"]
                ]
            ]), to: Self.chromiumPolicy)
        try write(
            json([
                "name": Self.hostName, "description": "Screenward: websites' time and shields", "path": hostProgram,
                "type": "stdio",
                "allowed_origins": ["chrome-extension://\(id)/"],
            ]), to: Self.chromiumHostManifest)
        try write(
            json([
                "name": Self.hostName, "description": "Screenward: websites' time and shields", "path": hostProgram,
                "type": "stdio",
                "allowed_extensions": [Self.firefoxExtensionID],
            ]), to: Self.firefoxHostManifest)
        var policies = try firefoxPolicyFile()
        var entries = policies["policies"] as? [String: Any] ?? [:]
        var extensions = entries["ExtensionSettings"] as? [String: Any] ?? [:]
        extensions[Self.firefoxExtensionID] = [
            "installation_mode": "force_installed", "install_url": "file://\(xpiPath)", "private_browsing": true,
        ]
        entries["ExtensionSettings"] = extensions
        var preferences = entries["Preferences"] as? [String: Any] ?? [:]
        // Firefox ESR installs an extension no store signed only with this preference off,
        // and only a locked preference holds against the person's own about:config.
        preferences["xpinstall.signatures.required"] = ["Value": false, "Status": "locked"]
        entries["Preferences"] = preferences
        policies["policies"] = entries
        try write(json(policies), to: Self.firefoxPolicies)
        // Installed again on a computer with managed users: their restrictions stay on.
        if childRestrictionsAreOn { try applyChildRestrictions(true) }
        return Installed(
            chromiumExtensionID: id,
            files: [
                crxPath, xpiPath, updatesPath, Self.chromiumPolicy, Self.chromiumHostManifest, Self.firefoxHostManifest,
                Self.firefoxPolicies,
            ])
    }

    /// Removes what `install` wrote; the key stays (with the state) so a new installation
    /// is the same extension. Firefox's policies keep every entry that is not Screenward's.
    public func remove() throws {
        try setChildRestrictions(false)
        for path in [
            "\(packageDirectory)/screenward.crx", "\(packageDirectory)/screenward.xpi",
            "\(packageDirectory)/updates.xml", Self.chromiumPolicy, Self.chromiumHostManifest, Self.firefoxHostManifest,
        ] {
            try? FileManager.default.removeItem(at: onDisk(path))
        }
        try? FileManager.default.removeItem(at: onDisk(packageDirectory))
        defer { removeEmptyFolders() }
        guard FileManager.default.fileExists(atPath: onDisk(Self.firefoxPolicies).path) else { return }
        var policies = try firefoxPolicyFile()
        var entries = policies["policies"] as? [String: Any] ?? [:]
        var extensions = entries["ExtensionSettings"] as? [String: Any] ?? [:]
        extensions[Self.firefoxExtensionID] = nil
        entries["ExtensionSettings"] = extensions.isEmpty ? nil : extensions
        var preferences = entries["Preferences"] as? [String: Any] ?? [:]
        preferences["xpinstall.signatures.required"] = nil
        entries["Preferences"] = preferences.isEmpty ? nil : preferences
        if entries.isEmpty {
            try FileManager.default.removeItem(at: onDisk(Self.firefoxPolicies))
        } else {
            policies["policies"] = entries
            try write(json(policies), to: Self.firefoxPolicies)
        }
    }

    /// The folders `install` made for its files (/etc/chromium/policies/managed, …), deepest
    /// first: each goes when it is empty and no installed Debian package ships it, so that
    /// removing Screenward leaves nothing of it and a browser's own folders stay.
    func removeEmptyFolders() {
        let tops: Set<String> = ["/", "/etc", "/usr", "/usr/lib", "/usr/share"]
        var folders: Set<String> = []
        for file in [
            "\(packageDirectory)/screenward.crx", Self.chromiumPolicy, Self.chromiumHostManifest,
            Self.firefoxHostManifest, Self.firefoxPolicies,
        ] {
            var folder = (file as NSString).deletingLastPathComponent
            while !tops.contains(folder) {
                folders.insert(folder)
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        let shipped = packagedFolders()
        let manager = FileManager.default
        for folder in folders.sorted(by: { $0.count > $1.count }) where !shipped.contains(folder) {
            let url = onDisk(folder)
            guard let contents = try? manager.contentsOfDirectory(atPath: url.path), contents.isEmpty else { continue }
            try? manager.removeItem(at: url)
        }
    }

    /// Every path dpkg's file lists name (the folders packages ship among them).
    private func packagedFolders() -> Set<String> {
        let lists = onDisk("/var/lib/dpkg/info")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: lists.path)) ?? []
        var paths: Set<String> = []
        for name in names where name.hasSuffix(".list") {
            guard let text = try? String(contentsOf: lists.appendingPathComponent(name), encoding: .utf8) else {
                continue
            }
            for line in text.split(separator: "\n") { paths.insert(String(line)) }
        }
        return paths
    }

    // MARK: Pieces

    func onDisk(_ path: String) -> URL { root.appendingPathComponent(String(path.drop { $0 == "/" })) }

    func write(_ data: Data, to path: String, mode: Int = 0o644) throws {
        let url = onDisk(path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try data.write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        } catch {
            throw Failure(description: "\(url.path) could not be written: \(error.localizedDescription)")
        }
    }

    func json(_ value: Any) throws -> Data {
        try JSONSerialization.data(
            withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
    }

    /// The extension's files, in a fixed order, names relative to its folder.
    private func extensionFiles(in source: URL) throws -> [(name: String, contents: Data)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source.path).sorted(),
            names.contains("manifest.json")
        else {
            throw Failure(description: "\(source.path) holds no extension (no manifest.json)")
        }
        return try names.filter { !$0.hasPrefix(".") }.map { name in
            (name, try Data(contentsOf: source.appendingPathComponent(name)))
        }
    }

    private func extensionVersion(_ files: [(name: String, contents: Data)]) throws -> String {
        guard let manifest = files.first(where: { $0.name == "manifest.json" }),
            let object = try? JSONSerialization.jsonObject(with: manifest.contents) as? [String: Any],
            let version = object["version"] as? String
        else { throw Failure(description: "the extension's manifest.json has no version") }
        return version
    }

    /// The machine's key for the extension, made once.
    private func signingKey() throws -> _RSA.Signing.PrivateKey {
        let url = onDisk("\(keyDirectory)/extension-key.pem")
        if let pem = try? String(contentsOf: url, encoding: .utf8) {
            do {
                return try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw Failure(
                    description:
                        """
                        \(url.path) is not an RSA key (\(error)); remove it to make a new one, and the extension \
                        gets a new ID
                        """
                )
            }
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            // Made with no permission for anyone else before the key is in it.
            guard
                FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw Failure(description: "\(url.path) could not be created")
            }
            try Data(key.pemRepresentation.utf8).write(to: url)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(url.path) could not be written: \(error.localizedDescription)")
        }
        return key
    }

    /// A policy file as an object (nil when there is none). A file that is not a JSON
    /// object is the administrator's to fix: it is never overwritten.
    func jsonObject(at path: String) throws -> [String: Any]? {
        let url = onDisk(path)
        guard let data = try? Data(contentsOf: url) else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(
                description:
                    "\(url.path) is not a JSON object: fix or remove it (the browser ignores it too), then try again")
        }
        return object
    }

    /// Firefox's one policy file, as an object (empty when there is none). A file that is
    /// not a JSON object is the administrator's to fix: it is never overwritten.
    private func firefoxPolicyFile() throws -> [String: Any] {
        let url = onDisk(Self.firefoxPolicies)
        guard let data = try? Data(contentsOf: url) else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(
                description:
                    "\(url.path) is not a JSON object: fix or remove it (Firefox ignores it too), then install again")
        }
        return object
    }
}
