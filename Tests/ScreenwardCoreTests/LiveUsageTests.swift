import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import TestSupport
import XCTest

@testable import ScreenwardCore

/// A sink that records every call, hands out ids in order, and refuses on demand.
final class RecordingSink: UsageSink {
    enum Call: Equatable {
        case opened(AppIdentity, ApplicationToken, Date)
        case checkpointed(Int64, Duration)
        case closed(Int64, Duration, IntervalEndReason)
    }

    struct Refused: Error {}

    private(set) var calls: [Call] = []
    var refuses = false
    private var nextID: Int64 = 100

    func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws -> Int64 {
        calls.append(.opened(app, token, start))
        if refuses { throw Refused() }
        defer { nextID += 1 }
        return nextID
    }

    func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        calls.append(.checkpointed(id, duration))
        if refuses { throw Refused() }
    }

    func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        calls.append(.closed(id, duration, reason))
        if refuses { throw Refused() }
    }
}

final class LiveUsageTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
    let chess = AppIdentity(key: .desktopEntry("org.example.Chess.desktop"), displayName: "Chess", categories: ["Game"])
    let cards = AppIdentity(key: .windowClass("Cards"), displayName: "Cards")
    let chessApp = ApplicationToken(opaqueValue: "chess")
    let cardsApp = ApplicationToken(opaqueValue: "cards")

    /// Chess and Cards are games; nothing else has a category.
    func liveUsage(sink: RecordingSink = RecordingSink(), horizon: TimeInterval = LiveUsage.defaultHorizon) -> LiveUsage
    {
        let games: Set<String> = ["chess", "cards"]
        return LiveUsage(
            forwardingTo: sink,
            categories: ApplicationCategories { games.contains($0.token.opaqueValue) ? [gamesCategory] : [] },
            horizon: horizon)
    }

    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    /// Focus on `app` over `[start, end)` seconds after t0, as the accountant reports it.
    func focus(
        _ live: LiveUsage, _ identity: AppIdentity, _ token: ApplicationToken, _ start: TimeInterval,
        _ end: TimeInterval
    ) throws {
        let id = try live.intervalOpened(app: identity, token: token, at: at(start))
        try live.intervalClosed(id, duration: .seconds(end - start), reason: .focusChange)
    }

    func event(apps: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [], minutes: Int = 30)
        -> DeviceActivityEvent
    {
        DeviceActivityEvent(applications: apps, categories: categories, threshold: DateComponents(minute: minutes))
    }

    // MARK: Sums

    func testSumsClipTheWindowAcrossIntervalBoundaries() throws {
        let live = liveUsage()
        try focus(live, editor, editorApp, 0, 10)
        try focus(live, chess, chessApp, 10, 20)
        try focus(live, editor, editorApp, 20, 30)
        try focus(live, editor, editorApp, 40, 50)
        let editing = event(apps: [editorApp])
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(5), to: at(45)), 5 + 10 + 5)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(2), to: at(8)), 6, "inside one interval")
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(31), to: at(39)), 0, "in a gap")
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(10), to: at(20)), 0, "[from, to) meets the edges only")
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(-100), to: at(100)), 30)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(45), to: at(45)), 0, "an empty window")
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [editorApp, chessApp]), from: at(0), to: at(100)), 40)
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [socialApp]), from: at(0), to: at(100)), 0, "never seen")
        XCTAssertEqual(live.closedIntervalCount, 4)
    }

    /// The prefix sums against a plain walk, over random intervals and windows.
    func testSumsAgreeWithAWalkOverTheIntervals() throws {
        var random = SplitMix64(state: 7)
        let live = liveUsage()
        var intervals: [(start: Double, end: Double, app: ApplicationToken)] = []
        var time = 0.0
        let apps = [(editor, editorApp), (chess, chessApp), (cards, cardsApp)]
        for _ in 0..<500 {
            time += Double(random.next() % 50) / 4
            let length = Double(1 + random.next() % 400) / 8
            let (identity, token) = apps[Int(random.next() % 3)]
            try focus(live, identity, token, time, time + length)
            intervals.append((time, time + length, token))
            time += length
        }
        let events = [
            event(apps: [editorApp]), event(categories: [gamesCategory]),
            event(apps: [editorApp, chessApp], categories: [gamesCategory]),
        ]
        for _ in 0..<300 {
            let from = Double(random.next() % UInt64(time + 100)) - 50
            let to = from + Double(random.next() % 2000)
            for event in events {
                let walked = intervals.filter {
                    event.applications.contains($0.app) || ($0.app != editorApp && !event.categories.isEmpty)
                }
                .reduce(0.0) { $0 + max(0, min($1.end, to) - max($1.start, from)) }
                XCTAssertEqual(live.focusedSeconds(of: event, from: at(from), to: at(to)), walked, accuracy: 1e-6)
                XCTAssertEqual(live.usage(of: event).focusedSeconds(from: at(from), to: at(to)), walked, accuracy: 1e-6)
            }
        }
    }

    func testTheOpenIntervalAccruesUpToTheQuestionsEnd() throws {
        let live = liveUsage()
        try focus(live, editor, editorApp, 0, 10)
        let id = try live.intervalOpened(app: editor, token: editorApp, at: at(20))
        let editing = event(apps: [editorApp])
        XCTAssertEqual(live.focusedApplication, editorApp)
        XCTAssertEqual(live.accrualRate(of: editing, at: at(25)), 1)
        XCTAssertEqual(live.accrualRate(of: event(apps: [chessApp]), at: at(25)), 0)
        XCTAssertEqual(live.accrualRate(of: editing, at: at(19)), 0, "not before it opened")
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(25)), 15)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(22), to: at(27)), 5)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(15)), 10, "counted only up to `to`")
        try live.intervalCheckpointed(id, duration: .seconds(1))
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(25)), 15, "a checkpoint changes nothing")

        // Closed at the last input (idle), before the last question: the monotonic duration wins.
        try live.intervalClosed(id, duration: .seconds(3), reason: .idle)
        XCTAssertNil(live.focusedApplication)
        XCTAssertEqual(live.accrualRate(of: editing, at: at(30)), 0)
        XCTAssertEqual(live.focusedSeconds(of: editing, from: at(0), to: at(100)), 13)
    }

    /// An X event is placed in the middle of the millisecond the server stamped, so the
    /// focus it reports can start a moment after it is read: its usage grows from then.
    func testAFocusPlacedAMomentAheadAccruesFromItsStart() throws {
        let live = liveUsage()
        _ = try live.intervalOpened(app: editor, token: editorApp, at: at(20.0004))
        let editing = live.usage(of: event(apps: [editorApp]))
        XCTAssertEqual(editing.accrualRate(at: at(20)), 1)
        XCTAssertEqual(editing.accruesFrom(at(20)), at(20.0004))
        XCTAssertEqual(editing.accruesFrom(at(21)), at(21), "already accruing")
        XCTAssertEqual(editing.focusedSeconds(from: at(0), to: at(20)), 0)
        XCTAssertEqual(live.accrualRate(of: event(apps: [editorApp]), at: at(19.9)), 0, "not a moment: later")
    }

    func testCategoriesMakeMembersAndNoApplicationCountsTwice() throws {
        let live = liveUsage()
        try focus(live, chess, chessApp, 0, 10)
        try focus(live, cards, cardsApp, 10, 30)
        try focus(live, editor, editorApp, 30, 70)
        XCTAssertEqual(live.focusedSeconds(of: event(categories: [gamesCategory]), from: at(0), to: at(100)), 30)
        XCTAssertEqual(
            live.focusedSeconds(
                of: event(apps: [chessApp, editorApp], categories: [gamesCategory]), from: at(0), to: at(100)), 70,
            "chess is listed and in a listed category: once")
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [chessApp]), from: at(0), to: at(100)), 10)

        _ = try live.intervalOpened(app: cards, token: cardsApp, at: at(100))
        XCTAssertEqual(live.accrualRate(of: event(categories: [gamesCategory]), at: at(101)), 1)
        XCTAssertEqual(live.accrualRate(of: event(apps: [chessApp]), at: at(101)), 0)
        XCTAssertEqual(live.focusedSeconds(of: event(categories: [gamesCategory]), from: at(0), to: at(110)), 40)

        // Web domains never accrue: nothing knows which site has the focus.
        let site = DeviceActivityEvent(
            webDomains: [WebDomainToken(opaqueValue: "site")], threshold: DateComponents(minute: 1))
        XCTAssertEqual(live.accrualRate(of: site, at: at(101)), 0)
        XCTAssertEqual(live.focusedSeconds(of: site, from: at(0), to: at(110)), 0)
    }

    func testAnApplicationWhoseEntryChangesTakesItsNewCategory() throws {
        let live = LiveUsage(
            forwardingTo: RecordingSink(),
            categories: ApplicationCategories { $0.entryCategories.contains("Game") ? [gamesCategory] : [] })
        try focus(live, editor, editorApp, 0, 10)
        XCTAssertEqual(live.focusedSeconds(of: event(categories: [gamesCategory]), from: at(0), to: at(100)), 0)
        var renamed = editor
        renamed.categories = ["Game"]
        try focus(live, renamed, editorApp, 20, 25)
        XCTAssertEqual(live.focusedSeconds(of: event(categories: [gamesCategory]), from: at(0), to: at(100)), 15)
    }

    /// The engine's handle works out an event's members once; an application seen
    /// later, or one whose categories change, is taken in.
    func testAnEventsHandleFollowsApplicationsThatAppearOrChange() throws {
        let live = LiveUsage(
            forwardingTo: RecordingSink(),
            categories: ApplicationCategories { $0.entryCategories.contains("Game") ? [gamesCategory] : [] })
        let games = live.usage(of: event(categories: [gamesCategory]))
        let listed = live.usage(of: event(apps: [cardsApp]))
        XCTAssertEqual(games.focusedSeconds(from: at(0), to: at(100)), 0)
        try focus(live, chess, chessApp, 0, 10)
        XCTAssertEqual(games.focusedSeconds(from: at(0), to: at(100)), 10)
        _ = try live.intervalOpened(app: cards, token: cardsApp, at: at(20))
        XCTAssertEqual(listed.accrualRate(at: at(25)), 1, "an application first seen after the handle was made")
        XCTAssertEqual(games.accrualRate(at: at(25)), 0)
        XCTAssertEqual(listed.focusedSeconds(from: at(0), to: at(25)), 5)
        var cardGame = cards
        cardGame.categories = ["Game"]
        _ = try live.intervalOpened(app: cardGame, token: cardsApp, at: at(30))
        XCTAssertEqual(games.accrualRate(at: at(35)), 1, "its entry now says Game")
        XCTAssertEqual(
            games.focusedSeconds(from: at(0), to: at(35)), 10 + 10 + 5, "its whole history counts in its category now")
    }

    // MARK: The tee

    func testEveryCallIsPassedOnUnchanged() throws {
        let sink = RecordingSink()
        let live = liveUsage(sink: sink)
        let first = try live.intervalOpened(app: editor, token: editorApp, at: at(0))
        try live.intervalCheckpointed(first, duration: .milliseconds(1500))
        try live.intervalClosed(first, duration: .seconds(2), reason: .focusChange)
        let second = try live.intervalOpened(app: chess, token: chessApp, at: at(2))
        try live.intervalClosed(second, duration: .seconds(4), reason: .locked)
        XCTAssertEqual([first, second], [100, 101], "the inner sink's ids")
        XCTAssertEqual(
            sink.calls,
            [
                .opened(editor, editorApp, at(0)), .checkpointed(100, .milliseconds(1500)),
                .closed(100, .seconds(2), .focusChange),
                .opened(chess, chessApp, at(2)), .closed(101, .seconds(4), .locked),
            ])
    }

    func testARefusedWriteIsReportedAndTheFocusStaysTrue() throws {
        let sink = RecordingSink()
        let live = liveUsage(sink: sink)
        let id = try live.intervalOpened(app: editor, token: editorApp, at: at(0))
        sink.refuses = true
        // The close is refused by the ledger, but the focus did end.
        XCTAssertThrowsError(try live.intervalClosed(id, duration: .seconds(5), reason: .focusChange))
        XCTAssertNil(live.focusedApplication)
        // An open the ledger refuses never happened, as far as the accountant knows.
        XCTAssertThrowsError(try live.intervalOpened(app: chess, token: chessApp, at: at(5)))
        XCTAssertNil(live.focusedApplication)
        // The accountant's retry of the close is passed on and changes nothing here.
        sink.refuses = false
        try live.intervalClosed(id, duration: .seconds(5), reason: .focusChange)
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [editorApp]), from: at(0), to: at(100)), 5)
        XCTAssertEqual(sink.calls.count, 4)
    }

    func testTheAccountantsOwnCallsReachTheLedgerThroughIt() throws {
        let ledger = try Ledger()
        let time = ManualTime(wall: t0)
        let session = try ledger.beginAgentSession(pid: 1, display: ":9", at: t0).sessionID
        let teed = LiveUsage(forwardingTo: LedgerSink(ledger: ledger, sessionID: session), categories: .none)
        let accountant = UsageAccountant(
            sink: teed, minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32))))
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(12))
        accountant.focusChanged(to: cards, at: time.now())
        time.advance(.seconds(3))
        accountant.stop(at: time.now(), reason: .agentStopped)
        let report = try ledger.usage(since: t0, until: at(60), liveSessionID: nil, now: at(60))
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: report.apps.map { ($0.id, $0.seconds) }),
            [
                "org.example.Editor.desktop": 12, "wmclass:Cards": 3,
            ])
        XCTAssertEqual(teed.closedIntervalCount, 2)
    }

    // MARK: History

    func testSeededFromTheLedgerWithTheShippedCategoryTable() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("ledger.sqlite")
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 3, count: 32)))
        let chessToken = minter.applicationToken(for: chess)
        let cardsToken = minter.applicationToken(for: cards)
        let now = at(10 * 86_400)
        do {
            let ledger = try Ledger(url: url)
            let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: t0).sessionID
            func record(_ identity: AppIdentity, _ token: ApplicationToken, _ start: Date, _ seconds: Int64) throws {
                let id = try ledger.openInterval(sessionID: session, app: identity, token: token, startingAt: start)
                try ledger.closeInterval(id, duration: .seconds(seconds), reason: .focusChange)
            }
            try record(chess, chessToken, at(86_400), 600)  // nine days before now: beyond the horizon
            try record(chess, chessToken, now.addingTimeInterval(-7 * 86_400), 1200)
            try record(cards, cardsToken, now.addingTimeInterval(-3600), 300)
            try record(editor, minter.applicationToken(for: editor), now.addingTimeInterval(-1800), 900)
            // A dead agent's open interval: it counts up to its checkpoint.
            let open = try ledger.openInterval(
                sessionID: session, app: chess, token: chessToken, startingAt: now.addingTimeInterval(-600))
            try ledger.checkpointInterval(open, duration: .seconds(60))
        }

        let ledger = try Ledger(url: url)
        let recent = try ledger.recentUsage(since: now.addingTimeInterval(-LiveUsage.defaultHorizon))
        XCTAssertEqual(recent.intervals.map(\.duration), [1200, 300, 900, 60])
        XCTAssertEqual(recent.intervals.map(\.isOpen), [false, false, false, true])
        XCTAssertEqual(
            Set(recent.applications),
            [
                ApplicationFacts(token: chessToken, desktopID: "org.example.Chess.desktop", entryCategories: ["Game"]),
                ApplicationFacts(token: cardsToken, desktopID: nil, entryCategories: []),
                ApplicationFacts(
                    token: minter.applicationToken(for: editor), desktopID: "org.example.Editor.desktop",
                    entryCategories: []),
            ])

        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data/categories.json")
        let table = try CategoryTable.load(from: shipped)
        let live = LiveUsage(
            forwardingTo: RecordingSink(), categories: ApplicationCategories(table: table, minter: minter))
        try live.seed(from: ledger, now: now)
        XCTAssertEqual(live.closedIntervalCount, 4)
        let games = event(categories: [minter.categoryToken(forCategory: "Game")])
        XCTAssertEqual(
            live.focusedSeconds(of: games, from: .distantPast, to: now), 1200 + 60, "the old interval is not there")
        let other = event(categories: [minter.categoryToken(forCategory: "Other")])
        XCTAssertEqual(
            live.focusedSeconds(of: other, from: .distantPast, to: now), 300 + 900, "no entry, or no category: Other")
    }

    func testIntervalsBeyondTheHorizonAreDropped() throws {
        let day: TimeInterval = 86_400
        let live = liveUsage(horizon: day)
        try focus(live, editor, editorApp, 0, 100)
        try focus(live, editor, editorApp, 0.5 * day, 0.5 * day + 100)
        try focus(live, chess, chessApp, 0.9 * day, 0.9 * day + 100)
        XCTAssertEqual(live.closedIntervalCount, 3)
        // Opening an interval a day and a half later drops what ended before half a day in.
        _ = try live.intervalOpened(app: editor, token: editorApp, at: at(1.5 * day + 200))
        XCTAssertEqual(live.closedIntervalCount, 1)
        XCTAssertEqual(live.focusedSeconds(of: event(categories: [gamesCategory]), from: at(0), to: at(2 * day)), 100)
        live.forget(before: at(1.5 * day))
        XCTAssertEqual(live.closedIntervalCount, 0)
        XCTAssertEqual(
            live.focusedSeconds(of: event(apps: [editorApp]), from: at(0), to: at(1.5 * day + 300)), 100,
            "the open one stays")
    }

    func testAWallClockSetBackNeverCountsTheSameTimeTwice() throws {
        let live = liveUsage()
        try focus(live, editor, editorApp, 100, 200)
        try focus(live, editor, editorApp, 150, 250)  // the wall clock went back 50 s between them
        try focus(live, editor, editorApp, 300, 310)
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [editorApp]), from: at(0), to: at(1000)), 160)
        XCTAssertEqual(live.focusedSeconds(of: event(apps: [editorApp]), from: at(180), to: at(305)), 75)
    }

    // MARK: With the engine

    /// The accountant feeds LiveUsage, the engine asks it: the threshold is reached
    /// at the instant the engine predicted, which is when the usage adds up.
    func testTheEngineOverLiveUsageFiresAtThePredictedInstant() throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let time = ManualTime(wall: t0)  // 08:00 UTC
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 9, count: 32)))
        let gameCategory = minter.categoryToken(forCategory: "Game")
        let live = LiveUsage(
            forwardingTo: RecordingSink(),
            categories: ApplicationCategories { $0.entryCategories.contains("Game") ? [gameCategory] : [] })
        let accountant = UsageAccountant(sink: live, minter: minter)
        let engine = try MonitorEngine(ledger: Ledger(), usage: live)
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 8), intervalEnd: DateComponents(hour: 12), repeats: true)
        try engine.register(
            "morning", owner: "org.example.worklog", schedule: schedule,
            events: [
                "games": DeviceActivityEvent(
                    applications: [minter.applicationToken(for: cards)], categories: [gameCategory],
                    threshold: DateComponents(minute: 20, second: 30))
            ],
            at: time.now().wall)
        var delivered: [MonitorCallback] = []
        func step(_ app: AppIdentity?, dwell: TimeInterval) throws {
            accountant.focusChanged(to: app, at: time.now())
            delivered += try engine.takeDue(now: time.now().wall, calendar: utc, isPresent: true)
            time.advance(.seconds(dwell))
        }
        // 5 + 7.25 + 4 = 16.25 minutes of games, then chess until the threshold.
        try step(chess, dwell: 300)
        try step(editor, dwell: 600)
        try step(cards, dwell: 435)
        try step(editor, dwell: 60)
        try step(chess, dwell: 240)
        try step(editor, dwell: 100)
        accountant.focusChanged(to: chess, at: time.now())
        let chessAgain = time.now().wall
        delivered += try engine.takeDue(now: chessAgain, calendar: utc, isPresent: true)
        XCTAssertEqual(delivered.map(\.kind), [.intervalDidStart])

        let expected = chessAgain.addingTimeInterval(20.5 * 60 - 16.25 * 60)
        let deadline = try XCTUnwrap(engine.nextDeadline(now: chessAgain, calendar: utc, isPresent: true))
        XCTAssertEqual(deadline.timeIntervalSince(expected), 0, accuracy: 1e-6)
        time.advance(.seconds(deadline.timeIntervalSince(chessAgain)))
        accountant.checkpoint(at: time.now())
        let reached = try engine.takeDue(now: deadline, calendar: utc, isPresent: true)
        XCTAssertEqual(reached.map(\.kind), [.eventDidReachThreshold])
        XCTAssertEqual(reached.first?.scheduledAt, deadline, "due exactly when predicted")
        XCTAssertEqual(reached.first?.isLate, false)
        XCTAssertEqual(reached.first?.interval, DateInterval(start: t0, end: t0.addingTimeInterval(4 * 3600)))
    }

    /// A focus change read 0.4 ms before the instant it is placed at (the middle of the
    /// server's millisecond): the engine predicts from that instant, not from never.
    func testTheEnginePredictsFromAFocusPlacedAMomentAhead() throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let time = ManualTime(wall: t0)
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 9, count: 32)))
        let live = LiveUsage(forwardingTo: RecordingSink(), categories: ApplicationCategories { _ in [] })
        let accountant = UsageAccountant(sink: live, minter: minter)
        let engine = try MonitorEngine(ledger: Ledger(), usage: live)
        try engine.register(
            "morning", owner: "org.example.worklog",
            schedule: DeviceActivitySchedule(
                intervalStart: DateComponents(hour: 8), intervalEnd: DateComponents(hour: 12), repeats: true),
            events: [
                "cards": DeviceActivityEvent(
                    applications: [minter.applicationToken(for: cards)], threshold: DateComponents(second: 30))
            ],
            at: time.now().wall)
        _ = try engine.takeDue(now: time.now().wall, calendar: utc, isPresent: true)
        time.advance(.seconds(10))
        let read = time.now().wall
        accountant.focusChanged(to: cards, at: time.now().earlier(by: .microseconds(-400)))
        let deadline = try XCTUnwrap(engine.nextDeadline(now: read, calendar: utc, isPresent: true))
        XCTAssertEqual(deadline.timeIntervalSince(read), 30.0004, accuracy: 1e-6)
    }
}
