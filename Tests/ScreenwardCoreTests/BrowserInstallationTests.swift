import Crypto
import Foundation
import XCTest
import _CryptoExtras

@testable import ScreenwardBasics
@testable import ScreenwardCore

/// `screenward browsers install` into a system image: the packages are what the browsers
/// check, and the administrator's own Firefox policies survive installing and removing.
final class BrowserInstallationTests: XCTestCase {
    private var root: URL!
    private var source: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("screenward-browsers-\(UUID().uuidString)")
        source = root.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try #"{"manifest_version": 3, "name": "T", "version": "2.1.0"}"#.write(
            to: source.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        try "console.log('hi')\n".write(
            to: source.appendingPathComponent("background.js"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func file(_ path: String) -> URL { root.appendingPathComponent(String(path.dropFirst())) }

    func testTheCRXIsSignedByTheKeyItsIDComesFrom() throws {
        let installation = BrowserInstallation(root: root, prefix: "/usr")
        let installed = try installation.install(extensionSource: source)
        let crx = try Data(contentsOf: file("/usr/share/screenward/web/screenward.crx"))
        XCTAssertEqual(crx.prefix(4), Data("Cr24".utf8))
        XCTAssertEqual(Array(crx[4..<8]), [3, 0, 0, 0])
        let headerLength = Int(crx[8]) | Int(crx[9]) << 8 | Int(crx[10]) << 16 | Int(crx[11]) << 24
        let header = crx[12..<(12 + headerLength)]
        let archive = crx[(12 + headerLength)...]
        // The header's fields, read back: the proof (2) with its key (1) and signature (2), and the signed
        // data (10000).
        let fields = try Self.fields(Data(header))
        let proof = try Self.fields(try XCTUnwrap(fields[2]))
        let publicKeyDER = try XCTUnwrap(proof[1])
        let signedData = try XCTUnwrap(fields[10000])
        XCTAssertEqual(try Self.fields(signedData)[1], Data(SHA256.hash(data: publicKeyDER).prefix(16)))
        var message = Data("CRX3 SignedData\u{0}".utf8)
        message.append(contentsOf: [UInt8(signedData.count), 0, 0, 0])
        message.append(signedData)
        message.append(archive)
        let key = try _RSA.Signing.PublicKey(derRepresentation: publicKeyDER)
        XCTAssertTrue(
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: try XCTUnwrap(proof[2])), for: message,
                padding: .insecurePKCS1v1_5))
        XCTAssertEqual(installed.chromiumExtensionID, CRX3.extensionID(publicKeyDER: publicKeyDER))
        XCTAssertTrue(
            installed.chromiumExtensionID.allSatisfy { ("a"..."p").contains($0) }
                && installed.chromiumExtensionID.count == 32)
        // The policy and the host's manifest name that ID; the update manifest names the version.
        let policy = try String(contentsOf: file("/etc/chromium/policies/managed/screenward.json"), encoding: .utf8)
        XCTAssertTrue(policy.contains(installed.chromiumExtensionID) && policy.contains("force_installed"), policy)
        let host = try String(
            contentsOf: file("/etc/chromium/native-messaging-hosts/org.screenward.web.json"), encoding: .utf8)
        XCTAssertTrue(
            host.contains("chrome-extension://\(installed.chromiumExtensionID)/")
                && host.contains("/usr/bin/screenward-web-host"), host)
        XCTAssertTrue(
            try String(contentsOf: file("/usr/share/screenward/web/updates.xml"), encoding: .utf8).contains(
                "version='2.1.0'"))
        // The key is root's alone, and a second installation is the same extension.
        let keyAttributes = try FileManager.default.attributesOfItem(
            atPath: file("/var/lib/screenward/web/extension-key.pem").path)
        XCTAssertEqual((keyAttributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(
            try installation.install(extensionSource: source).chromiumExtensionID, installed.chromiumExtensionID)
    }

    func testTheXPIIsAZipThatPythonReads() throws {
        _ = try BrowserInstallation(root: root, prefix: "/usr").install(extensionSource: source)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [
            "-c",
            """
            import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; \
            print(','.join(z.namelist()))
            """,
            file("/usr/share/screenward/web/screenward.xpi").path,
        ]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0)
        XCTAssertEqual(
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            "background.js,manifest.json\n")
    }

    func testTheAdministratorsFirefoxPoliciesAreKept() throws {
        let policies = file("/etc/firefox/policies/policies.json")
        try FileManager.default.createDirectory(
            at: policies.deletingLastPathComponent(), withIntermediateDirectories: true)
        let own =
            #"""
            {"policies": {"DisableTelemetry": true, "Preferences": {"browser.startup.homepage": {"Value": \#
            "https://school.example", "Status": "locked"}}}}
            """#
        try own.write(to: policies, atomically: true, encoding: .utf8)
        let installation = BrowserInstallation(root: root, prefix: "/usr")
        _ = try installation.install(extensionSource: source)
        let merged =
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: policies)) as? [String: Any])[
                "policies"] as? [String: Any]
        XCTAssertEqual(merged?["DisableTelemetry"] as? Bool, true)
        let preferences = merged?["Preferences"] as? [String: Any]
        XCTAssertNotNil(preferences?["browser.startup.homepage"])
        XCTAssertEqual(
            (preferences?["xpinstall.signatures.required"] as? [String: Any])?["Status"] as? String, "locked")
        XCTAssertNotNil((merged?["ExtensionSettings"] as? [String: Any])?[BrowserInstallation.firefoxExtensionID])

        try installation.remove()
        let left = try JSONSerialization.jsonObject(with: Data(contentsOf: policies)) as? NSDictionary
        XCTAssertEqual(
            left, try JSONSerialization.jsonObject(with: Data(own.utf8)) as? NSDictionary,
            "only Screenward's entries went")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: file("/etc/chromium/policies/managed/screenward.json").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("/usr/share/screenward/web").path))
        // The folders it made go when empty; the one holding the administrator's policies stays.
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("/etc/chromium").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("/usr/lib/mozilla").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("/etc/firefox/policies").path))
    }

    /// A computer with managed users: no private windows, guests, new profiles, DNS over
    /// HTTPS, other extensions or developer mode, in both browsers; the administrator's own
    /// Firefox entries stay theirs; an installation again keeps the restrictions; off, only
    /// what Screenward added goes.
    func testTheRestrictionsForManagedUsersGoOnAndOffKeepingTheAdministrators() throws {
        let policies = file("/etc/firefox/policies/policies.json")
        try FileManager.default.createDirectory(
            at: policies.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"{"policies": {"DisableSafeMode": false}}"#.write(to: policies, atomically: true, encoding: .utf8)
        let installation = BrowserInstallation(root: root, prefix: "/usr")
        XCTAssertFalse(
            try installation.setChildRestrictions(true),
            "nothing to restrict before Screenward's policies are installed")
        _ = try installation.install(extensionSource: source)
        let before = try Data(contentsOf: policies)
        XCTAssertTrue(try installation.setChildRestrictions(true))
        XCTAssertFalse(try installation.setChildRestrictions(true), "already on")
        func read(_ path: String) throws -> [String: Any] {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file(path))) as? [String: Any])
        }
        func check() throws {
            let chromium = try read("/etc/chromium/policies/managed/screenward.json")
            XCTAssertEqual(chromium["IncognitoModeAvailability"] as? Int, 1)
            XCTAssertEqual(chromium["BrowserGuestModeEnabled"] as? Bool, false)
            XCTAssertEqual(chromium["BrowserAddPersonEnabled"] as? Bool, false)
            XCTAssertEqual(chromium["DnsOverHttpsMode"] as? String, "off")
            XCTAssertEqual(chromium["ExtensionDeveloperModeSettings"] as? Int, 1)
            let chromiumExtensions = try XCTUnwrap(chromium["ExtensionSettings"] as? [String: Any])
            XCTAssertEqual((chromiumExtensions["*"] as? [String: Any])?["installation_mode"] as? String, "blocked")
            XCTAssertEqual(chromiumExtensions.count, 2, "Screenward's, forced, and every other, blocked")
            let firefox = try XCTUnwrap(try read("/etc/firefox/policies/policies.json")["policies"] as? [String: Any])
            XCTAssertEqual(firefox["DisablePrivateBrowsing"] as? Bool, true)
            XCTAssertEqual((firefox["DNSOverHTTPS"] as? [String: Any])?["Locked"] as? Bool, true)
            XCTAssertEqual(firefox["DisableDeveloperTools"] as? Bool, true)
            XCTAssertEqual(firefox["DisableSafeMode"] as? Bool, false, "the administrator's own entry wins")
            let firefoxExtensions = try XCTUnwrap(firefox["ExtensionSettings"] as? [String: Any])
            XCTAssertEqual((firefoxExtensions["*"] as? [String: Any])?["installation_mode"] as? String, "blocked")
            XCTAssertNotNil(firefoxExtensions[BrowserInstallation.firefoxExtensionID])
        }
        try check()
        _ = try installation.install(extensionSource: source)
        try check()
        XCTAssertTrue(try installation.setChildRestrictions(false))
        XCTAssertEqual(
            try JSONSerialization.jsonObject(with: Data(contentsOf: policies)) as? NSDictionary,
            try JSONSerialization.jsonObject(with: before) as? NSDictionary)
        let chromium = try read("/etc/chromium/policies/managed/screenward.json")
        XCTAssertEqual(Set(chromium.keys), ["ExtensionSettings"])
        // Removing Screenward with the restrictions on takes them away too.
        XCTAssertTrue(try installation.setChildRestrictions(true))
        try installation.remove()
        XCTAssertEqual(
            try JSONSerialization.jsonObject(with: Data(contentsOf: policies)) as? NSDictionary,
            ["policies": ["DisableSafeMode": false]] as NSDictionary)
        XCTAssertFalse(installation.childRestrictionsAreOn)
    }

    /// Removing takes away the folders it made, but not one a browser's package ships (empty or not).
    func testRemovingKeepsTheFoldersABrowsersPackageShips() throws {
        let lists = file("/var/lib/dpkg/info")
        try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
        try "/.\n/etc\n/etc/chromium\n/etc/chromium/policies\n/etc/chromium/policies/managed\n".write(
            to: lists.appendingPathComponent("chromium-common.list"), atomically: true, encoding: .utf8)
        let installation = BrowserInstallation(root: root, prefix: "/usr")
        _ = try installation.install(extensionSource: source)
        try installation.remove()
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("/etc/chromium/policies/managed").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("/etc/chromium/native-messaging-hosts").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("/etc/firefox").path))
    }

    func testAPolicyFileThatIsNotJSONIsNeverOverwritten() throws {
        let policies = file("/etc/firefox/policies/policies.json")
        try FileManager.default.createDirectory(
            at: policies.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "{ broken".write(to: policies, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try BrowserInstallation(root: root, prefix: "/usr").install(extensionSource: source)) {
            error in
            XCTAssertTrue("\(error)".contains("is not a JSON object"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: policies, encoding: .utf8), "{ broken")
        XCTAssertThrowsError(
            try BrowserInstallation(root: root, prefix: "/usr").install(
                extensionSource: root.appendingPathComponent("nothing")))
    }

    /// The length-delimited fields of a protocol buffer, by number (the last of each).
    static func fields(_ data: Data) throws -> [Int: Data] {
        var fields: [Int: Data] = [:]
        var index = data.startIndex
        func varint() throws -> Int {
            var value = 0
            var shift = 0
            while true {
                guard index < data.endIndex else { throw CocoaError(.coderReadCorrupt) }
                let byte = data[index]
                index += 1
                value |= Int(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while index < data.endIndex {
            let tag = try varint()
            guard tag & 7 == 2 else { throw CocoaError(.coderReadCorrupt) }
            let length = try varint()
            guard index + length <= data.endIndex else { throw CocoaError(.coderReadCorrupt) }
            fields[tag >> 3] = Data(data[index..<(index + length)])
            index += length
        }
        return fields
    }
}
