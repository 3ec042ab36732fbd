import GLibRuntime
import ManagedSettings
import ScreenwardCore
import Synchronization

/// What the shield presenter needs of the state owner, wherever that owner runs: in
/// this process (individual mode: `ServiceHost`), or in the system daemon (child mode,
/// over its socket). The presenter never reaches past this.
///
/// Handlers may be called on any thread: the presenter hops onto its loop.
protocol ShieldStateOwner: ShieldQuestions {
    /// Called after any store changed.
    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void)
    /// Called with the app's bundle identifier when its shield configuration data source attaches.
    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void)
    /// Called with each answer of an app's shield extension.
    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void)
    /// What is covered now, where the owner needs it (child mode's daemon holds the covered
    /// windows' processes). The presenter keeps it itself: `screenward shields` asks the agent.
    func publishCoveredWindows(_ covered: [CoveredWindow])
    /// Ends a covered window's process for the presenter, when the owner holds it (child
    /// mode: the daemon holds it stopped, and the agent may not signal the child's
    /// processes). False when the presenter closes it itself.
    func closeHeldProcess(_ pid: Int32) -> Bool
    /// Whether the owner holds the processes of covered windows (child mode's daemon), so
    /// that a shielded app cannot map a new window.
    var holdsCoveredProcesses: Bool { get }
}

extension ShieldStateOwner {
    func publishCoveredWindows(_ covered: [CoveredWindow]) {}
    func closeHeldProcess(_ pid: Int32) -> Bool { false }
    var holdsCoveredProcesses: Bool { false }
}

extension ServiceHost: ShieldStateOwner {
    public var effectiveShields: EffectiveShields { withService { $0.effectiveShields } }

    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void) {
        withService { $0.onShieldsChanged = handler }
    }

    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void) {
        withService { $0.onShieldDataSourceAttached = handler }
    }

    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void) {
        onShieldAnswer = handler
    }
}

/// The individual agent's state owner for shields: the host, and apps' shield extensions
/// started when needed. A data source not running yet leaves the default look until it
/// attaches (its look then replaces it); a button press waits for the delegate started for it.
/// Two take its answers and attachments: the windows' shields and the browsers' shield
/// pages, each ignoring what it did not ask.
final class LaunchingShieldState: ShieldStateOwner {
    private let host: ServiceHost
    private let extensions: AgentExtensions?
    private let answerListeners = Listeners<ShieldAnswer>()
    private let attachListeners = Listeners<String>()

    init(host: ServiceHost, extensions: AgentExtensions?) {
        self.host = host
        self.extensions = extensions
        host.onShieldAnswer { [answerListeners] answer in answerListeners.call(answer) }
        host.onShieldDataSourceAttached { [attachListeners] bundle in attachListeners.call(bundle) }
    }

    var effectiveShields: EffectiveShields { host.effectiveShields }
    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void) { host.onShieldsChanged(handler) }
    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void) { attachListeners.add(handler) }
    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void) { answerListeners.add(handler) }
    func cancelShieldRequest(_ id: ShieldRequestID) { host.cancelShieldRequest(id) }

    func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID? {
        if let id = host.requestShieldConfiguration(owner: owner, item: item) { return id }
        extensions?.supervisor.wantShieldExtension(.shieldConfiguration, of: owner)
        return nil
    }

    func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID? {
        if let id = host.requestShieldAction(owner: owner, action: action, item: item) { return id }
        guard let supervisor = extensions?.supervisor, supervisor.isInstalled(.shieldAction, of: owner) else {
            return nil
        }
        let id = host.requestShieldActionWhenAttached(owner: owner, action: action, item: item)
        supervisor.wantShieldExtension(.shieldAction, of: owner)
        return id
    }
}

/// Handlers that all hear each value, from any thread.
final class Listeners<Value>: Sendable {
    private let handlers = Mutex<[@Sendable (Value) -> Void]>([])

    func add(_ handler: @escaping @Sendable (Value) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    func call(_ value: Value) {
        for handler in handlers.withLock({ $0 }) { handler(value) }
    }
}

/// What the state owner tells a shield presenter, brought onto the loop (its handlers may be
/// called on any thread): each answer of an app's shield extension, that the stores changed,
/// and which apps' data sources attached.
final class ShieldStateNews {
    private let answers: LoopMailbox<ShieldAnswer>
    private let changed: LoopMailbox<Void>
    private let attached: LoopMailbox<String>

    init(
        from stateOwner: any ShieldStateOwner, answers: @escaping ([ShieldAnswer]) -> Void,
        changed: @escaping () -> Void, attached: @escaping (Set<String>) -> Void
    ) {
        self.answers = LoopMailbox(answers)
        self.changed = LoopMailbox(changed)
        self.attached = LoopMailbox { bundles in attached(Set(bundles)) }
        stateOwner.onShieldAnswer { [mailbox = self.answers] answer in mailbox.post(answer) }
        stateOwner.onShieldsChanged { [mailbox = self.changed] in mailbox.post() }
        stateOwner.onShieldDataSourceAttached { [mailbox = self.attached] bundle in mailbox.post(bundle) }
    }
}
