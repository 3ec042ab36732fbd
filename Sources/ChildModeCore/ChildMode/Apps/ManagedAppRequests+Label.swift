@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardBasics
import ScreenwardIPC

/// A managed user's app's label (`Label(token)`): what its token stands for is worked out here
/// and drawn by their session's agent inside the app's window; the app hears only whether it
/// was drawn.
extension ManagedAppRequests {
    struct OpenLabel {
        let peer: ServicePeer
        let uid: UInt32
        /// The session's agent that draws it.
        let agent: ServicePeer
        let pending: PendingReply<Empty>
    }

    func showLabel(_ label: LabelRequest, _ request: ManagedAppRequest, _ pending: PendingReply<Empty>) throws {
        let (app, user) = (request.app.bundleIdentifier, request.user)
        if request.guardian != nil {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("a label is drawn in {user}'s own session, not in a guardian's copy of the app", context: "daemon", ["user": user.name]))
        }
        guard let pid = request.peer.credentials?.pid else {
            throw ServiceError(.unauthorized, Phrase("the daemon cannot tell which process asks", context: "daemon"))
        }
        let contents = try request.owner.service.labelContents(client: app, label.token)
        lastLabelID += 1
        let show = LabelShow(
            id: lastLabelID, contents: contents, style: label.style, window: label.window, pid: pid, app: app)
        guard let agent = services.showLabel(show, user.uid) else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("{user} has no desktop session a label can be drawn in", context: "daemon", ["user": user.name]))
        }
        labels[show.id] = OpenLabel(peer: request.peer, uid: user.uid, agent: agent, pending: pending)
    }

    /// The agent of one of `uid`'s sessions says whether it drew a label: the app hears it.
    @_spi(Screenward) public func labelShown(_ shown: LabelShown, fromAgentOf uid: UInt32) {
        guard let open = labels[shown.id], open.uid == uid else { return }
        labels[shown.id] = nil
        let result: Result<Empty, ServiceError> =
            shown.failure.map { .failure(ServiceError(.invalidArgument, $0)) } ?? .success(Empty())
        send(Delivery(peer: open.peer, line: open.pending.line(result)))
    }
}
