import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import Synchronization
import TestSupport
import XCTest

@testable import ScreenwardCore
@testable import UsageLedger

final class LedgerTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    let app = AppIdentity(key: .windowClass("Term"), displayName: "Term")
    let token = ApplicationToken(opaqueValue: "abc")

    func testMigrationsCreateTheSchemaAndAreRecorded() throws {
        let ledger = try Ledger(url: directory.appendingPathComponent("l.sqlite"))
        let applied = try ledger.database.read { try LedgerMigrations.migrator.appliedIdentifiers($0) }
        XCTAssertEqual(applied, Set(LedgerMigrations.migrator.migrations))
        let tables = try ledger.database.read {
            try String.fetchSet($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        XCTAssertTrue(Set(["application", "agentSession", "usageInterval", "agentStatus"]).isSubset(of: tables))
        // Opening again migrates nothing and keeps the data.
        _ = try ledger.beginAgentSession(pid: 1, display: ":1", at: Date())
        let reopened = try Ledger(url: directory.appendingPathComponent("l.sqlite"))
        XCTAssertNotNil(try reopened.unfinishedAgentSession())
    }

    func testAKilledAgentsOpenIntervalIsRecoveredAtItsLastCheckpoint() throws {
        let url = directory.appendingPathComponent("l.sqlite")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let ledger = try Ledger(url: url)
            let session = try ledger.beginAgentSession(pid: 10, display: ":1", at: start).sessionID
            let id = try ledger.openInterval(sessionID: session, app: app, token: token, startingAt: start)
            try ledger.checkpointInterval(id, duration: .seconds(41))
            // The process dies here: no close, no end of session.
        }
        let ledger = try Ledger(url: url)
        let report = try ledger.usage(
            since: start, until: start.addingTimeInterval(3600), liveSessionID: nil, now: Date())
        XCTAssertEqual(report.apps.first?.seconds ?? 0, 41, accuracy: 1e-9)

        let next = try ledger.beginAgentSession(pid: 11, display: ":1", at: start.addingTimeInterval(60))
        XCTAssertEqual(next.recoveredIntervals, 1)
        let reason = try ledger.database.read { try String.fetchOne($0, sql: "SELECT endReason FROM usageInterval") }
        XCTAssertEqual(reason, "recovered")
        // Recovery changes nothing in the totals, and the new live session does not extend the old interval.
        let after = try ledger.usage(
            since: start, until: start.addingTimeInterval(3600), liveSessionID: next.sessionID,
            now: start.addingTimeInterval(600))
        XCTAssertEqual(after.apps.first?.seconds ?? 0, 41, accuracy: 1e-9)
    }

    func testUsageIsClippedToTheRange() throws {
        let ledger = try Ledger()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: start).sessionID
        let id = try ledger.openInterval(sessionID: session, app: app, token: token, startingAt: start)
        try ledger.closeInterval(id, duration: .seconds(100), reason: .focusChange)
        let report = try ledger.usage(
            since: start.addingTimeInterval(30), until: start.addingTimeInterval(50), liveSessionID: nil, now: Date())
        XCTAssertEqual(report.totalSeconds, 20, accuracy: 1e-9)
        XCTAssertEqual(report.apps.map(\.id), ["wmclass:Term"])
        let outside = try ledger.usage(
            since: start.addingTimeInterval(100), until: start.addingTimeInterval(200), liveSessionID: nil, now: Date())
        XCTAssertEqual(outside.apps, [])
    }

    func testZeroLengthIntervalsLeaveNoRow() throws {
        let ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: Date()).sessionID
        let id = try ledger.openInterval(sessionID: session, app: app, token: token, startingAt: Date())
        try ledger.closeInterval(id, duration: .zero, reason: .focusChange)
        XCTAssertEqual(try ledger.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM usageInterval") }, 0)
    }

    func testADamagedLedgerFileIsAClearError() throws {
        let url = directory.appendingPathComponent("l.sqlite")
        try Data(repeating: 0x5a, count: 8192).write(to: url)
        XCTAssertThrowsError(try Ledger(url: url)) { error in
            XCTAssertTrue("\(error)".contains("move it aside"), "\(error)")
        }
        // Nothing was overwritten.
        XCTAssertEqual(try Data(contentsOf: url), Data(repeating: 0x5a, count: 8192))
    }

    func testStatusRoundTrips() throws {
        let ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 5, display: ":3", at: Date()).sessionID
        let status = AgentStatus(
            sessionID: session, pid: 5, display: ":3", focusedID: "a.desktop", focusedName: "A", isIdle: true,
            isLocked: false, idleThreshold: 120, updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try ledger.recordStatus(status)
        XCTAssertEqual(try ledger.agentStatus(), status)
        try ledger.endAgentSession(session, at: Date(), reason: "SIGTERM")
        XCTAssertNil(try ledger.agentStatus())
        XCTAssertNil(try ledger.unfinishedAgentSession())
    }
}

final class BackgroundLedgerSinkTests: XCTestCase {
    func testWritesKeepTheirOrderAndSurviveARefusingLedger() throws {
        let ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: Date()).sessionID
        let problems = Mutex<[String]>([])
        let sink = try BackgroundLedgerSink(ledger: ledger, sessionID: session) { message in
            problems.withLock { $0.append(message) }
        }
        let app = AppIdentity(key: .windowClass("Term"), displayName: "Term")
        let token = ApplicationToken(opaqueValue: "t")
        let start = Date(timeIntervalSince1970: 1_800_000_000)

        let first = sink.intervalOpened(app: app, token: token, at: start)
        sink.intervalClosed(first, duration: .seconds(2), reason: .focusChange)
        sink.flush()

        try ledger.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = ON") }
        let second = sink.intervalOpened(app: app, token: token, at: start.addingTimeInterval(10))
        XCTAssertEqual(second, first + 1, "ids are handed out without the database")
        sink.intervalCheckpointed(second, duration: .seconds(1))
        sink.intervalClosed(second, duration: .seconds(3), reason: .focusChange)
        sink.flush()
        XCTAssertEqual(sink.backlogCount, 3)

        try ledger.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = OFF") }
        sink.write { _ in }
        sink.flush()
        XCTAssertEqual(sink.backlogCount, 0)
        let report = try ledger.usage(
            since: start, until: start.addingTimeInterval(60), liveSessionID: nil, now: Date())
        XCTAssertEqual(report.totalSeconds, 5, accuracy: 1e-9)
        XCTAssertEqual(problems.withLock { $0.count }, 2, "one report when it starts failing, one when it recovers")
    }
}
