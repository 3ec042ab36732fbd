import ScreenwardIPC

/// A named set of settings this app applies to the person's session: what to
/// shield and which applications to block.
///
/// Stores are kept by the Screenward agent, shared between an app and its monitor
/// (same bundle identifier), and survive restarts. The effective state comes from
/// every store of every app: the most restrictive setting wins. An app may use at
/// most 50 named stores.
///
/// As in Apple's API, setters do not throw: a write the agent refuses (the app is
/// not authorised, a limit is passed, the agent is not running) is reported to
/// `ScreenwardApp.problemHandler`.
open class ManagedSettingsStore {
    public struct Name: RawRepresentable, Hashable, Codable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The store `ManagedSettingsStore()` uses.
        public static let `default` = Name("default")
    }

    /// Apple's limits.
    public static let maximumNamedStores = 50
    public static let maximumTokens = ShieldSettings.maximumTokenCount

    public let name: Name

    public init() {
        name = .default
    }

    public init(named name: Name) {
        self.name = name
    }

    /// What this store shields. Reading asks the agent; assigning (or changing one
    /// property, `store.shield.applications = …`) sends only what changed.
    public var shield: ShieldSettings {
        get { contents().shield }
        set { write { $0.shield = newValue } }
        // Changing one property changes what was read once, so a setting another
        // process (the app's monitor) changed since is not put back.
        _modify {
            let old = contents()
            var new = old
            yield &new.shield
            send(from: old, to: new)
        }
    }

    /// Settings about applications (`blockedApplications`, `denyAppInstallation`).
    public var application: ApplicationSettings {
        get { contents().application }
        set { write { $0.application = newValue } }
        _modify {
            let old = contents()
            var new = old
            yield &new.application
            send(from: old, to: new)
        }
    }

    /// Settings about web content (`blockedByFilter`): enforced in Chromium and Firefox with
    /// Screenward's extension.
    public var webContent: WebContentSettings {
        get { contents().webContent }
        set { write { $0.webContent = newValue } }
        _modify {
            let old = contents()
            var new = old
            yield &new.webContent
            send(from: old, to: new)
        }
    }

    /// Removes every setting of this store.
    public func clearAllSettings() {
        do {
            _ = try ScreenwardApp.client.call(StoreMethods.clear, StoreReference(name: name.rawValue))
        } catch {
            ScreenwardApp.report("could not clear the settings store \"\(name.rawValue)\": \(error)")
        }
    }

    // MARK: Talking to the agent

    private func contents() -> StoreContents {
        do {
            return try ScreenwardApp.client.call(StoreMethods.read, StoreReference(name: name.rawValue))
        } catch {
            ScreenwardApp.report("could not read the settings store \"\(name.rawValue)\": \(error)")
            return StoreContents(shield: ShieldSettings(), application: ApplicationSettings())
        }
    }

    private func write(_ change: (inout StoreContents) -> Void) {
        let old = contents()
        var new = old
        change(&new)
        send(from: old, to: new)
    }

    /// Sends the settings that differ between `old` (as read) and `new`.
    private func send(from old: StoreContents, to new: StoreContents) {
        let settings = StoreChange.settings(from: old, to: new)
        guard !settings.isEmpty else { return }
        if let problem = Self.limitProblem(new) {
            ScreenwardApp.report("the settings store \"\(name.rawValue)\" was not changed: \(problem)")
            return
        }
        do {
            _ = try ScreenwardApp.client.call(StoreMethods.change, StoreChange(name: name.rawValue, settings: settings))
        } catch {
            ScreenwardApp.report("could not change the settings store \"\(name.rawValue)\": \(error)")
        }
    }

    /// Apple's token limits, checked before anything is sent (the agent checks again).
    @_spi(Screenward) public static func limitProblem(_ contents: StoreContents) -> String? {
        let lists: [(String, Int)] = [
            ("shield.applications", contents.shield.applications?.count ?? 0),
            ("shield.webDomains", contents.shield.webDomains?.count ?? 0),
            ("application.blockedApplications", contents.application.blockedApplications?.count ?? 0),
        ]
        for (setting, count) in lists where count > maximumTokens {
            return "\(setting) holds \(count) items; at most \(maximumTokens) are allowed"
        }
        return nil
    }
}
