import Foundation

/// The browsers' ways around the extension that a managed child must not have: private
/// windows, guests and new profiles (outside what the policy and the extension see, or
/// a place to start over), DNS over HTTPS (names resolved past the machine), other
/// extensions, extension developer mode, the developer tools and the remote debugging
/// protocol (which can stop or change the extension), and Firefox's safe mode (extensions off).
///
/// The browsers read their policies machine-wide only (Debian's Chromium from
/// /etc/chromium/policies, Firefox ESR from /etc/firefox/policies/policies.json; neither
/// has per-user policies on Linux), so these restrictions hold for every account of the
/// computer while it has a managed user: the daemon turns them on with the first managed
/// user and off with the last. An administrator's own Firefox entries win: a policy the
/// administrator set is neither changed nor, later, removed.
extension BrowserInstallation {
    /// Chromium's policies for a computer with managed users (Chromium's names and values).
    static var chromiumChildPolicies: [String: Any] {
        [
            "IncognitoModeAvailability": 1,  // private windows unavailable
            "BrowserGuestModeEnabled": false,
            "BrowserAddPersonEnabled": false,
            "DnsOverHttpsMode": "off",
            "ExtensionDeveloperModeSettings": 1,  // developer mode not allowed
            "DeveloperToolsAvailability": 1,  // no developer tools on extensions a policy installed
            // No DevTools protocol (`--remote-debugging-port`): a client of the child's own could
            // attach to the extension's service worker and take its rules away.
            "RemoteDebuggingAllowed": false,
        ]
    }

    /// Firefox's, with the same intent.
    static var firefoxChildPolicies: [String: Any] {
        [
            "DisablePrivateBrowsing": true,
            "DNSOverHTTPS": ["Enabled": false, "Locked": true],
            "DisableDeveloperTools": true,  // also about:debugging, which loads temporary add-ons
            "DisableSafeMode": true,
            "BlockAboutProfiles": true,
        ]
    }

    /// Every other extension is blocked (a force-installed one, Screenward's, is not).
    static var blockEveryOtherExtension: [String: Any] { ["installation_mode": "blocked"] }

    /// Where the daemon notes that the restrictions are on, and which of Firefox's entries
    /// it added (so that it takes away only those).
    var childRestrictionsRecord: String { "\(keyDirectory)/child-restrictions.json" }

    /// Whether Screenward's browser policies are installed on this computer.
    public var isInstalled: Bool {
        FileManager.default.fileExists(atPath: onDisk(Self.chromiumPolicy).path)
    }

    /// Whether the restrictions for managed users are on.
    public var childRestrictionsAreOn: Bool {
        FileManager.default.fileExists(atPath: onDisk(childRestrictionsRecord).path)
    }

    private struct Record: Codable {
        /// The entries of Firefox's policies Screenward added (top-level names, and `*` of
        /// ExtensionSettings as `ExtensionSettings.*`).
        var firefoxEntries: [String]
    }

    /// Turns the restrictions for managed users on or off in both browsers' policies (when
    /// Screenward's are installed). True when a file changed. Running browsers take the
    /// change at their next start.
    @discardableResult
    public func setChildRestrictions(_ on: Bool) throws -> Bool {
        guard isInstalled, on != childRestrictionsAreOn else { return false }
        try applyChildRestrictions(on)
        return true
    }

    /// Writes the restrictions in (again, after an installation rewrote the files) or takes
    /// away what Screenward added.
    func applyChildRestrictions(_ on: Bool) throws {
        let record = (try? Data(contentsOf: onDisk(childRestrictionsRecord))).flatMap {
            try? JSONDecoder().decode(Record.self, from: $0)
        }
        var chromium = try jsonObject(at: Self.chromiumPolicy) ?? [:]
        var chromiumExtensions = chromium["ExtensionSettings"] as? [String: Any] ?? [:]
        var firefox = try jsonObject(at: Self.firefoxPolicies) ?? [:]
        var entries = firefox["policies"] as? [String: Any] ?? [:]
        var firefoxExtensions = entries["ExtensionSettings"] as? [String: Any] ?? [:]
        if on {
            for (name, value) in Self.chromiumChildPolicies { chromium[name] = value }
            chromiumExtensions["*"] = Self.blockEveryOtherExtension
            var added = record?.firefoxEntries ?? []
            for (name, value) in Self.firefoxChildPolicies.sorted(by: { $0.key < $1.key }) where entries[name] == nil {
                entries[name] = value
                if !added.contains(name) { added.append(name) }
            }
            if firefoxExtensions["*"] == nil {
                firefoxExtensions["*"] = Self.blockEveryOtherExtension
                if !added.contains("ExtensionSettings.*") { added.append("ExtensionSettings.*") }
            }
            try write(try JSONEncoder().encode(Record(firefoxEntries: added)), to: childRestrictionsRecord, mode: 0o600)
        } else {
            for name in Self.chromiumChildPolicies.keys { chromium[name] = nil }
            chromiumExtensions["*"] = nil
            for name in record?.firefoxEntries ?? [] {
                if name == "ExtensionSettings.*" { firefoxExtensions["*"] = nil } else { entries[name] = nil }
            }
            try? FileManager.default.removeItem(at: onDisk(childRestrictionsRecord))
        }
        chromium["ExtensionSettings"] = chromiumExtensions
        entries["ExtensionSettings"] = firefoxExtensions.isEmpty ? nil : firefoxExtensions
        firefox["policies"] = entries
        try write(json(chromium), to: Self.chromiumPolicy)
        try write(json(firefox), to: Self.firefoxPolicies)
    }
}
