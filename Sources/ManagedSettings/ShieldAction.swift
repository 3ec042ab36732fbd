import Foundation
import ScreenwardIPC
import Synchronization

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
    /// Screenward's own: `.defer`, and ask the guardians for access to what the shield
    /// covers. In an account a guardian manages, every guardian sees the request (their
    /// tray, a notification, `screenward request list`); one who approves has the delegate's
    /// `guardianApprovedAccess` called, where the app lifts what it shielded, as it decides.
    /// In a person's own account nobody is asked: it is `.defer`.
    case askForAccess
}

/// Subclass and override to decide what a shield's buttons do, as Apple's
/// `ShieldActionDelegate`. Call `completionHandler` exactly once, from any thread.
///
/// The defaults are Screenward's built-in handlers, used when an app supplies none:
/// the primary button ("OK") closes the application (`.close`); the default shield has
/// no secondary button, and a secondary press that still arrives does nothing (`.none`).
///
/// The agent asks the delegate of the app whose store put up the shield. Which method
/// runs depends on why the item is shielded: an application in `shield.applications`
/// reaches `handle(action:for: ApplicationToken…)`, a web domain in `shield.webDomains`
/// the `WebDomainToken` one, and anything shielded because of its category the
/// `ActivityCategoryToken` one. Tokens are the app's own.
///
/// `completionHandler` may be called late and from any thread; it sends the response
/// to the agent before it returns (a short blocking call). Only the first call counts.
/// A handler never called leaves the shield as it is once the agent stops waiting.
/// Methods run one at a time, on a queue of their own (not the main thread).
open class ShieldActionDelegate {
    public required init() {}

    /// Runs an instance of this class as the app's shield action handler until the
    /// process ends: it attaches to the agent and reattaches after the agent restarts.
    /// `@main final class MyActions: ShieldActionDelegate { … }` is a whole program.
    /// Exits with a message when the app is not authorised or no agent runs.
    open class func main() {
        // Returns Void, not Never: `@main` accepts only `() -> Void` mains. It never returns.
        ScreenwardApp.runExtension("the shield action delegate") {
            try ShieldActionAttachment.attach(Self(), client: ScreenwardApp.client)
        }
    }

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

    /// A guardian approved the access asked for (`.askForAccess`) to an application shielded
    /// for itself: lift the shield as the app sees fit (for a while, say), through its own
    /// store. Runs where the delegate runs: for a managed account, as the extensions' own user.
    open func guardianApprovedAccess(to application: ApplicationToken, by guardian: String) {}

    /// A guardian approved access to a web domain shielded for itself.
    open func guardianApprovedAccess(to webDomain: WebDomainToken, by guardian: String) {}

    /// A guardian approved access to what a category's shield covers (`application` or
    /// `webDomain`, in the app's tokens, is what the shield was over).
    open func guardianApprovedAccess(
        to category: ActivityCategoryToken, application: ApplicationToken?, webDomain: WebDomainToken?,
        by guardian: String
    ) {}

    /// The built-in answer: `.close` for the primary button, `.none` for the secondary one.
    public static func defaultResponse(to action: ShieldAction) -> ShieldActionResponse {
        switch action {
        case .primaryButtonPressed: .close
        case .secondaryButtonPressed: .none
        }
    }
}

extension ShieldActionDelegate {
    /// Calls the `guardianApprovedAccess` method for `subject`'s token kind.
    func approved(_ subject: ShieldRequestSubject, by guardian: String) {
        switch subject {
        case .application(let application):
            if let token = application.token { guardianApprovedAccess(to: token, by: guardian) }
        case .webDomain(let webDomain):
            if let token = webDomain.token { guardianApprovedAccess(to: token, by: guardian) }
        case .applicationInCategory(let application, let category):
            if let token = category.token {
                guardianApprovedAccess(to: token, application: application.token, webDomain: nil, by: guardian)
            }
        case .webDomainInCategory(let webDomain, let category):
            if let token = category.token {
                guardianApprovedAccess(to: token, application: nil, webDomain: webDomain.token, by: guardian)
            }
        }
    }

    /// Calls the `handle` method for `subject`'s token kind.
    func deliver(
        _ action: ShieldAction, for subject: ShieldRequestSubject,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        switch subject {
        case .application(let application):
            guard let token = application.token else { return completionHandler(Self.defaultResponse(to: action)) }
            handle(action: action, for: token, completionHandler: completionHandler)
        case .webDomain(let webDomain):
            guard let token = webDomain.token else { return completionHandler(Self.defaultResponse(to: action)) }
            handle(action: action, for: token, completionHandler: completionHandler)
        case .applicationInCategory(_, let category), .webDomainInCategory(_, let category):
            guard let token = category.token else { return completionHandler(Self.defaultResponse(to: action)) }
            handle(action: action, for: token, completionHandler: completionHandler)
        }
    }
}

/// A shield action delegate attached to a client's connection: button presses in,
/// responses out. The connection may carry a monitor and a configuration data source too.
@_spi(Screenward) public final class ShieldActionAttachment: Sendable {
    private let delegate: Mutex<ShieldActionDelegate>
    private let client: ServiceClient

    private init(delegate: sending ShieldActionDelegate, client: ServiceClient) {
        self.delegate = Mutex(delegate)
        self.client = client
    }

    /// Attaches `delegate` as its app's shield action handler (the app is `client`'s
    /// bundle identifier; it must be authorised), and again whenever the connection is remade.
    @discardableResult
    public static func attach(_ delegate: sending ShieldActionDelegate, client: ServiceClient) throws
        -> ShieldActionAttachment
    {
        let attachment = ShieldActionAttachment(delegate: delegate, client: client)
        client.transport.setPushReceiver(forKind: ShieldActionMethods.action.name) { [attachment] frame in
            attachment.received(frame)
        }
        client.transport.setPushReceiver(forKind: ShieldActionMethods.accessApproved.name) { [attachment] frame in
            ScreenwardApp.working { attachment.approved(frame) }
        }
        _ = try client.call(ShieldActionMethods.attach, Empty())
        try client.resendOnReconnect(ShieldActionMethods.attach, Empty())
        return attachment
    }

    private func approved(_ frame: Data) {
        guard let approval = try? ShieldActionMethods.accessApproved.body(from: frame) else {
            return ScreenwardApp.report("ignored a message from the owner that is not an approval of access")
        }
        delegate.withLock { $0.approved(approval.subject, by: approval.guardian) }
    }

    private func received(_ frame: Data) {
        ScreenwardApp.working { handle(frame) }
    }

    private func handle(_ frame: Data) {
        guard let request = try? ShieldActionMethods.action.body(from: frame) else {
            ScreenwardApp.report("ignored a message from the agent that is not a shield action")
            return
        }
        let answered = FirstCall()
        let client = client
        let completion: @Sendable (ShieldActionResponse) -> Void = { response in
            guard answered.claim() else {
                ScreenwardApp.report(
                    "the completion handler of a shield action was called more than once; only the first call counts")
                return
            }
            do {
                _ = try client.call(ShieldActionMethods.answer, ShieldActionAnswer(id: request.id, response: response))
            } catch {
                ScreenwardApp.report(
                    "could not send the response to a shield action: \(error) (the agent keeps the shield as it is)")
            }
        }
        delegate.withLock { $0.deliver(request.action, for: request.subject, completionHandler: completion) }
    }
}

/// True for the first `claim()` only, whichever thread calls.
@_spi(Screenward) public final class FirstCall: Sendable {
    private let claimed = Atomic<Bool>(false)
    public init() {}
    public func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}
