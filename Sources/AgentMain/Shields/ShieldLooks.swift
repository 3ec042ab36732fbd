import Foundation
import GLibRuntime
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import X11Session

/// What each shielded application's shield shows, and the questions to the data
/// source of the app that put the shield up.
///
/// A shield must cover its window within a frame, and an app's data source may
/// take its time (or not run): a shield first shows the last answer this agent
/// run got for the application, else the default look, and is redrawn when the
/// answer comes. An answer later than `patience` is given up on (logged); the
/// shield keeps what it shows.
final class ShieldLooks {
    static let patience: Duration = .seconds(5)

    private let defaults: ShieldDefaults
    /// Read at each look: a managed session's language can change while the agent runs.
    private let language: SessionLanguage
    private let stateOwner: any ShieldStateOwner
    private let loop: MainLoop
    private let log: AgentLog
    /// The data source's answer per application and owner (the same app shielded by
    /// another owner's store asks that owner), resolved against the defaults at each look.
    private var answers: [Key: ShieldConfiguration] = [:]
    private var pending: [ShieldRequestID: (key: Key, decision: ShieldDecision, timeout: MainLoop.Registration)] = [:]

    private struct Key: Hashable {
        var application: ApplicationToken
        var owner: String
        var category: String?
    }

    /// Called with an application's new look when an answer arrives.
    var onNewLook: (ApplicationToken, ResolvedShield) -> Void = { _, _ in }

    init(
        defaults: ShieldDefaults, language: SessionLanguage, stateOwner: any ShieldStateOwner, loop: MainLoop,
        log: AgentLog
    ) {
        self.defaults = defaults
        self.language = language
        self.stateOwner = stateOwner
        self.loop = loop
        self.log = log
    }

    /// What to draw now.
    func look(for decision: ShieldDecision) -> ResolvedShield {
        guard let answer = answers[Self.key(decision)] else { return defaultLook(for: decision) }
        return defaults.resolve(answer, for: decision.subject, language: language.current)
    }

    func defaultLook(for decision: ShieldDecision) -> ResolvedShield {
        let language = language.current
        var configuration = ShieldConfiguration()
        // Child mode's own shields say why: a program the system did not install (no limit
        // was set on it, and a guardian can allow it), a browser the extension does not report
        // for, or one whose extension has not reported yet.
        if decision.owner == NotInstalledPrograms.owner {
            let values = ["app": decision.identity.displayName]
            let (title, subtitle): (ShieldDefaults.Text, ShieldDefaults.Text) =
                switch decision.store {
                case UnsupportedBrowsers.store: (.unsupportedBrowserTitle, .unsupportedBrowserSubtitle)
                case UnsupportedBrowsers.checkingStore: (.checkingBrowserTitle, .checkingBrowserSubtitle)
                default: (.notInstalledTitle, .notInstalledSubtitle)
                }
            if let title = defaults.text(title, language: language, values: values) {
                configuration.title = ShieldConfiguration.Label(text: title, color: defaults.look.titleColor)
            }
            if let subtitle = defaults.text(subtitle, language: language, values: values) {
                configuration.subtitle = ShieldConfiguration.Label(text: subtitle, color: defaults.look.subtitleColor)
            }
        }
        return defaults.resolve(configuration, for: decision.subject, language: language)
    }

    /// Asks the owner's data source (again, for `.defer`). Without a data source the
    /// default look is the answer, at once.
    func ask(_ decision: ShieldDecision) {
        let key = Self.key(decision)
        if pending.values.contains(where: { $0.key == key }) { return }
        guard let id = stateOwner.requestShieldConfiguration(owner: decision.owner, item: decision.item) else {
            let look = defaultLook(for: decision)
            if answers.removeValue(forKey: key) != nil { onNewLook(decision.application, look) }
            return
        }
        let timeout = loop.schedule(after: Self.patience) { [self] in
            guard pending.removeValue(forKey: id) != nil else { return }
            stateOwner.cancelShieldRequest(id)
            log.warning(
                "\(decision.owner)'s shield configuration data source did not answer within "
                    + "\(Int(Self.patience.seconds)) s; its shield keeps the look it has"
            )
        }
        pending[id] = (key, decision, timeout)
    }

    func received(_ id: ShieldRequestID, _ configuration: ShieldConfiguration) {
        guard let request = pending.removeValue(forKey: id) else { return }
        request.timeout.cancel()
        let look = defaults.resolve(configuration, for: request.decision.subject, language: language.current)
        log.info(
            "shield: \(request.decision.owner)'s look for \(request.decision.identity.publicID): "
                + "\"\(configuration.title?.text ?? "(default title)")\" / "
                + "\"\(configuration.subtitle?.text ?? "(default subtitle)")\" / "
                + "\"\(configuration.secondaryButtonLabel?.text ?? "(no second button)")\""
        )
        answers[request.key] = configuration
        onNewLook(request.decision.application, look)
    }

    private static func key(_ decision: ShieldDecision) -> Key {
        Key(application: decision.application, owner: decision.owner, category: decision.category?.id)
    }
}

extension ShieldDecision {
    /// The item as the owner's extensions are asked about it.
    var item: ShieldedItem {
        let desktopID: String? = if case .desktopEntry(let id) = identity.key { id } else { nil }
        guard let category else { return .application(application, desktopID: desktopID, name: identity.displayName) }
        return .applicationInCategory(
            application, desktopID: desktopID, name: identity.displayName, category: category.token,
            categoryName: category.name)
    }
}
