import Foundation
import XCTest
@_spi(Screenward) import ManagedSettings
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
        XCTAssertEqual(sink.calls, [
            .opened(game, token, start), .checkpointed(100, .seconds(1)), .checkpointed(100, .seconds(2)),
            .closed(100, .milliseconds(2600), .connectionLost),
        ])
        XCTAssertEqual(intervals.openCount, 0)
        XCTAssertEqual(problems, [])
    }

    func testAClosedIntervalIsNotClosedAgainWhenTheAgentGoes() {
        let sink = RecordingSink()
        let intervals = AgentIntervals(sink: sink) { _ in }
        intervals.apply(.opened(interval: 7, app: game, token: token, start: start), at: t0)
        intervals.apply(.closed(interval: 7, duration: .milliseconds(1500), reason: .focusChange), at: t0 + .milliseconds(1500))
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
        XCTAssertEqual(sink.calls, [.opened(game, token, start), .checkpointed(100, .seconds(3)), .closed(100, .seconds(3), .idle)])
        XCTAssertEqual(problems.count, 4, "\(problems)")
    }

    func testTheLedgerKeepsWhatTheAgentHadOpenWhenItWasKilled() throws {
        let ledger = try Ledger()
        let run = try ledger.beginAgentSession(pid: 1, display: "daemon", at: start).sessionID
        let intervals = AgentIntervals(sink: LedgerSink(ledger: ledger, sessionID: run)) { XCTFail($0) }
        intervals.apply(.opened(interval: 1, app: game, token: token, start: start), at: t0)
        intervals.apply(.checkpointed(interval: 1, duration: .seconds(1)), at: t0 + .seconds(1))
        intervals.agentGone(at: t0 + .milliseconds(1050))
        let report = try ledger.usage(since: start, until: start.addingTimeInterval(60), liveSessionID: nil, now: start.addingTimeInterval(60))
        XCTAssertEqual(report.apps.map(\.id), ["org.example.Game.desktop"])
        XCTAssertEqual(try XCTUnwrap(report.apps.first).seconds, 1.05, accuracy: 0.0001)
    }
}
