import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Hides blocked applications from the desktop's menus while they are blocked, as
/// Apple hides a blocked app from the Home Screen.
///
/// The means is the one the Desktop Entry Specification gives a user: an entry of the
/// same id in `$XDG_DATA_HOME/applications` shadows the system's, and `NoDisplay=true`
/// keeps it out of menus (menus watch that folder and update by themselves). The copy
/// is the application's own entry with `NoDisplay=true`, marked
/// `X-Screenward-Blocked=true`: only marked files are ever removed. A person's own
/// entry of that id is moved aside into the Screenward home first and put back when
/// the application is unblocked, so nothing of theirs is lost.
///
/// Used in individual mode, where the person's applications folder is theirs to change.
public struct BlockedMenuEntries: Sendable {
    public static let marker = DesktopEntry.blockedMarkerKey
    /// The entry's own `NoDisplay`, kept in the copy (identity reads the entry as it was).
    public static let ownNoDisplayKey = DesktopEntry.ownNoDisplayKey

    /// `$XDG_DATA_HOME/applications` (default `~/.local/share/applications`).
    public let applicationsDirectory: URL
    /// Where a person's own entries wait while Screenward's copy stands in for them.
    public let setAsideDirectory: URL

    public init(applicationsDirectory: URL, setAsideDirectory: URL) {
        self.applicationsDirectory = applicationsDirectory
        self.setAsideDirectory = setAsideDirectory
    }

    /// The user's applications folder from the environment, with the set-aside folder in `home`.
    public static func forUser(environment env: [String: String], home: ScreenwardHome) -> BlockedMenuEntries? {
        guard let data = ApplicationCatalog.applicationDirectories(env).first else { return nil }
        return BlockedMenuEntries(
            applicationsDirectory: URL(fileURLWithPath: data),
            setAsideDirectory: home.url.appendingPathComponent("menu-entries-set-aside"))
    }

    /// The desktop ids of the catalog's applications some store blocks (by token or by id).
    public static func blockedIDs(in shields: EffectiveShields, catalog: ApplicationCatalog, minter: TokenMinter)
        -> Set<String>
    {
        guard shields.blocksAnything else { return [] }
        var ids: Set<String> = []
        for entry in catalog.entries {
            let app = AppIdentity(
                key: .desktopEntry(entry.id), displayName: entry.name, iconName: entry.iconName,
                categories: entry.categories)
            if !shields.blockingStores(forApplication: minter.applicationToken(for: app), publicID: entry.id).isEmpty {
                ids.insert(entry.id)
            }
        }
        return ids
    }

    /// What `apply` did.
    public struct Changes: Sendable, Equatable {
        public var hidden: [String] = []
        public var shown: [String] = []
        public var problems: [String] = []
    }

    /// Makes the hidden entries exactly `blocked` (ids of `catalog`): hides the new
    /// ones, shows again those no longer blocked. What cannot be done is reported in
    /// `problems`; the rest is still done.
    @discardableResult
    public func apply(blocked: Set<String>, catalog: ApplicationCatalog) -> Changes {
        var changes = Changes()
        let hidden = hiddenIDs()
        for id in hidden.subtracting(blocked).sorted() {
            do {
                try show(id)
                changes.shown.append(id)
            } catch {
                changes.problems.append("could not show \(id) in menus again: \(error)")
            }
        }
        for id in blocked.subtracting(hidden).sorted() {
            guard let entry = catalog.entry(id: id) else { continue }
            do {
                try hide(entry)
                changes.hidden.append(id)
            } catch {
                changes.problems.append("could not hide \(id) from menus: \(error)")
            }
        }
        return changes
    }

    /// Ids of the entries Screenward hides now (marked files in the applications folder).
    public func hiddenIDs() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: applicationsDirectory.path)) ?? []
        return Set(
            names.filter { $0.hasSuffix(".desktop") && isOurs(applicationsDirectory.appendingPathComponent($0)) })
    }

    private func hide(_ entry: DesktopEntry) throws {
        let target = applicationsDirectory.appendingPathComponent(entry.id)
        try FileManager.default.createDirectory(at: applicationsDirectory, withIntermediateDirectories: true)
        var source = entry.path
        if entry.path.standardizedFileURL.path.hasPrefix(applicationsDirectory.standardizedFileURL.path + "/") {
            // The person's own entry: set it aside, to be put back as it was.
            try FileManager.default.createDirectory(
                at: setAsideDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let aside = setAsideDirectory.appendingPathComponent(entry.id)
            try? FileManager.default.removeItem(at: aside)
            try FileManager.default.moveItem(at: entry.path, to: aside)
            try Data(entry.path.path.utf8).write(
                to: setAsideDirectory.appendingPathComponent(entry.id + ".from"), options: .atomic)
            source = aside
        }
        let contents = try String(contentsOf: source, encoding: .utf8)
        try Data(Self.hidden(contents).utf8).write(to: target, options: .atomic)
    }

    private func show(_ id: String) throws {
        let file = applicationsDirectory.appendingPathComponent(id)
        guard isOurs(file) else { return }
        try FileManager.default.removeItem(at: file)
        let aside = setAsideDirectory.appendingPathComponent(id)
        let from = setAsideDirectory.appendingPathComponent(id + ".from")
        guard FileManager.default.fileExists(atPath: aside.path) else { return }
        let original = (try? String(contentsOf: from, encoding: .utf8)).map { URL(fileURLWithPath: $0) } ?? file
        try FileManager.default.createDirectory(
            at: original.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: aside, to: original)
        try? FileManager.default.removeItem(at: from)
    }

    private func isOurs(_ file: URL) -> Bool {
        guard let data = try? Data(contentsOf: file), data.count <= DesktopEntry.maximumFileSize,
            let text = String(data: data, encoding: .utf8)
        else { return false }
        return text.split(whereSeparator: \.isNewline).contains {
            $0.trimmingCharacters(in: .whitespaces) == "\(Self.marker)=true"
        }
    }

    /// The entry's text with `NoDisplay=true` and the marker in its `[Desktop Entry]`
    /// group (a `NoDisplay` of its own moved to `X-Screenward-NoDisplay`); every other
    /// line as it was.
    static func hidden(_ contents: String) -> String {
        var lines: [String] = []
        var inMainGroup = false
        var headerIndex: Int?
        var ownNoDisplay: String?
        for line in contents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") {
                inMainGroup = trimmed == "[Desktop Entry]"
                lines.append(line)
                if inMainGroup, headerIndex == nil { headerIndex = lines.count }
                continue
            }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if inMainGroup, let key = parts.first, [marker, ownNoDisplayKey, "NoDisplay"].contains(key) {
                if key == "NoDisplay" { ownNoDisplay = parts.count > 1 ? parts[1] : "" }
                continue
            }
            lines.append(line)
        }
        var added = ["NoDisplay=true", "\(marker)=true"]
        if let ownNoDisplay { added.append("\(ownNoDisplayKey)=\(ownNoDisplay)") }
        lines.insert(contentsOf: added, at: headerIndex ?? 0)
        return lines.joined(separator: "\n")
    }
}
