import ScreenwardCore

/// Window facts to application identities, resolved once per distinct set of facts
/// (a focus change between known windows costs a dictionary lookup).
final class Identities {
    private(set) var resolver: AppResolver
    private var known: [WindowFacts: AppIdentity] = [:]

    init(resolver: AppResolver) {
        self.resolver = resolver
    }

    func identity(for facts: WindowFacts) -> AppIdentity {
        if let app = known[facts] { return app }
        let app = resolver.resolve(facts)
        if known.count > 4096 { known.removeAll() }
        known[facts] = app
        return app
    }

    /// Applications installed or removed: resolve everything afresh.
    func reload(_ resolver: AppResolver) {
        self.resolver = resolver
        known.removeAll()
    }
}
