/// A button a person pressed on a shield, as Apple's `ShieldAction`.
public enum ShieldAction: String, Hashable, Codable, Sendable, CaseIterable {
    case primaryButtonPressed
    case secondaryButtonPressed
}

/// What the system does after a shield action, as Apple's `ShieldActionResponse`.
public enum ShieldActionResponse: String, Hashable, Codable, Sendable, CaseIterable {
    /// Nothing more: the shield stays as it is.
    case none
    /// Close the shielded application (and with it its shield).
    case close
    /// Keep the shield, ask the configuration data source again and redraw the shield
    /// with its new answer (e.g. "waiting for a guardian…").
    case `defer`
}

/// Subclass and override to decide what a shield's buttons do, as Apple's
/// `ShieldActionDelegate`. Call `completionHandler` exactly once, from any thread.
///
/// The defaults are Screenward's built-in handlers, used when an app supplies none:
/// the primary button ("OK") closes the application (`.close`); the default shield has
/// no secondary button, and a secondary press that still arrives does nothing (`.none`).
open class ShieldActionDelegate {
    public init() {}

    /// A button pressed on the shield of an application shielded for itself.
    open func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        completionHandler(Self.defaultResponse(to: action))
    }

    /// A button pressed on the shield of a web domain shielded for itself.
    open func handle(
        action: ShieldAction, for webDomain: WebDomainToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        completionHandler(Self.defaultResponse(to: action))
    }

    /// A button pressed on a shield put up because of a category (an application's or a web domain's).
    open func handle(
        action: ShieldAction, for category: ActivityCategoryToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        completionHandler(Self.defaultResponse(to: action))
    }

    /// The built-in answer: `.close` for the primary button, `.none` for the secondary one.
    public static func defaultResponse(to action: ShieldAction) -> ShieldActionResponse {
        switch action {
        case .primaryButtonPressed: .close
        case .secondaryButtonPressed: .none
        }
    }
}
