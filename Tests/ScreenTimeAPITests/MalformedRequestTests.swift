@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
import GRDB
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import TestSupport
import XCTest

/// Raw lines to the real state owner (`ScreenTimeService` behind `ServiceHost` behind
/// `RequestsOnLoop` behind `SocketServer`, the test's thread the loop, wired as the agent wires them,
/// in a Screenward home the agent's way): each bad line gets a clear error, and the owner's state is
/// the same afterwards.
final class MalformedRequestTests: XCTestCase {
    private static let app = "org.example.focus"

    private var world: InProcessWorld!
    private var home: ScreenwardHome!
    private var server: SocketServer!

    override func setUpWithError() throws {
        home = ScreenwardHome(url: try temporaryFile("home"))
        try home.create()
        world = try InProcessWorld(test: self, ledgerURL: home.ledgerURL)
        server = try SocketServer(
            path: home.socketPath(environment: [:]), handler: RequestsOnLoop(onLoop: world.host))
    }

    override func tearDown() {
        server?.close()
    }

    func testTheHomeAndTheSocketArePrivate() throws {
        XCTAssertEqual(try mode(of: home.url.path), 0o700)
        XCTAssertEqual(try mode(of: server.path), 0o600)
        XCTAssertEqual(server.path, home.url.appendingPathComponent("agent.sock").path)

        // A home some other program made open to all is made private again.
        let shared = ScreenwardHome(url: try temporaryFile("shared"))
        try FileManager.default.createDirectory(
            at: shared.url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        XCTAssertEqual(try mode(of: shared.url.path), 0o755)
        try shared.create()
        XCTAssertEqual(try mode(of: shared.url.path), 0o700)
    }

    func testBadRequestsGetClearErrorsAndChangeNothing() throws {
        let picked = try establishState()
        let before = try ownerState()
        let connection = try RawLineConnection(path: server.path, whileWaiting: MainLoop.runPending)
        var id: UInt64 = 100

        /// Sends one request line; returns the error of its reply (failing the test if it is no error reply).
        func error(of line: [UInt8], _ what: String, file: StaticString = #filePath, line number: UInt = #line) throws
            -> ServiceError
        {
            try connection.send(line + [0x0A])
            let answer = try XCTUnwrap(
                connection.nextLine(timeout: 30), "no reply to \(what)", file: file, line: number)
            let reply = try JSONDecoder().decode(Answer.self, from: answer)
            XCTAssertEqual(reply.id, id, what, file: file, line: number)
            return try XCTUnwrap(
                reply.error, "\(what) was answered without an error: \(answer.prefix(300))", file: file, line: number)
        }
        func request(_ method: String, body: String, client: String = Self.app) -> [UInt8] {
            id += 1
            return Array(#"{"id":\#(id),"client":"\#(client)","method":"\#(method)","body":\#(body)}"#.utf8)
        }
        func request<Body: Encodable>(_ method: String, _ body: Body, client: String = Self.app) throws -> [UInt8] {
            try request(method, body: String(decoding: JSONEncoder().encode(body), as: UTF8.self), client: client)
        }
        func expect(
            _ code: ServiceError.Code, _ text: String, _ line: [UInt8], _ what: String, file: StaticString = #filePath,
            line number: UInt = #line
        ) throws {
            let error = try error(of: line, what, file: file, line: number)
            XCTAssertEqual(error.code, code, "\(what): \(error.message)", file: file, line: number)
            XCTAssertTrue(error.message.contains(text), "\(what): \(error.message)", file: file, line: number)
            XCTAssertLessThan(
                error.message.utf8.count, 2000, "\(what): the message does not quote the request back", file: file,
                line: number)
        }

        // Bodies of the wrong type.
        try expect(
            .malformedMessage, "StoreChange", request("store.change", body: #"{"name":5,"settings":[]}"#),
            "a number for a store name")
        try expect(
            .malformedMessage, "ActivityRegistration", request("activity.start", body: #""homework""#),
            "a string for a registration")
        try expect(
            .malformedMessage, "FamilyControlsMember", request("authorization.request", body: "42"),
            "a number for a member")
        try expect(
            .malformedMessage, "FamilyControlsMember", request("authorization.request", body: #""guardian""#),
            "an unknown member")
        try expect(
            .malformedMessage, "Int64", request("monitor.ack", body: #"["one"]"#), "strings for sequence numbers")
        try expect(
            .malformedMessage, "SelectionRequest",
            request(
                "selection.issue",
                body: #"{"applications":"chess.desktop","categories":[],"webDomains":[],"includeEntireCategory":false}"#
            ),
            "a string for a list of applications")
        try expect(
            .malformedMessage, "StoreChange",
            request("store.change", body: #"{"name":"evening","settings":[{"shieldApplications":{"_0":[1,2]}}]}"#),
            "numbers for tokens")
        try expect(.malformedMessage, "StoreReference", request("store.clear", body: "null"), "no body")
        // No client, an unknown method.
        id += 1
        try expect(
            .malformedMessage, "client", Array(#"{"id":\#(id),"method":"store.clear","body":{"name":"evening"}}"#.utf8),
            "no client")
        try expect(
            .unknownMethod, "store.explode", request("store.explode", body: #"{"name":"evening"}"#), "an unknown method"
        )

        // 100 000 tokens, where a store holds 50 and an event names a handful.
        let many = Set((0..<100_000).map { ApplicationToken(opaqueValue: "t" + String($0, radix: 36)) })
        try expect(
            .limitExceeded, "at most 50",
            request("store.change", StoreChange(name: "evening", settings: [.shieldApplications(many)])),
            "100 000 tokens in a store")
        try expect(
            .limitExceeded, "at most 50",
            request(
                "store.change",
                StoreChange(
                    name: "evening",
                    settings: [.blockedApplications(Set(many.map { Application(token: $0) }.prefix(20_000)))])),
            "20 000 blocked applications")
        try expect(
            .limitExceeded, "tokens",
            request(
                "store.change",
                StoreChange(
                    name: "evening",
                    settings: [.shieldApplicationCategories(.specific(picked.categoryTokens, except: many))])),
            "100 000 exceptions")
        let registration = ActivityRegistration(
            name: "homework", schedule: Self.schedule,
            events: ["everything": DeviceActivityEvent(applications: many, threshold: minutes(5))])
        try expect(.limitExceeded, "tokens", request("activity.start", registration), "100 000 tokens in an event")
        try expect(
            .limitExceeded, "items",
            request("selection.issue", SelectionRequest(applications: (0..<100_000).map { "a\($0)" })),
            "100 000 applications to pick")
        try expect(
            .limitExceeded, "items",
            request("selection.issue", SelectionRequest(categories: Array(repeating: "Game", count: 100_000))),
            "100 000 categories to pick")

        // Names of 1 MB.
        let huge = String(repeating: "n", count: 1_000_000)
        for method in ["store.read", "store.clear"] {
            try expect(
                .invalidArgument, "1 to 200 characters", request(method, StoreReference(name: huge)),
                "a 1 MB store name to \(method)")
        }
        try expect(
            .invalidArgument, "1 to 200 characters",
            request("store.change", StoreChange(name: huge, settings: [.shieldApplications(picked.applicationTokens)])),
            "a 1 MB store name")
        try expect(
            .invalidArgument, "1 to 200 characters",
            request(
                "activity.start",
                ActivityRegistration(name: DeviceActivityName(huge), schedule: Self.schedule, events: [:])),
            "a 1 MB activity name")
        try expect(
            .invalidArgument, "1 to 200 characters",
            request(
                "activity.start",
                ActivityRegistration(
                    name: "homework", schedule: Self.schedule,
                    events: [
                        DeviceActivityEvent.Name(huge): DeviceActivityEvent(
                            applications: picked.applicationTokens, threshold: minutes(5))
                    ])),
            "a 1 MB event name")
        try expect(
            .invalidArgument, "1 to 200 characters", request("activity.stop", [DeviceActivityName(huge)]),
            "a 1 MB name to stop")
        try expect(
            .invalidArgument, "not a bundle identifier",
            request("store.clear", StoreReference(name: "evening"), client: huge), "a 1 MB client")
        try expect(
            .invalidArgument, "no application", request("selection.issue", SelectionRequest(applications: [huge])),
            "a 1 MB application id")
        try expect(
            .invalidArgument, "not a domain", request("selection.issue", SelectionRequest(webDomains: [huge])),
            "a 1 MB domain")

        // The connection stayed open through all of it, and the owner still answers.
        XCTAssertNil(connection.end(within: 0))
        try expect(
            .unauthorized, "not authorised",
            request("store.clear", StoreReference(name: "evening"), client: "org.example.stranger"), "a stranger")

        // Lines the framing refuses: the reason, then end of file; nothing was carried out.
        let clearEvening = try request("store.clear", StoreReference(name: "evening"))
        let refused: [(line: [UInt8], problem: String)] = [
            (Array(#"{"client":"\#(Self.app)","method":"store.clear","body":{"name":"evening"}}"#.utf8), #"no "id""#),
            (Array("[".utf8) + clearEvening + Array("]".utf8), "a JSON array, not an object"),
            (
                Array(#"{"id":7,"client":"\#(Self.app)","method":"store.clear","body":{"name":"eve"#.utf8) + [
                    0xFF, 0xFE,
                ] + Array(#""}}"#.utf8), "not UTF-8"
            ),
            (try request("store.change", StoreChange(name: huge + huge, settings: [])), "longer than the limit"),
        ]
        for (line, problem) in refused {
            let what = String(decoding: line.prefix(80), as: UTF8.self)
            let rogue = try RawLineConnection(path: server.path, whileWaiting: MainLoop.runPending)
            try rogue.send(line + [0x0A])
            let answer = try XCTUnwrap(rogue.nextLine(timeout: 30), "no refusal of \(what)")
            let refusal = try JSONDecoder().decode(RefusalFrame.self, from: answer)
            XCTAssertEqual(refusal.error.code, .malformedMessage, what)
            XCTAssertTrue(refusal.error.message.contains(problem), "\(what): \(refusal.error.message)")
            XCTAssertEqual(rogue.end(within: 1.5), .endOfFile, what)
        }

        XCTAssertEqual(try ownerState(), before)
        XCTAssertEqual(world.problems.all, [])
        // Well-formed requests still work on the same owner.
        world.use(Self.app)
        XCTAssertEqual(ManagedSettingsStore(named: .init("evening")).shield.applications, picked.applicationTokens)
        XCTAssertEqual(Set(DeviceActivityCenter().activities), ["homework"])
    }

    // MARK: The owner's state

    private static let schedule = DeviceActivitySchedule(intervalStart: at(18), intervalEnd: at(21), repeats: true)

    /// Two authorised apps with stores and an activity, as the API leaves them.
    private func establishState() throws -> FamilyActivitySelection {
        world.use("org.example.other")
        try world.authorize()
        let other = try world.pick(webDomains: ["example.com"])
        ManagedSettingsStore().shield.webDomains = other.webDomainTokens

        world.use(Self.app)
        try world.authorize()
        let picked = try world.pick(applications: ["chess.desktop", "chat.desktop"], categories: ["Game"])
        let evening = ManagedSettingsStore(named: .init("evening"))
        evening.shield.applications = picked.applicationTokens
        evening.shield.applicationCategories = .specific(picked.categoryTokens)
        try DeviceActivityCenter().startMonitoring(
            "homework", during: Self.schedule,
            events: ["games": DeviceActivityEvent(categories: picked.categoryTokens, threshold: minutes(30))])
        XCTAssertEqual(world.problems.all, [])
        return picked
    }

    private struct OwnerState: Equatable {
        /// Every row of every table of the ledger, as text.
        var ledger: [String: [String]]
        /// What the owner tells each app: its authorization, stores and activities.
        var authorizations: [String: AuthorizationStatus]
        var stores: [String: StoreContents]
        var activities: [String: Set<ActivityRegistration>]
        var shields: [StoreSettings]
        var nextDeadline: Date?
    }

    private func ownerState() throws -> OwnerState {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: home.ledgerURL.path, configuration: configuration)
        let ledger = try database.read { db in
            var tables: [String: [String]] = [:]
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map(
                    \.description
                ).sorted()
            }
            return tables
        }
        var state = OwnerState(
            ledger: ledger, authorizations: [:], stores: [:], activities: [:], shields: world.shields.stores,
            nextDeadline: world.host.nextDeadline())
        for client in [Self.app, "org.example.other", "org.example.stranger"] {
            world.use(client)
            state.authorizations[client] = try world.send(AuthorizationMethods.status, Empty())
            guard state.authorizations[client] == .approved else { continue }
            for name in try world.ledger.storeNames(client: client) {
                state.stores["\(client)/\(name)"] = try world.send(StoreMethods.read, StoreReference(name: name))
            }
            state.activities[client] = Set(try world.send(ActivityMethods.list, Empty()))
        }
        XCTAssertEqual(state.stores.count, 2, "the state the test set up")
        XCTAssertEqual(state.activities[Self.app]?.count, 1)
        return state
    }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try XCTUnwrap(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
    }
}

/// A reply line, whatever its result's type: its id and error.
private struct Answer: Decodable {
    var id: UInt64?
    var error: ServiceError?
}
