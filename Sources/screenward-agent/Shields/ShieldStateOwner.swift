import ManagedSettings
import ScreenwardCore

/// What the shield presenter needs of the state owner, wherever that owner runs: in
/// this process (individual mode: `ServiceHost`), or in the system daemon (child mode,
/// over its socket). The presenter never reaches past this.
///
/// Handlers may be called on any thread: the presenter hops onto its loop.
protocol ShieldStateOwner: AnyObject {
    /// The union of every store that counts now.
    var effectiveShields: EffectiveShields { get }
    /// Called after any store changed.
    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void)
    /// Called with the app's bundle identifier when its shield configuration data source attaches.
    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void)
    /// Called with each answer of an app's shield extension.
    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void)
    /// Nil when the owner has no data source attached (draw the default at once).
    func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID?
    /// Nil when the owner has no delegate attached (use the default response).
    func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID?
    func cancelShieldRequest(_ id: ShieldRequestID)
    /// What is covered now (`screenward shields` shows it).
    func publishCoveredWindows(_ covered: [CoveredWindow])
}

extension ServiceHost: ShieldStateOwner {
    var effectiveShields: EffectiveShields { withService { $0.effectiveShields } }

    func onShieldsChanged(_ handler: @escaping @Sendable () -> Void) {
        withService { $0.onShieldsChanged = handler }
    }

    func onShieldDataSourceAttached(_ handler: @escaping @Sendable (String) -> Void) {
        withService { $0.onShieldDataSourceAttached = handler }
    }

    func onShieldAnswer(_ handler: @escaping @Sendable (ShieldAnswer) -> Void) {
        onShieldAnswer = handler
    }

    func publishCoveredWindows(_ covered: [CoveredWindow]) {
        withService { $0.coveredWindows = covered }
    }
}
