import Foundation
import GRDB
import Household
@_spi(Screenward) import ManagedSettings
import SessionHarness
import Synchronization
import TestSupport
import XCTest

@testable import ScreenwardCore

/// Two computers' syncs in this process, each with its own login to a real PostgreSQL
/// server the test starts and its own ledger of the same child (docs/household.md): what
/// the daemons' tests cannot do on one machine, a computer whose clock is minutes off, and
/// one away for a day.
final class HouseholdSyncTests: XCTestCase {
    private var users: LocalUsers!
    private var database: TemporaryPostgres!
    private var folder: URL!
    private var syncs: [HouseholdSync] = []
    private let game = AppIdentity(key: .windowClass("Game"), displayName: "Game")

    override func setUpWithError() throws {
        try DaemonFixture.requireRoot()
        if let missing = TemporaryPostgres.missingRequirement() { try cannotRun(missing) }
        users = LocalUsers()
        database = try TemporaryPostgres(users: users)
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("household-\(UUID().uuidString)")
    }

    override func tearDown() {
        for sync in syncs { sync.stop() }
        syncs = []
        database = nil
        users?.removeAll()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The desktop makes the household on the test's server; the laptop joins with a code.
    private func household() async throws -> (desktop: HouseholdMembership, laptop: HouseholdMembership) {
        let files = HouseholdFiles(stateDirectory: folder.appendingPathComponent("desktop"))
        _ = try await HouseholdSetup.create(
            HouseholdCreateRequest(
                serverOwner: database.owner, socketDirectory: database.socketDirectory, port: database.port,
                localAddress: "127.0.0.1", database: "screenward_household", computerName: "desktop"),
            computerName: "desktop", madeBy: "test", files: files)
        let desktop = try XCTUnwrap(try files.membership())
        let code = try await HouseholdSetup.invite(as: desktop.login, madeBy: "test")
        let laptop = try await HouseholdSetup.join(
            host: "127.0.0.1", port: database.port, database: "screenward_household", code: code.code,
            computerName: "laptop", files: HouseholdFiles(stateDirectory: folder.appendingPathComponent("laptop")))
        return (desktop, laptop)
    }

    /// A computer's sync of the child sam, whose usage there is in `ledger`, on `clock`.
    @discardableResult
    private func startSync(
        _ membership: HouseholdMembership, ledger: Ledger, clock: @escaping @Sendable () -> Date = Date.init,
        guardians: [String] = ["root"], answered: @escaping @Sendable (ElsewhereAnswer) -> Void = { _ in }
    ) -> HouseholdSync {
        let sync = HouseholdSync(
            membership: membership, delivered: { _, _ in }, adopt: { _, _, _ in },
            answered: { _, answer in answered(answer) }, extraTimeGiven: { _, _ in }, clock: clock,
            guardians: { guardians }, report: { _ in })
        sync.setChildren([HouseholdSync.Child(name: "sam", ledger: ledger)])
        sync.start()
        syncs.append(sync)
        return sync
    }

    /// Closed intervals of the game in `ledger`, starting at `starts`, each `seconds` long.
    private func play(in ledger: Ledger, at starts: [Date], seconds: Int) throws {
        let run = try ledger.beginAgentSession(pid: 1, display: ":test", at: starts.first ?? Date()).sessionID
        for start in starts {
            let id = try ledger.openInterval(
                sessionID: run, app: game, token: ApplicationToken(opaqueValue: "game"), startingAt: start)
            try ledger.closeInterval(id, duration: .seconds(seconds), reason: .focusChange)
        }
    }

    private func elsewhere(_ ledger: Ledger) throws -> [ElsewhereInterval] {
        try ledger.elsewhereIntervals(since: .distantPast)
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("no \(what) within \(timeout) s")
        throw CancellationError()
    }

    /// The laptop's clock is 7 minutes fast: its intervals are stamped so, and each computer
    /// still reads the other's in the minutes they were played, on its own clock.
    func testUsageOfAComputerWhoseClockIsMinutesOffCountsInTheRightMinutes() async throws {
        let (desktop, laptop) = try await household()
        let fast: TimeInterval = 7 * 60
        let playedOnLaptop = Date().addingTimeInterval(-120)
        let playedOnDesktop = Date().addingTimeInterval(-300)
        let laptopLedger = try Ledger()
        let desktopLedger = try Ledger()
        try play(in: laptopLedger, at: [playedOnLaptop.addingTimeInterval(fast)], seconds: 60)
        try play(in: desktopLedger, at: [playedOnDesktop], seconds: 30)
        startSync(laptop, ledger: laptopLedger) { Date().addingTimeInterval(fast) }
        startSync(desktop, ledger: desktopLedger)
        try waitUntil("each computer to read the other's") {
            try !elsewhere(desktopLedger).isEmpty && !elsewhere(laptopLedger).isEmpty
        }
        let onDesktop = try XCTUnwrap(try elsewhere(desktopLedger).first)
        XCTAssertEqual(onDesktop.startedAt, playedOnLaptop.timeIntervalSince1970, accuracy: 1, "on the desktop's clock")
        XCTAssertEqual(onDesktop.duration, 60)
        let onLaptop = try XCTUnwrap(try elsewhere(laptopLedger).first)
        XCTAssertEqual(
            onLaptop.startedAt, playedOnDesktop.timeIntervalSince1970 + fast, accuracy: 1, "on the laptop's clock")
        XCTAssertEqual(onLaptop.duration, 30)
    }

    /// The laptop is away for a day (its sync not running: no database) while the child plays
    /// on both; back, each counts the other's day exactly, and a resend of everything (a crash
    /// between the database's commit and the ledger's note of it) counts nothing twice.
    func testAComputerAwayForADayCatchesUpExactlyOnce() async throws {
        let (desktop, laptop) = try await household()
        let now = Date()
        let desktopLedger = try Ledger()
        let laptopLedger = try Ledger()
        try play(in: desktopLedger, at: (1...26).map { now.addingTimeInterval(Double(-$0) * 3600) }, seconds: 60)
        try play(in: laptopLedger, at: (1...24).map { now.addingTimeInterval(Double(-$0) * 3600 + 600) }, seconds: 45)
        startSync(desktop, ledger: desktopLedger)
        try waitUntil("the desktop's day in the database") { try desktopLedger.intervalsToUpload().isEmpty }

        // Back after a day.
        let back = startSync(laptop, ledger: laptopLedger)
        func totals() throws -> (onDesktop: Double, onLaptop: Double) {
            (
                try elsewhere(desktopLedger).reduce(0) { $0 + $1.duration },
                try elsewhere(laptopLedger).reduce(0) { $0 + $1.duration }
            )
        }
        try waitUntil("each computer to count the other's day") {
            let (onDesktop, onLaptop) = try totals()
            return onDesktop == 24 * 45 && onLaptop == 26 * 60
        }
        XCTAssertEqual(try elsewhere(desktopLedger).count, 24)
        XCTAssertEqual(try elsewhere(laptopLedger).count, 26)

        // The laptop forgets what it sent, and sends it all again: nothing counts twice.
        back.stop()
        try await laptopLedger.database.write { db in
            try db.execute(sql: "UPDATE householdUpload SET uploadedThrough = 0")
        }
        XCTAssertEqual(try laptopLedger.intervalsToUpload().count, 24)
        startSync(laptop, ledger: laptopLedger)
        try waitUntil("the resend to be done") { try laptopLedger.intervalsToUpload().isEmpty }
        try await Task.sleep(for: .seconds(2))
        let (onDesktop, onLaptop) = try totals()
        XCTAssertEqual(onDesktop, 24 * 45, "counted once")
        XCTAssertEqual(onLaptop, 26 * 60)
        XCTAssertEqual(
            try database.psql("SELECT count(*) FROM usage_interval", database: "screenward_household"), "50")
    }

    /// Both computers write at once (the child at both, an interval every few milliseconds on
    /// each while their syncs run): each counts exactly what the other wrote.
    func testTwoComputersWritingAtOnceCountEachOtherExactly() async throws {
        let (desktop, laptop) = try await household()
        let desktopLedger = try Ledger()
        let laptopLedger = try Ledger()
        let desktopSync = startSync(desktop, ledger: desktopLedger)
        let laptopSync = startSync(laptop, ledger: laptopLedger)
        let start = Date().addingTimeInterval(-3600)
        let token = ApplicationToken(opaqueValue: "game")
        let game = game
        func write(_ ledger: Ledger, _ sync: HouseholdSync, seconds: Int) -> Thread {
            let thread = Thread {
                let run = try? ledger.beginAgentSession(pid: 1, display: ":test", at: start).sessionID
                for index in 0..<300 {
                    guard let run,
                        let id = try? ledger.openInterval(
                            sessionID: run, app: game, token: token, startingAt: start.addingTimeInterval(Double(index))
                        )
                    else { return }
                    try? ledger.closeInterval(id, duration: .seconds(seconds), reason: .focusChange)
                    sync.usageRecorded()
                    usleep(5_000)
                }
            }
            thread.start()
            return thread
        }
        let writers = [write(desktopLedger, desktopSync, seconds: 2), write(laptopLedger, laptopSync, seconds: 3)]
        try waitUntil("each computer to count all the other wrote", timeout: 40) {
            try elsewhere(desktopLedger).reduce(0) { $0 + $1.duration } == 300 * 3
                && elsewhere(laptopLedger).reduce(0) { $0 + $1.duration } == 300 * 2
        }
        XCTAssertTrue(writers.allSatisfy(\.isFinished))
        XCTAssertEqual(try elsewhere(desktopLedger).count, 300)
        XCTAssertEqual(try elsewhere(laptopLedger).count, 300)
    }

    /// An answer given on the desktop is applied on the laptop only when the one who gave it is
    /// among the guardians the desktop told the household of.
    func testAnAnswerStandsOnlyFromAGuardianOfTheComputerItWasGivenOn() async throws {
        let (desktop, laptop) = try await household()
        let laptopLedger = try Ledger()
        let byAGuardian = try laptopLedger.askForTime(
            rule: "Games", application: "", applicationName: "Game", at: Date()
        ).0
        let byAStranger = try laptopLedger.askForTime(
            rule: "Chat", application: "", applicationName: "Chat", at: Date()
        ).0
        let answers = Mutex<[Int64: ElsewhereAnswer]>([:])
        startSync(
            laptop, ledger: laptopLedger, answered: { answer in answers.withLock { $0[answer.requestID] = answer } })
        let desktopSync = startSync(desktop, ledger: try Ledger(), guardians: ["root", "alice"])
        var listed: [ElsewhereRequest] = []
        try waitUntil("the laptop's requests on the desktop") {
            listed = desktopSync.requests(elsewhereOf: "sam")
            return listed.count == 2
        }
        for request in listed {
            let guardian = request.request.id == byAGuardian.id ? "alice" : "mallory"
            try await desktopSync.answer(request, approve: true, seconds: 600, by: guardian)
        }
        try waitUntil("both answers on the laptop") { answers.withLock { $0.count } == 2 }
        let given = answers.withLock { $0 }
        XCTAssertEqual(given[byAGuardian.id]?.byHouseholdGuardian, true)
        XCTAssertEqual(given[byAGuardian.id]?.actor, "alice on desktop")
        XCTAssertEqual(given[byAStranger.id]?.byHouseholdGuardian, false, "mallory is no guardian of the desktop's")
    }
}
