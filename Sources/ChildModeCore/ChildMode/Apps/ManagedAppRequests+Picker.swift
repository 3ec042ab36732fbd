@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardBasics
import ScreenwardIPC

/// The activity picker for a managed user's app: shown by their session's agent, as the
/// agents' user, so the ids chosen reach neither the app nor any program of the child's.
extension ManagedAppRequests {
    struct OpenPicker {
        let peer: ServicePeer
        let client: String
        let uid: UInt32
        /// The session's agent that shows it.
        let agent: ServicePeer
        let pending: PendingReply<PickerOutcome>
    }

    func presentPicker(
        _ presentation: PickerPresentation, _ request: ManagedAppRequest, _ pending: PendingReply<PickerOutcome>
    ) throws -> [Delivery] {
        let (client, owner, user) = (request.app.bundleIdentifier, request.owner, request.user)
        let opening = try owner.service.pickerOpening(client: client, presentation.selection)
        if request.guardian != nil {
            // A guardian's own copy of the app, on the guardian's display, which the daemon
            // does not reach: it shows the picker itself (docs/picker.md).
            return [Delivery(peer: request.peer, line: pending.line(.success(.chooseHere(opening.items))))]
        }
        let seen = PickerSeen(
            applications: try owner.ledger.knownApplications().prefix(PickerShow.maximumSeen).map {
                PickerSeen.Application(id: $0.publicID, name: $0.displayName)
            },
            websites: Array(try owner.ledger.knownWebsites().prefix(PickerShow.maximumSeen)))
        lastPickerID += 1
        let show = PickerShow(
            id: lastPickerID, ticked: opening.items, headerText: presentation.headerText,
            footerText: presentation.footerText, seen: seen)
        guard let agent = services.showPicker(show, user.uid) else {
            // swift-format-ignore
            throw ServiceError(.pickerUnavailable, Phrase("{user} has no desktop session the activity picker can be shown in", context: "daemon", ["user": user.name]))
        }
        pickers[show.id] = OpenPicker(peer: request.peer, client: client, uid: user.uid, agent: agent, pending: pending)
        return []
    }

    /// A session's agent is gone: the pickers, reports and labels it showed end with it, and their apps
    /// hear why (a successor agent does not know of them).
    @_spi(Screenward) public func agentGone(_ agent: ServicePeer) {
        for (id, open) in pickers where open.agent == agent {
            pickerClosed(
                PickerClosed(id: id, failure: "the session's agent ended while the picker was open"),
                fromAgentOf: open.uid)
        }
        for (id, open) in reports where open.agent == agent {
            reportClosed(
                ReportClosed(id: id, failure: "the session's agent ended while the report was open"),
                fromAgentOf: open.uid)
        }
        for (id, open) in labels where open.agent == agent {
            labelShown(
                LabelShown(id: id, failure: "the session's agent ended before it drew the label"), fromAgentOf: open.uid
            )
        }
    }

    /// The agent of one of `uid`'s sessions says how a picker ended: the app gets its tokens
    /// for what was chosen. A picker of another user's, or one whose app is gone, is ignored.
    @_spi(Screenward) public func pickerClosed(_ closed: PickerClosed, fromAgentOf uid: UInt32) {
        guard let open = pickers[closed.id], open.uid == uid else { return }
        pickers[closed.id] = nil
        let outcome: Result<PickerOutcome, ServiceError>
        if let failure = closed.failure {
            outcome = .failure(ServiceError(.pickerUnavailable, failure))
        } else if let chosen = closed.chosen {
            do {
                guard let owner = services.owner(uid) else {
                    throw ServiceError(.internalFailure, "the daemon no longer keeps this user's state")
                }
                outcome = .success(.chosen(try owner.service.pickerChose(client: open.client, chosen)))
            } catch {
                outcome = .failure(Self.serviceError(error))
            }
        } else {
            outcome = .success(.cancelled)
        }
        send(Delivery(peer: open.peer, line: open.pending.line(outcome)))
    }
}
