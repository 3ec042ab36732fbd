import Foundation
import ManagedSettings
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import Synchronization

/// A managed session agent's connection to the system daemon: attached once, then
/// reports out and shield settings in. The daemon knows the agent by the socket's peer
/// credentials and the pid it started; if the connection ends, the agent's work is
/// over (`onEnd`): the daemon starts another.
final class DaemonLink: Sendable {
    static let bundleIdentifier = "org.screenward.agent"
    let path: String
    private let transport: SocketTransport
    private let client: ServiceClient
    /// The stores the daemon pushed last (it pushes them right after the attach reply,
    /// so they are taken from the start), and who hears of new ones.
    private let pushed = PushedStores()

    init(path: String) {
        self.path = path
        transport = SocketTransport(path: path)
        client = ServiceClient(transport: transport, bundleIdentifier: Self.bundleIdentifier)
        transport.setPushReceiver(forKind: AgentLinkMethods.shields.name) { [pushed] frame in
            guard let stores = try? AgentLinkMethods.shields.body(from: frame) else { return }
            pushed.stores.withLock { $0 = stores }
            pushed.changed.withLock { $0 }?()
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.shieldExtensions.name) { [extensions] frame in
            guard let attached = try? AgentLinkMethods.shieldExtensions.body(from: frame) else { return }
            extensions.received(attached)
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.shieldAnswer.name) { [extensions] frame in
            guard let answer = try? AgentLinkMethods.shieldAnswer.body(from: frame) else { return }
            extensions.answered(answer)
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.browserTabs.name) { [browsers] frame in
            guard let reports = try? AgentLinkMethods.browserTabs.body(from: frame) else { return }
            browsers.received(reports)
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.programs.name) { [programs] frame in
            guard let table = try? AgentLinkMethods.programs.body(from: frame) else { return }
            programs.replace(with: table)
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.language.name) { [language] frame in
            guard let spoken = try? AgentLinkMethods.language.body(from: frame) else { return }
            language.received(spoken.language)
        }
        let deliver: @Sendable (DialogPush) -> Void = { [dialogs] push in dialogs.deliver(push) }
        transport.setPushReceiver(forKind: AgentLinkMethods.askGuardian.name) { frame in
            if let ask = try? AgentLinkMethods.askGuardian.body(from: frame) { deliver(.show(ask)) }
        }
        transport.setPushReceiver(forKind: AgentLinkMethods.closeAsk.name) { frame in
            if let closed = try? AgentLinkMethods.closeAsk.body(from: frame) { deliver(.close(closed.ask)) }
        }
        receive(AgentLinkMethods.showPicker, into: pickers)
        receive(AgentLinkMethods.showReport, into: reports)
        receive(AgentLinkMethods.showLabel, into: labels)
    }

    /// The apps' activity pickers the daemon asks this agent to show.
    let pickers = Asks<PickerShow>()
    /// The apps' reports it asks this agent to show.
    let reports = Asks<ReportShow>()
    /// The apps' labels it asks this agent to draw.
    let labels = Asks<LabelShow>()

    private func receive<Body>(_ kind: PushKind<Body>, into asks: Asks<Body>) {
        transport.setPushReceiver(forKind: kind.name) { frame in
            if let body = try? kind.body(from: frame) { asks.deliver(body) }
        }
    }

    /// What the daemon asks of this agent for apps, of one kind, and who answers it. An ask
    /// that comes before the agent has someone to answer it (the daemon may ask as soon as the
    /// agent attached) waits for them.
    final class Asks<Body: Sendable>: Sendable {
        private let state = Mutex<(answerer: (@Sendable (Body) -> Void)?, waiting: [Body])>((nil, []))

        /// From now on `answerer` takes each ask, those waiting first.
        func answer(with answerer: @escaping @Sendable (Body) -> Void) {
            let waiting = state.withLock { state in
                state.answerer = answerer
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach(answerer)
        }

        func deliver(_ body: Body) {
            let answerer = state.withLock { state in
                if state.answerer == nil { state.waiting.append(body) }
                return state.answerer
            }
            answerer?(body)
        }
    }

    func attach(session: String) throws -> AgentAttachment {
        let attachment = try client.call(AgentLinkMethods.attach, AgentAttach(session: session))
        if let spoken = attachment.language { language.received(spoken) }
        return attachment
    }

    /// Sends a report; one that cannot be sent means the link is gone (`onEnd` follows).
    func post<Body>(_ kind: PushKind<Body>, _ body: Body) {
        guard let frame = try? kind.frame(body) else { return }
        try? transport.post(frame)
    }

    /// The language the session speaks, as the daemon last told (its tray tells the daemon).
    let language = LanguageNews()

    final class LanguageNews: Sendable {
        /// The daemon's environment's until the attach reply says the session's.
        let spoken = SessionLanguage(ShieldDefaults.language())
        private let handler = Mutex<(@Sendable () -> Void)?>(nil)

        func onChange(_ handler: @escaping @Sendable () -> Void) {
            self.handler.withLock { $0 = handler }
        }

        fileprivate func received(_ language: String) {
            if spoken.set(language) { handler.withLock { $0 }?() }
        }
    }

    /// The child's processes, as the daemon last told.
    let programs = DaemonPrograms()

    /// The child's browsers' tabs, as the daemon last told (from the hosts it vetted).
    let browsers = BrowserNews()

    final class BrowserNews: Sendable {
        private let reports = Mutex<[BrowserWindowsReport]>([])
        private let handler = Mutex<(@Sendable () -> Void)?>(nil)

