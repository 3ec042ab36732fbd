import Foundation
import ManagedSettings
import TestSupport
import XCTest

@testable import ScreenwardCore

final class UsageAccountantTests: XCTestCase {
    let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
    let game = AppIdentity(key: .windowClass("Game"), displayName: "Game")

    var time: ManualTime!
    var ledger: Ledger!
    var accountant: UsageAccountant!
    var problems: [String] = []

    override func setUpWithError() throws {
        time = ManualTime()
        ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":9", at: time.now().wall).sessionID
        accountant = UsageAccountant(
            sink: LedgerSink(ledger: ledger, sessionID: session),
            minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32)))
        ) { [unowned self] in problems.append($0) }
    }

    /// Seconds per public id over all time, as the CLI would report them.
    func totals(live: Bool = false) throws -> [String: Double] {
        let report = try ledger.usage(
            since: .distantPast, until: .distantFuture, liveSessionID: live ? 1 : nil, now: time.now().wall)
        return Dictionary(uniqueKeysWithValues: report.apps.map { ($0.id, $0.seconds) })
    }

    func testFocusedTimeIsCountedPerApplication() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(10))
        accountant.focusChanged(to: game, at: time.now())
        time.advance(.milliseconds(2500))
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(1))
        accountant.focusChanged(to: nil, at: time.now())
        time.advance(.seconds(100))

        let totals = try totals()
        XCTAssertEqual(totals["org.example.Editor.desktop"] ?? 0, 11, accuracy: 1e-6)
        XCTAssertEqual(totals["wmclass:Game"] ?? 0, 2.5, accuracy: 1e-6)
        XCTAssertEqual(problems, [])
    }

    func testIdleEndsTheIntervalAtTheLastInputAndReturnReopensIt() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(30))
        let lastInput = time.now()
        time.advance(.seconds(120))  // the threshold passes without input
        accountant.userWentIdle(lastInput: lastInput)
        XCTAssertFalse(accountant.isCounting)
        time.advance(.seconds(600))
        accountant.userReturned(at: time.now())
        time.advance(.seconds(5))
        accountant.stop(at: time.now(), reason: .agentStopped)

        XCTAssertEqual(try totals()["org.example.Editor.desktop"] ?? 0, 35, accuracy: 1e-6)
    }

    func testIdleBeforeTheIntervalStartedCountsNothing() throws {
        let lastInput = time.now()
        time.advance(.seconds(50))
        accountant.focusChanged(to: game, at: time.now())  // focus moved by a program, not a person
        time.advance(.seconds(70))
        accountant.userWentIdle(lastInput: lastInput)
        XCTAssertEqual(try totals(), [:])
    }

    func testLockAndAnnouncedSleepNeverCount() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(10))
        accountant.lockChanged(isLocked: true, at: time.now())
        time.advance(.seconds(300))
        accountant.lockChanged(isLocked: false, at: time.now())
        time.advance(.seconds(10))
        accountant.sleepChanged(isAsleep: true, at: time.now())
        time.suspend(for: .seconds(3600))
        accountant.sleepChanged(isAsleep: false, at: time.now())
        time.advance(.seconds(10))
        accountant.stop(at: time.now(), reason: .agentStopped)

        XCTAssertEqual(try totals()["org.example.Editor.desktop"] ?? 0, 30, accuracy: 1e-6)
    }

    func testUnannouncedSuspendIsSplitOutAndNotCounted() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(20))
        accountant.checkpoint(at: time.now())
        time.advance(.milliseconds(400))
        time.suspend(for: .seconds(7200))
        accountant.checkpoint(at: time.now())  // first reading after the resume
        time.advance(.seconds(5))
        accountant.stop(at: time.now(), reason: .agentStopped)

        XCTAssertEqual(try totals()["org.example.Editor.desktop"] ?? 0, 25.4, accuracy: 1e-6)
        // The part before the sleep stays on the calendar before it.
        let report = try ledger.usage(
            since: time.now().wall.addingTimeInterval(-10), until: .distantFuture, liveSessionID: nil,
            now: time.now().wall)
        XCTAssertEqual(report.totalSeconds, 5, accuracy: 1e-6)
    }

    func testWallClockJumpsNeitherCreateNorDestroyUsage() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(10))
        time.jumpWall(by: -3 * 3600)  // someone sets the clock back three hours
        accountant.checkpoint(at: time.now())
        time.advance(.seconds(10))
        time.jumpWall(by: 86_400)  // and a day forward
        accountant.focusChanged(to: game, at: time.now())
        time.advance(.seconds(4))
        accountant.stop(at: time.now(), reason: .agentStopped)

        let totals = try totals()
        XCTAssertEqual(totals["org.example.Editor.desktop"] ?? 0, 20, accuracy: 1e-6)
        XCTAssertEqual(totals["wmclass:Game"] ?? 0, 4, accuracy: 1e-6)
    }

    func testSameApplicationAgainKeepsOneInterval() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(3))
        var renamed = editor
        renamed.displayName = "Editor (renamed)"
        accountant.focusChanged(to: renamed, at: time.now())
        time.advance(.seconds(3))
        accountant.stop(at: time.now(), reason: .agentStopped)
        let rows = try ledger.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM usageInterval") }
        XCTAssertEqual(rows, 1)
        XCTAssertEqual(try totals()["org.example.Editor.desktop"] ?? 0, 6, accuracy: 1e-6)
    }

    func testOpenIntervalCountsUpToNowForALiveAgentAndToItsCheckpointOtherwise() throws {
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(5))
        accountant.checkpoint(at: time.now())
        time.advance(.milliseconds(700))
        XCTAssertEqual(try totals(live: true)["org.example.Editor.desktop"] ?? 0, 5.7, accuracy: 1e-6)
        XCTAssertEqual(try totals(live: false)["org.example.Editor.desktop"] ?? 0, 5, accuracy: 1e-6)
    }

    func testEventTimesInThePastAreClampedToTheIntervalStart() throws {
        let early = time.now()
        time.advance(.seconds(2))
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(1))
        accountant.focusChanged(to: game, at: early)  // a stale stamp must not give negative time
        time.advance(.seconds(1))
        accountant.stop(at: time.now(), reason: .agentStopped)
        let totals = try totals()
        // The editor's interval ends where it began; the game's starts there, not earlier.
        XCTAssertNil(totals["org.example.Editor.desktop"])
        XCTAssertEqual(totals["wmclass:Game"] ?? 0, 2, accuracy: 1e-6)
    }
}

