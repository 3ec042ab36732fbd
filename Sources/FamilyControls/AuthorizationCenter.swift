import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import Synchronization

/// Authorization to use the Screen Time API.
///
/// `.individual`: the person at the desktop manages their own use. It is granted to
/// the asking app for the current user, remembered, and never asked again; any
/// number of apps may hold it. Revoking it voids the app's tokens and removes its
/// stores and activities.
///
/// `.child`: a guardian manages this account (`screenward child add`). The request goes
/// to the system daemon, which checks that the app is installed for every user and
/// runs untampered, and asks a guardian for a one-time code in the session; approval
/// is remembered, and revoking needs a guardian again. At most one app holds it per
/// managed account (`authorizationConflict`); outside a managed account it throws
/// `invalidAccountType`.
public final class AuthorizationCenter: Sendable {
    public static let shared = AuthorizationCenter()

    /// How long a guardian's approval (`requestGuardianApproval`) holds for the process that
    /// asked: ten minutes, time to make the changes it asked for and no more.
    public static let guardianApprovalDuration: TimeInterval = 600

    private init() {}

    public func requestAuthorization(for member: FamilyControlsMember) async throws {
        do {
            // .child may wait for a guardian to come and type a code from their authenticator app.
            let status = try await ScreenwardApp.client.call(
                AuthorizationMethods.request, member, timeout: ServiceClient.guardianTimeout)
            guard status == .approved else { throw FamilyControlsError.authorizationCanceled }
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }

    /// Asks a guardian to approve what this app will loosen next, with `reason` shown to
    /// them (Screenward's own: Apple's platform has no such call).
    ///
    /// In an account a guardian manages, what an app changes that restricts less (a shield
    /// lifted, a store cleared, a schedule started, changed or stopped, a value it shares with
    /// its extensions changed) is refused unless a guardian approved it: with a one-time code
    /// in the dialog this brings up at the child's desk, or from their own account. The
    /// approval holds for this process for `guardianApprovalDuration`. Restricting more
    /// needs nobody, and neither does the app's monitor on its schedule. In a person's own
    /// account nobody else decides, and this returns at once.
    ///
    /// Throws `authorizationCanceled` when the guardian does not approve, and
    /// `guardianApprovalRequired`'s message when no dialog can be shown.
    public func requestGuardianApproval(reason: String) async throws {
        do {
            _ = try await ScreenwardApp.client.call(
                AuthorizationMethods.guardianApproval, GuardianApprovalRequest(reason: reason),
                timeout: ServiceClient.guardianTimeout)
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }

    /// iOS 15's form: asks for `.child` (the only member iOS 15 knew) and calls
    /// `completionHandler` once with the outcome, from any thread.
    @available(*, deprecated, message: "use requestAuthorization(for: .child)")
    public func requestAuthorization(completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task {
            do {
                try await requestAuthorization(for: .child)
                completionHandler(.success(()))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }

    /// This app's status at once, then at each change (approved, revoked by the app, the person
    /// or a guardian): what Apple's published `authorizationStatus` gives an observer, as an
    /// async sequence (Linux has no Combine). It ends, after a report to
    /// `ScreenwardApp.problemHandler`, when the owner cannot be asked.
    public var authorizationStatusUpdates: AsyncStream<AuthorizationStatus> {
        AsyncStream { continuation in
            let client = ScreenwardApp.client
            let id = StatusWatchers.add(continuation, on: client)
            continuation.onTermination = { _ in StatusWatchers.remove(id) }
            do {
                continuation.yield(try client.call(AuthorizationMethods.watchStatus, Empty()))
            } catch {
                ScreenwardApp.report("could not watch the authorization status: \(error)")
                continuation.finish()
            }
        }
    }

    /// This app's status now (`.notDetermined` when the agent cannot be asked).
    public var authorizationStatus: AuthorizationStatus {
        do {
            return try ScreenwardApp.client.call(AuthorizationMethods.status, Empty())
        } catch {
            ScreenwardApp.problemHandler("could not ask the agent for the authorization status: \(error)")
            return .notDetermined
        }
    }

    public func revokeAuthorization(completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task {
            do {
                try await revokeAuthorization()
                completionHandler(.success(()))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }

    public func revokeAuthorization() async throws {
        do {
            _ = try await ScreenwardApp.client.call(
                AuthorizationMethods.revoke, Empty(), timeout: ServiceClient.guardianTimeout)
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }
}

extension FamilyControlsError {
    /// The owner's refusal as thrown to the app. Apple's cases without a message
    /// (`.restricted`, …) cannot carry the owner's reason, so it goes to
    /// `ScreenwardApp.problemHandler` first: the person still learns why.
    static func thrown(_ error: ServiceError) -> FamilyControlsError {
        let thrown = FamilyControlsError(error)
        switch thrown {
        case .invalidArgument, .unavailable, .guardianApprovalRequired: break
        default: ScreenwardApp.report(error.message)
        }
        return thrown
    }

    /// The owner's refusal in this framework's terms; the message is kept.
    init(_ error: ServiceError) {
        switch error.code {
        case .invalidArgument, .limitExceeded: self = .invalidArgument(error.message)
        case .unauthorized: self = .restricted
        case .invalidAccountType: self = .invalidAccountType
        case .authorizationConflict: self = .authorizationConflict
        case .authorizationCanceled: self = .authorizationCanceled
        case .guardianApprovalRequired: self = .guardianApprovalRequired(error.message)
        default: self = .unavailable(error.message)
        }
    }
}

/// The streams of `authorizationStatusUpdates` in this process: each push of a change goes to
/// every one of them (a transport has one receiver per kind of push).
enum StatusWatchers {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<AuthorizationStatus>.Continuation] = [:]
        /// The clients whose pushes reach this table, by object identity.
        var receiving: [ObjectIdentifier] = []
    }
    private static let state = Mutex(State())

    static func add(_ continuation: AsyncStream<AuthorizationStatus>.Continuation, on client: ServiceClient) -> Int {
        let (id, isNew) = state.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            let key = ObjectIdentifier(client)
            if state.receiving.contains(key) { return (state.next, false) }
            state.receiving.append(key)
            return (state.next, true)
        }
        if isNew {
            client.transport.setPushReceiver(forKind: AuthorizationMethods.statusChanged.name) { frame in
                guard let status = try? AuthorizationMethods.statusChanged.body(from: frame) else { return }
                for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(status) }
            }
            // The owner forgets the watch with the connection: it is made again on the next.
            try? client.resendOnReconnect(AuthorizationMethods.watchStatus, Empty())
        }
        return id
    }

    static func remove(_ id: Int) {
        _ = state.withLock { $0.continuations.removeValue(forKey: id) }
    }
}
