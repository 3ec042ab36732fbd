@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardIPC

/// `picker.present` in individual mode: the agent shows the activity picker on its display,
/// as the owner, and answers the app with its tokens for what was chosen. The ids go from
/// the picker to the agent only. The person takes their time: each picker is waited for on
/// a thread of its own, and its result comes back to the loop, where tokens are issued.
final class AgentPickers: Sendable {
    private let host: ServiceHost
    /// The display's variables (`DISPLAY` or `WAYLAND_DISPLAY`), for the picker.
    private let displayEnvironment: [String: String]
    private let log: AgentLog
    private let results = LoopMailbox<@Sendable () -> Void> { results in for result in results { result() } }

    init(host: ServiceHost, displayEnvironment: [String: String], log: AgentLog) {
        self.host = host
        self.displayEnvironment = displayEnvironment
        self.log = log
    }

    func present(
        _ request: RequestFrame<PickerPresentation>, from peer: ServicePeer, _ pending: PendingReply<PickerOutcome>
    ) throws {
        let client = request.client
        let opening = try host.withService { try $0.pickerOpening(client: client, request.body.selection) }
        for line in opening.skipped { log.warning("picker: \(client)'s selection: left out \(line)") }
        let program: URL
        do {
            program = try PickerProgram.locate()
        } catch {
            throw ServiceError(.pickerUnavailable, "\(error)")
        }
        let run = PickerRun(
            program: program, ticked: opening.items, headerText: request.body.headerText,
            footerText: request.body.footerText,
            environment: ProcessInfo.processInfo.environment.merging(displayEnvironment) { $1 })
        log.info("picker: shown for \(client)")
        let results = results
        Thread.detachNewThread { [self] in
            let chosen = Result { try run.run() }
            results.post { [self] in peer.send(pending.line(outcome(chosen, client: client))) }
        }
    }

    private func outcome(_ chosen: Result<SelectionRequest?, any Error>, client: String) -> Result<
        PickerOutcome, ServiceError
    > {
        do {
            guard let ids = try chosen.get() else {
                log.info("picker: \(client)'s picker was cancelled")
                return .success(.cancelled)
            }
            let selection = try host.withService { try $0.pickerChose(client: client, ids) }
            log.info("picker: \(client) got its tokens for what was chosen")
            return .success(.chosen(selection))
        } catch let error as ServiceError {
            return .failure(error)
        } catch {
            log.warning("picker: \(client)'s picker failed: \(error)")
            return .failure(ServiceError(.pickerUnavailable, "\(error)"))
        }
    }
}