/// A sink that fails on command, to check that failed writes lose nothing more
/// than the time they were failing.
final class FlakySink: UsageSink {
    var failing = false
    var opened: [Int64: Date] = [:]
    var closed: [Int64: Duration] = [:]
    private var nextID: Int64 = 1
    struct Refused: Error {}

    func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws -> Int64 {
        if failing { throw Refused() }
        defer { nextID += 1 }
        opened[nextID] = start
        return nextID
    }

    func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        if failing { throw Refused() }
    }

    func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        if failing { throw Refused() }
        closed[id] = duration
    }
}

final class UsageAccountantFailureTests: XCTestCase {
    func testFailedWritesAreRetriedAndNeverLeaveAnIntervalOpen() {
        let time = ManualTime()
        let sink = FlakySink()
        var problems: [String] = []
        let accountant = UsageAccountant(
            sink: sink, minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 3, count: 32)))
        ) {
            problems.append($0)
        }
        let editor = AppIdentity(key: .windowClass("Editor"), displayName: "Editor")
        let game = AppIdentity(key: .windowClass("Game"), displayName: "Game")

        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(4))
        sink.failing = true
        accountant.focusChanged(to: game, at: time.now())  // the close and the open both fail
        XCTAssertEqual(sink.closed, [:])
        time.advance(.seconds(2))
        sink.failing = false
        accountant.checkpoint(at: time.now())  // retries the close, starts the game's interval here
        time.advance(.seconds(3))
        accountant.stop(at: time.now(), reason: .agentStopped)

        XCTAssertEqual(sink.closed[1], .seconds(4))
        XCTAssertEqual(sink.closed[2], .seconds(3))
        XCTAssertEqual(problems.count, 2, "\(problems)")
    }
}