        var current: [BrowserWindowsReport] { reports.withLock { $0 } }

        func onChange(_ handler: @escaping @Sendable () -> Void) {
            self.handler.withLock { $0 = handler }
        }

        fileprivate func received(_ now: [BrowserWindowsReport]) {
            reports.withLock { $0 = now }
            handler.withLock { $0 }?()
        }
    }

    var currentStores: [StoreSettings] { pushed.stores.withLock { $0 } }

    func onStoresChanged(_ handler: @escaping @Sendable () -> Void) {
        pushed.changed.withLock { $0 = handler }
    }

    private final class PushedStores: Sendable {
        let stores = Mutex<[StoreSettings]>([])
        let changed = Mutex<(@Sendable () -> Void)?>(nil)
    }

    // MARK: Apps' shield extensions

    /// The apps' shield extensions, as the daemon tells of them: which are attached
    /// (pushed right after the attach reply, so taken from the start), and their answers.
    let extensions = ShieldExtensionNews()

    final class ShieldExtensionNews: Sendable {
        private let attached = Mutex(AttachedShieldExtensions())
        private let attachedHandler = Mutex<(@Sendable (String) -> Void)?>(nil)
        private let answerHandler = Mutex<(@Sendable (ShieldAnswer) -> Void)?>(nil)

        var current: AttachedShieldExtensions { attached.withLock { $0 } }

        /// Hears of each app whose data source is new (its shields are redrawn).
        func onDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void) {
            attachedHandler.withLock { $0 = handler }
        }

        func onAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void) {
            answerHandler.withLock { $0 = handler }
        }

        fileprivate func received(_ now: AttachedShieldExtensions) {
            let new = attached.withLock { attached in
                defer { attached = now }
                return now.dataSourcesAttached(since: attached)
            }
            guard let handler = attachedHandler.withLock({ $0 }) else { return }
            new.sorted().forEach(handler)
        }

        fileprivate func answered(_ answer: ShieldAnswer) {
            answerHandler.withLock { $0 }?(answer)
        }
    }

    // MARK: Guardians' dialogs

    /// What the daemon says about guardians' dialogs.
    enum DialogPush: Sendable {
        case show(GuardianAsk)
        case close(UInt64)
    }

    /// The dialog pushes (handed over on the push queue), with those that came before the
    /// agent was ready (an app may ask the moment the agent attaches).
    let dialogs = Asks<DialogPush>()

    /// Sends the guardian's answer and waits for the daemon's verdict: call it off the loop.
    func answer(_ answer: GuardianAnswer) throws -> GuardianVerdict {
        try client.call(AgentLinkMethods.answerGuardian, answer)
    }

    func onEnd(_ handler: @escaping @Sendable () -> Void) {
        transport.onConnectionEnded(handler)
    }

    func close() { transport.close() }
}

/// The shield presenter's state owner in a managed session: the stores the daemon
/// pushed last, and the apps' shield extensions reached through the daemon. Questions
/// are numbered here and sent without waiting; the answer comes back as a push, and
/// one that never comes leaves the presenter's patience to show the default.
final class DaemonShieldState: ShieldStateOwner, Sendable {
    private let link: DaemonLink
    private let lastQuestion = Mutex<UInt64>(0)
    /// Stores of the agent's own, beside the daemon's (child mode's shield of unsupported browsers).
    private let local = Mutex<[StoreSettings]>([])
    private let changed = Mutex<(@Sendable () -> Void)?>(nil)

    init(link: DaemonLink) {
        self.link = link
    }

    var effectiveShields: EffectiveShields { EffectiveShields(stores: link.currentStores + local.withLock { $0 }) }

    /// Sets the agent's own stores; the presenter redraws.
    func setLocalStores(_ stores: [StoreSettings]) {
        guard
            local.withLock({ current in
                defer { current = stores }
                return current != stores
            })
        else { return }
        changed.withLock { $0 }?()
    }

    func closeHeldProcess(_ pid: Int32) -> Bool {
        link.post(AgentLinkMethods.closeProgram, AgentCloseProgram(pid: pid))
        return true
    }

    var holdsCoveredProcesses: Bool { true }

    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void) {
        changed.withLock { $0 = handler }
        link.onStoresChanged(handler)
    }

    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void) {
        link.extensions.onDataSourceAttached(handler)
    }

    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void) {
        link.extensions.onAnswer(handler)
    }

    func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID? {
        guard link.extensions.current.configuration.contains(owner) else { return nil }
        return ask(owner: owner, item: item, action: nil)
    }

    func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID? {
        // A delegate the daemon starts is waited for like one attached.
        let extensions = link.extensions.current
        guard extensions.action.contains(owner) || extensions.startableAction.contains(owner) else { return nil }
        return ask(owner: owner, item: item, action: action)
    }

    private func ask(owner: String, item: ShieldedItem, action: ShieldAction?) -> ShieldRequestID {
        let id = ShieldRequestID(
            rawValue: lastQuestion.withLock { last in
                last += 1
                return last
            })
        link.post(
            AgentLinkMethods.askShieldExtension, AgentShieldQuestion(id: id, owner: owner, item: item, action: action))
        return id
    }

    func cancelShieldRequest(_ id: ShieldRequestID) {
        link.post(AgentLinkMethods.cancelShieldQuestion, AgentShieldCancel(id: id))
    }

    func publishCoveredWindows(_ covered: [CoveredWindow]) {
        link.post(AgentLinkMethods.covered, covered)
    }
}
