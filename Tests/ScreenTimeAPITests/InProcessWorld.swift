@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import Synchronization
import XCTest

/// What happened, in order, from any thread.
final class Recorder<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    func append(_ item: Item) { items.withLock { $0.append(item) } }
    func append(contentsOf batch: [Item]) { items.withLock { $0.append(contentsOf: batch) } }
    var all: [Item] { items.withLock { $0 } }
    func removeAll() { items.withLock { $0.removeAll() } }
}

/// A wall clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// Usage the test scripts: which application had the focus when (device tokens).
final class ScriptedFocus: EventUsageSource, Sendable {
    private let segments = Mutex<
        [(app: ApplicationToken, categories: Set<ActivityCategoryToken>, start: Date, end: Date?)]
    >([])

    func focus(_ app: ApplicationToken, categories: Set<ActivityCategoryToken> = [], at start: Date) {
        segments.withLock { $0.append((app, categories, start, nil)) }
    }

    func unfocus(at end: Date) {
        segments.withLock { list in
            if let last = list.indices.last, list[last].end == nil { list[last].end = end }
        }
    }

    private func belongs(
        _ segment: (app: ApplicationToken, categories: Set<ActivityCategoryToken>, start: Date, end: Date?),
        _ event: DeviceActivityEvent
    ) -> Bool {
        event.applications.contains(segment.app) || !event.categories.isDisjoint(with: segment.categories)
    }

    func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval {
        segments.withLock { list in
            list.filter { belongs($0, event) }.reduce(0) { sum, segment in
                let start = max(segment.start, from)
                let end = min(segment.end ?? to, to)
                return sum + max(0, end.timeIntervalSince(start))
            }
        }
    }

    func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double {
        segments.withLock { list in
            guard let last = list.last, last.end == nil, last.start <= now, belongs(last, event) else { return 0 }
            return 1
        }
    }
}

/// The real state owner in this process, reached through the real API types over an
/// in-process transport, with a clock the test drives.
final class InProcessWorld {
    let clock: TestClock
    let ledger: Ledger
    let directory: ItemDirectory
    let focus = ScriptedFocus()
    let host: ServiceHost
    let service: ScreenTimeService
    let problems = Recorder<String>()
    let callbacks = Recorder<MonitorCallback>()
    static let zone = TimeZone(identifier: "America/New_York")!

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// - Parameter browsers: the state owner takes browsers' reports, as the agent's does.
    init(test: XCTestCase, start: String = "2026-11-23 09:00", ledgerURL: URL? = nil, browsers: WebAddresses? = nil)
        throws
    {
        clock = TestClock(Self.date(start))
        let url = try ledgerURL ?? test.temporaryFile("ledger.sqlite")
        ledger = try Ledger(url: url)
        let tableURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/categories.json")
        let catalog = ApplicationCatalog(entries: [
            DesktopEntry(
                id: "chat.desktop", name: "Chat", categories: ["Network", "InstantMessaging"],
                path: URL(fileURLWithPath: "/x/chat.desktop")),
            DesktopEntry(
                id: "chess.desktop", name: "Chess", categories: ["Game", "BoardGame"],
                path: URL(fileURLWithPath: "/x/chess.desktop")),
            DesktopEntry(
                id: "editor.desktop", name: "Editor", categories: ["Development"],
                path: URL(fileURLWithPath: "/x/editor.desktop")),
        ])
        directory = ItemDirectory(
            minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32))), catalog: catalog,
            categories: try CategoryTable.load(from: tableURL))
        let (clock, problems, callbacks) = (clock, problems, callbacks)
        let service = try ScreenTimeService(
            ledger: ledger, usage: focus, directory: directory, now: { clock.now },
            calendar: { InProcessWorld.calendar })
        service.report = { message in problems.append(message) }
        service.browserTabs = browsers.map(BrowserTabs.init(addresses:))
        service.onCallbacks = { batch in callbacks.append(contentsOf: batch) }
        host = ServiceHost(service)
        self.service = service
        ScreenwardApp.problemHandler = { message in problems.append(message) }
    }

    static func date(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    /// A client of this world, made the process's current one.
    @discardableResult
    func use(_ bundleIdentifier: String) -> ServiceClient {
        let client = ServiceClient(transport: DirectTransport(handler: host), bundleIdentifier: bundleIdentifier)
        ScreenwardApp.client = client
        return client
    }

    /// Authorizes the current client, as the app's launch code does.
    func authorize() throws {
        let status = try ScreenwardApp.client.call(AuthorizationMethods.request, .individual)
        XCTAssertEqual(status, .approved)
    }

    /// What the activity picker would hand the current client.
    func pick(applications: [String] = [], categories: [String] = [], webDomains: [String] = []) throws
        -> FamilyActivitySelection
    {
        try ScreenwardApp.client.call(
            AuthorizationMethods.issueSelection,
            SelectionRequest(applications: applications, categories: categories, webDomains: webDomains))
    }

    /// Moves the clock to `text`, running every deadline on the way as the agent would.
    func advance(to text: String) {
        advance(to: Self.date(text))
    }

    func advance(to end: Date) {
        var steps = 0
        while let deadline = host.nextDeadline(), deadline <= end, steps < 10_000 {
            clock.set(max(deadline, clock.now))
            host.runDue()
            steps += 1
        }
        clock.set(end)
        host.runDue()
    }

    var shields: EffectiveShields { host.withService { $0.effectiveShields } }

    func categoryToken(_ id: String) -> ActivityCategoryToken { directory.minter.categoryToken(forCategory: id) }
    func applicationToken(_ id: String) -> ApplicationToken {
        directory.minter.applicationToken(for: directory.application(publicID: id)!)
    }

    /// Whether the application with this id is shielded now, and by which stores.
    func shieldingStores(ofApplication id: String) -> [String] {
        let app = directory.application(publicID: id)!
        return shields.reasons(forApplication: applicationToken(id), categories: directory.categoryTokens(of: app)).map
        { "\($0.owner)/\($0.store)" }.sorted()
    }
}

extension XCTestCase {
    func temporaryFile(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.appendingPathComponent(name)
    }
}
