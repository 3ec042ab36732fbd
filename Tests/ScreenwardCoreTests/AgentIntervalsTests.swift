import Foundation
@_spi(Screenward) import ManagedSettings
import TestSupport
import XCTest

@testable import ScreenwardCore

/// The daemon's side of a managed session agent's usage reports.
final class AgentIntervalsTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let game = AppIdentity(key: .desktopEntry("org.example.Game.desktop"), displayName: "Game")
    let token = ApplicationToken(opaqueValue: "game")
    let t0 = ContinuousClock.now

    func testReportsReachTheSinkAndADropClosesWhatWasOpenAtThatInstant() throws {
        let sink = RecordingSink()
        var problems: [String] = []
        let intervals = AgentIntervals(sink: sink) { problems.append($0) }
        intervals.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(1)), at: t0 + .seconds(1))
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(2)), at: t0 + .seconds(2))
        XCTAssertEqual(intervals.openCount, 1)
        // Killed 0.6 s after its last checkpoint: the interval ends then, not at the checkpoint.
        intervals.agentGone(at: t0 + .milliseconds(2600))
        XCTAssertEqual(
            sink.calls,
            [
                .opened(game, token, start), .checkpointed(100, .seconds(1)), .checkpointed(100, .seconds(2)),
                .closed(100, .milliseconds(2600), .connectionLost),
            ])
        XCTAssertEqual(intervals.openCount, 0)
        XCTAssertEqual(problems, [])
    }

    func testTheNextAgentContinuesTheSameApplicationFromTheCutSoTheRestartIsNotLost() throws {
        let first = AgentIntervals(sink: RecordingSink()) { _ in }
        first.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        first.apply(.checkpointed(interval: 1, duration: .seconds(3)), at: t0 + .seconds(3))
        let handover = try XCTUnwrap(first.agentGone(at: t0 + .milliseconds(3050)))
        XCTAssertEqual(handover.cutAt, start.addingTimeInterval(3.05))

        // The new agent starts 0.3 s later, the game still focused: its interval starts at the cut.
        let sink = RecordingSink()
        let second = AgentIntervals(sink: sink, continuing: handover) { _ in }
        second.apply(
            .opened(interval: 1, app: game, token: token, start: start.addingTimeInterval(3.35)),
            at: t0 + .milliseconds(3350))
        XCTAssertEqual(sink.calls, [.opened(game, token, start.addingTimeInterval(3.05))])

        // Another application, or one much later, starts when it started.
        let other = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
        let elsewhere = RecordingSink()
        AgentIntervals(sink: elsewhere, continuing: handover) { _ in }
            .apply(
                .opened(
                    interval: 1, app: other, token: ApplicationToken(opaqueValue: "editor"),
                    start: start.addingTimeInterval(3.35)), at: t0)
        XCTAssertEqual(
            elsewhere.calls, [.opened(other, ApplicationToken(opaqueValue: "editor"), start.addingTimeInterval(3.35))])
        let late = RecordingSink()
        AgentIntervals(sink: late, continuing: handover) { _ in }.apply(
            .opened(interval: 1, app: game, token: token, start: start.addingTimeInterval(30)), at: t0)
        XCTAssertEqual(late.calls, [.opened(game, token, start.addingTimeInterval(30))])
    }

    func testAClosedIntervalIsNotClosedAgainWhenTheAgentGoes() {
        let sink = RecordingSink()
        let intervals = AgentIntervals(sink: sink) { _ in }
        intervals.apply(.opened(interval: 7, app: game, token: token, start: start), at: t0)
        intervals.apply(
            .closed(interval: 7, duration: .milliseconds(1500), reason: .focusChange), at: t0 + .milliseconds(1500))
        intervals.agentGone(at: t0 + .seconds(5))
        XCTAssertEqual(sink.calls, [.opened(game, token, start), .closed(100, .milliseconds(1500), .focusChange)])
    }

    func testReportsThatMakeNoSenseAreRefusedAndSaidSo() {
        let sink = RecordingSink()
        var problems: [String] = []
        let intervals = AgentIntervals(sink: sink) { problems.append($0) }
        intervals.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        intervals.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(3)), at: t0 + .seconds(3))
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(2)), at: t0 + .seconds(4))
        intervals.apply(.checkpointed(interval: 9, duration: .seconds(1)), at: t0 + .seconds(4))
        intervals.apply(.closed(interval: 9, duration: .seconds(1), reason: .idle), at: t0 + .seconds(4))
        // A close shorter than what was already reported keeps the longer figure.
        intervals.apply(.closed(interval: 1, duration: .seconds(1), reason: .idle), at: t0 + .seconds(5))
        XCTAssertEqual(
            sink.calls,
            [.opened(game, token, start), .checkpointed(100, .seconds(3)), .closed(100, .seconds(3), .idle)])
        XCTAssertEqual(problems.count, 4, "\(problems)")
    }

    func testTheLedgerKeepsWhatTheAgentHadOpenWhenItWasKilled() throws {
        let ledger = try Ledger()
        let run = try ledger.beginAgentSession(pid: 1, display: "daemon", at: start).sessionID
        let intervals = AgentIntervals(sink: LedgerSink(ledger: ledger, sessionID: run)) { XCTFail($0) }
        intervals.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(1)), at: t0 + .seconds(1))
        intervals.agentGone(at: t0 + .milliseconds(1050))
        let report = try ledger.usage(
            since: start, until: start.addingTimeInterval(60), liveSessionID: nil, now: start.addingTimeInterval(60))
        XCTAssertEqual(report.apps.map(\.id), ["org.example.Game.desktop"])
        XCTAssertEqual(try XCTUnwrap(report.apps.first).seconds, 1.05, accuracy: 0.0001)
    }
}

