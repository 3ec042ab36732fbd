import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

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

    private init() {}

    public func requestAuthorization(for member: FamilyControlsMember) async throws {
        do {
            // .child may wait for a guardian to come and type a code from their authenticator app.
            let status = try await ScreenwardApp.client.call(
                AuthorizationMethods.request, member, timeout: ServiceClient.guardianTimeout)
            guard status == .approved else { throw FamilyControlsError.authorizationCanceled }
        } catch let error as ServiceError {
            throw FamilyControlsError(error)
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
            throw FamilyControlsError(error)
        }
    }
}

extension FamilyControlsError {
    /// The owner's refusal in this framework's terms; the message is kept.
    init(_ error: ServiceError) {
        switch error.code {
        case .invalidArgument, .limitExceeded: self = .invalidArgument(error.message)
        case .unauthorized: self = .restricted
        case .invalidAccountType: self = .invalidAccountType
        case .authorizationConflict: self = .authorizationConflict
        case .authorizationCanceled: self = .authorizationCanceled
        default: self = .unavailable(error.message)
        }
    }
}
