@_spi(Screenward) import DeviceActivity
import Foundation
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardBasics
import ScreenwardIPC

/// An app's report for a managed user: shown by their session's agent, as the agents' user,
/// in a window that asks the daemon for the drawing with a one-time secret. The app hears only
/// that the window was closed; no program of the child's may ask for an app's drawn report.
extension ManagedAppRequests {
    struct OpenReport {
        let peer: ServicePeer
        let uid: UInt32
        /// The session's agent that shows it.
        let agent: ServicePeer
        let app: String
        let ticket: String
        let pending: PendingReply<Empty>
    }

    func presentReport(
        _ presentation: ReportPresentation, _ request: ManagedAppRequest, _ pending: PendingReply<Empty>
    ) throws {
        let (app, user) = (request.app, request.user)
        if request.guardian != nil {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("a guardian sees {user}'s report of an app with `screenward report --user {user} --app {app}`, in their own session", context: "daemon", ["user": user.name, "app": app.bundleIdentifier]))
        }
        guard try request.owner.ledger.grant(for: app.bundleIdentifier) != nil else {
            // swift-format-ignore
            throw ServiceError(.unauthorized, Phrase("{app} is not authorised: it asks for .child first, which a guardian approves", context: "daemon", ["app": app.displayName]))
        }
        lastReportID += 1
        let show = ReportShow(
            id: lastReportID, ticket: Self.newTicket(), app: app.bundleIdentifier, presentation: presentation)
        guard let agent = services.showReport(show, user.uid) else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("{user} has no desktop session the report can be shown in", context: "daemon", ["user": user.name]))
        }
        reports[show.id] = OpenReport(
            peer: request.peer, uid: user.uid, agent: agent, app: app.bundleIdentifier, ticket: show.ticket,
            pending: pending)
    }

    /// The user and app of the report window that holds `ticket`, while it is open.
    @_spi(Screenward) public func reportShown(ticket: String) -> (uid: UInt32, app: String)? {
        reports.values.first { $0.ticket == ticket }.map { ($0.uid, $0.app) }
    }

    /// The agent of one of `uid`'s sessions says a report window closed: its ticket is spent,
    /// and the app hears it.
    @_spi(Screenward) public func reportClosed(_ closed: ReportClosed, fromAgentOf uid: UInt32) {
        guard let open = reports[closed.id], open.uid == uid else { return }
        reports[closed.id] = nil
        let result: Result<Empty, ServiceError> =
            closed.failure.map { .failure(ServiceError(.internalFailure, $0)) } ?? .success(Empty())
        send(Delivery(peer: open.peer, line: open.pending.line(result)))
    }

    /// 256 random bits, as text.
    private static func newTicket() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}