/// The whole chain of a managed session: the agent's accountant writes to its report
/// sink, each report crosses as JSON, the daemon applies it to the child's ledger.
final class AgentReportChainTests: XCTestCase {
    func testTheAgentsAccountantFillsTheDaemonsLedgerThroughReports() throws {
        let time = ManualTime()
        let ledger = try Ledger()
        let run = try ledger.beginAgentSession(pid: 1, display: "daemon", at: time.now().wall).sessionID
        let daemonSide = AgentIntervals(sink: LedgerSink(ledger: ledger, sessionID: run)) { XCTFail($0) }
        var daemonClock = ContinuousClock.now
        let agentSide = AgentReportSink { report in
            do {
                let line = try JSONEncoder().encode(report)
                daemonSide.apply(try JSONDecoder().decode(AgentUsageReport.self, from: line), at: daemonClock)
            } catch {
                XCTFail("a report did not survive the wire: \(error)")
            }
        }
        let accountant = UsageAccountant(
            sink: agentSide, minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32)))
        ) { XCTFail($0) }
        let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
        let game = AppIdentity(key: .windowClass("Game"), displayName: "Game")

        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(3))
        daemonClock += .seconds(3)
        accountant.focusChanged(to: game, at: time.now())
        time.advance(.seconds(1))
        daemonClock += .seconds(1)
        accountant.checkpoint(at: time.now())
        // The agent is killed 300 ms after its checkpoint; the daemon sees the drop at once.
        daemonClock += .milliseconds(300)
        daemonSide.agentGone(at: daemonClock)

        let report = try ledger.usage(
            since: .distantPast, until: .distantFuture, liveSessionID: nil, now: time.now().wall.addingTimeInterval(60))
        let seconds = Dictionary(uniqueKeysWithValues: report.apps.map { ($0.id, $0.seconds) })
        XCTAssertEqual(try XCTUnwrap(seconds["org.example.Editor.desktop"]), 3, accuracy: 0.0001)
        XCTAssertEqual(try XCTUnwrap(seconds["wmclass:Game"]), 1.3, accuracy: 0.0001)
    }
}
