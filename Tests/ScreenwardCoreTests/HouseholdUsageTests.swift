import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore
@testable import UsageLedger

/// A child's usage on the household's other computers (docs/household.md), as this
/// computer's live usage, engine and ledger take it, without a database.
final class HouseholdUsageTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")

    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    func liveUsage() -> LiveUsage {
        LiveUsage(
            forwardingTo: RecordingSink(),
            categories: ApplicationCategories { $0.entryCategories.contains("Game") ? [gamesCategory] : [] })
    }

    func span(
        _ computer: String, _ token: ApplicationToken, _ start: TimeInterval, _ end: TimeInterval,
        categories: [String] = []
    ) -> LiveUsage.ElsewhereSpan {
        LiveUsage.ElsewhereSpan(
            computer: computer, facts: ApplicationFacts(token: token, desktopID: nil, entryCategories: categories),
            start: at(start), duration: end - start, webDomain: nil)
    }

    func testOtherComputersAddUpAndEachIsReplacedWholeNeverAddedTwice() throws {
        let live = liveUsage()
        let id = try live.intervalOpened(app: editor, token: editorApp, at: at(0))
        try live.intervalClosed(id, duration: .seconds(10), reason: .focusChange)
        let editing = DeviceActivityEvent(applications: [editorApp], threshold: DateComponents(minute: 30))

        // The laptop and the desktop at the same time as here: a child at two computers uses both.
        live.replaceElsewhere(with: [span("laptop", editorApp, 0, 10), span("desktop", editorApp, 5, 15)])
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(100)), 30)
        // One computer's intervals overlapping (two of its sessions) count once for it.
        live.replaceElsewhere(with: [span("laptop", editorApp, 0, 10), span("laptop", editorApp, 5, 15)])
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(100)), 25)
        // Read again, grown: replaced, not added.
        live.replaceElsewhere(with: [span("laptop", editorApp, 0, 20)])
        live.replaceElsewhere(with: [span("laptop", editorApp, 0, 20)])
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(100)), 30)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(12), to: at(18)), 6, "clipped to the window")

        // An application used only elsewhere belongs to its category here too.
        let chess = ApplicationToken(opaqueValue: "chess")
        live.replaceElsewhere(with: [span("laptop", chess, 50, 80, categories: ["Game"])])
        let games = DeviceActivityEvent(categories: [gamesCategory], threshold: DateComponents(minute: 30))
        XCTAssertEqual(live.focusedSeconds(of: games, from: at(0), to: at(100)), 30)
        live.replaceElsewhere(with: [])
        XCTAssertEqual(live.focusedSeconds(of: games, from: at(0), to: at(100)), 0)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(100)), 10, "this computer's own stays")
    }

    /// Usage read from the household lands in the past, faster than a second a second: the
    /// engine's measurements are forgotten, and the threshold it crossed is due at once.
    func testAThresholdCrossedElsewhereIsDueAtTheNextRun() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.startOfDay(for: t0)
        let live = liveUsage()
        let engine = try MonitorEngine(ledger: try Ledger(), usage: live)
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true)
        let now = day.addingTimeInterval(12 * 3600)
        try engine.register(
            "limit", owner: "org.example.rules", schedule: schedule,
            events: [
                // As the rules' limits count: since the interval's start, before the registration too.
                "used-up": DeviceActivityEvent(
                    applications: [editorApp], threshold: DateComponents(minute: 10), includesPastActivity: true)
            ],
            at: now)
        let started = try engine.takeDue(now: now, calendar: calendar, isPresent: true)
        XCTAssertEqual(started.map(\.kind), [.intervalDidStart])
        XCTAssertEqual(try engine.takeDue(now: now.addingTimeInterval(1), calendar: calendar, isPresent: true), [])

        // Eleven minutes on the laptop this morning.
        live.replaceElsewhere(
            with: [
                LiveUsage.ElsewhereSpan(
                    computer: "laptop", facts: ApplicationFacts(token: editorApp, identity: editor),
                    start: day.addingTimeInterval(9 * 3600), duration: 660, webDomain: nil)
            ])
        engine.usageChangedElsewhere()
        let due = try engine.takeDue(now: now.addingTimeInterval(2), calendar: calendar, isPresent: true)
        XCTAssertEqual(due.map(\.kind), [.eventDidReachThreshold])
        XCTAssertEqual(due.first?.event, "used-up")
    }

    // MARK: The ledger's side

    func testUploadsMovePastClosedIntervalsOnlyAndOtherComputersReplaceThemselves() throws {
        let ledger = try Ledger()
        let run = try ledger.beginAgentSession(pid: 1, display: ":1", at: t0).sessionID
        for (index, open) in [false, false, true, false].enumerated() {
            let id = Int64(index + 1)
            try ledger.openInterval(
                id: id, sessionID: run, app: editor, token: editorApp, site: nil, startingAt: at(Double(index) * 10))
            if !open { try ledger.closeInterval(id, duration: .seconds(5), reason: .focusChange) }
        }
        let ledgerID = try ledger.householdLedgerID()
        XCTAssertEqual(try ledger.householdLedgerID(), ledgerID, "made once")
        let batch = try ledger.intervalsToUpload()
        XCTAssertEqual(batch.map(\.id), [1, 2, 3, 4])
        XCTAssertEqual(batch.first?.publicID, "org.example.Editor.desktop")
        try ledger.recordUploaded(batch)
        XCTAssertEqual(try ledger.intervalsToUpload().map(\.id), [3, 4], "from the open one on, sent until it closes")
        try ledger.closeInterval(3, duration: .seconds(7), reason: .focusChange)
        try ledger.recordUploaded(try ledger.intervalsToUpload())
        XCTAssertEqual(try ledger.intervalsToUpload(), [])

        let first = ElsewhereInterval(
            computer: "screenward_computer_a", computerName: "laptop", ledger: "l", remoteID: 9,
            publicID: "wmclass:Game", displayName: "Game", categories: "", startedAt: t0.timeIntervalSince1970,
            duration: 4, isOpen: true, webDomain: nil)
        try ledger.storeElsewhere([first], cursors: ["screenward_computer_a": 3])
        var grown = first
        grown.duration = 9
        grown.isOpen = false
        try ledger.storeElsewhere([grown], cursors: ["screenward_computer_a": 2])
        XCTAssertEqual(try ledger.elsewhereIntervals(since: at(-60)), [grown])
        XCTAssertEqual(try ledger.elsewhereCursors(), ["screenward_computer_a": 3], "a cursor never goes back")
        XCTAssertEqual(try ledger.elsewhereIntervals(since: at(60)), [], "ended before")
    }

    /// A limit's extra time given here is shared; a downtime's (one application, by this
    /// computer's token), a pause and what came from elsewhere are not. What comes from
    /// elsewhere is kept once, as one of this ledger's grants.
    func testExtraTimeOnALimitIsSharedOnceAndKeptOnce() throws {
        let ledger = try Ledger()
        let day = DateInterval(start: at(0), duration: 86_400)
        let limit = try ledger.insertRuleGrant(
            rule: "Games", application: nil, seconds: 900, by: "alice", at: at(10), interval: day)
        try ledger.insertRuleGrant(
            rule: "Bedtime", application: "token", seconds: 600, by: "alice", at: at(20), interval: day)
        try ledger.insertRuleGrant(
            rule: RulesCore.pauseRule, application: nil, seconds: nil, by: "alice", at: at(30),
            interval: DateInterval(start: at(30), duration: 600))
        try ledger.insertRuleGrant(
            rule: "Games", application: nil, seconds: 60, by: "alice", at: at(-86_000),
            interval: DateInterval(start: at(-86_400), duration: 86_400))
        XCTAssertEqual(try ledger.extraTimeToShare(endingAfter: at(40)).map(\.localID), [limit])

        let fromLaptop = SharedExtraTime(
            origin: "screenward_computer_a/ledger/7", computer: "laptop", localID: 7, rule: "Games", seconds: nil,
            grantedAt: at(50), grantedBy: "bob", day: day)
        XCTAssertEqual(try ledger.storeExtraTimeGivenElsewhere([fromLaptop]), [fromLaptop])
        XCTAssertEqual(try ledger.storeExtraTimeGivenElsewhere([fromLaptop]), [], "kept once")
        let games = try ledger.ruleGrants(endingAfter: at(60)).filter { $0.rule == "Games" }
        XCTAssertEqual(games.map(\.seconds), [900, nil], "it counts as one of this ledger's")
        XCTAssertEqual(try ledger.extraTimeToShare(endingAfter: at(60)).map(\.localID), [limit], "never sent back")
    }

    /// `screenward usage` and the report show each other computer by name, clipped to the range.
    func testUsageElsewhereIsSummedPerComputerAndApplicationWithinTheRange() throws {
        let ledger = try Ledger()
        func interval(
            _ computer: String, _ id: Int64, _ app: String, _ start: Double, _ duration: Double,
            site: String? = nil
        ) -> ElsewhereInterval {
            ElsewhereInterval(
                computer: "role_\(computer)", computerName: computer, ledger: "l", remoteID: id,
                publicID: "wmclass:\(app)",
                displayName: app, categories: "", startedAt: t0.timeIntervalSince1970 + start, duration: duration,
                isOpen: false, webDomain: site)
        }
        try ledger.storeElsewhere(
            [
                interval("laptop", 1, "Game", -30, 60), interval("laptop", 2, "Game", 100, 20),
                interval("laptop", 3, "Firefox", 200, 50, site: "example.org"), interval("den", 1, "Game", 500, 1_000),
            ], cursors: [:])
        let computers = try ledger.usageElsewhere(since: at(0), until: at(1_000))
        XCTAssertEqual(computers.map(\.name), ["den", "laptop"])
        XCTAssertEqual(computers[0].apps.map(\.seconds), [500], "clipped at the range's end")
        XCTAssertEqual(computers[1].apps.map(\.id), ["wmclass:Firefox", "wmclass:Game"])
        XCTAssertEqual(computers[1].apps.map(\.seconds), [50, 50], "clipped at its start, and summed")
        XCTAssertEqual(computers[1].apps[0].websites.map(\.domain), ["example.org"])
        XCTAssertEqual(computers[1].totalSeconds, 100)
        XCTAssertEqual(try ledger.usageElsewhere(since: at(2_000), until: at(3_000)), [])
    }

    func testAPublicIDNamesTheSameIdentityOnEveryComputer() {
        XCTAssertEqual(AppIdentity(publicID: "wmclass:Game")?.key, .windowClass("Game"))
        XCTAssertEqual(AppIdentity(publicID: "exe:/usr/games/x")?.key, .executable("/usr/games/x"))
        XCTAssertEqual(
            AppIdentity(publicID: "org.example.Chess.desktop", categories: "Game;Board")?.categories, ["Game", "Board"])
        XCTAssertNil(AppIdentity(publicID: "wmclass:"))
        XCTAssertNil(AppIdentity(publicID: "exe:relative"))
        XCTAssertNil(AppIdentity(publicID: ""))
    }
}
