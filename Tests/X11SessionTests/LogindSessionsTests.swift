import Foundation
import GLibRuntime
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// Runs `LogindSessions` in this process against a private dbus-daemon on which
/// `screenward-fake-logind` owns org.freedesktop.login1 and keeps sessions, and
/// drives the fake; the last test reads the real logind when there is one.
final class LogindSessionsTests: XCTestCase {
    private var environment: SavedEnvironment!

    override func setUp() {
        environment = SavedEnvironment(["DBUS_SYSTEM_BUS_ADDRESS"])
    }

    override func tearDown() {
        environment.restore()
    }

    func testTheInitialListHasEverySessionWithItsProperties() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop, arguments: ["--session-id", "3"])
        try fake.send(
            """
            add-session c2 uid=1001 name=kid type=x11 display=:1 active=yes state=active leader=4242 class=user \
            seat=seat0
            """
        )
        try fake.send(
            """
            add-session c7 uid=1002 name=sam type=tty display= active=no state=online seat= locked=yes service=login \
            tty=tty3
            """
        )
        try fake.send("add-session 12 uid=0 name=root type=wayland remote=yes class=greeter state=closing")

        let record = Record()
        let follower = LogindSessions(log: record.log)
        try follower.start(record.append)
        defer { follower.stop() }

        XCTAssertEqual(
            record.changes.compactMap(\.added).map(\.id), ["3", "c2", "c7", "12"],
            "in logind's order: \(record.changes)")
        XCTAssertEqual(record.changes.count, 4)
        XCTAssertEqual(Set(follower.sessions.keys), ["3", "c2", "c7", "12"])
        XCTAssertEqual(
            follower.sessions["c2"],
            LogindSession(
                id: "c2", objectPath: "/org/freedesktop/login1/session/c2", uid: 1001, userName: "kid", type: .x11,
                display: ":1",
                isActive: true, state: .active, isRemote: false, leaderPID: 4242, sessionClass: "user", seat: "seat0",
                isLocked: false, service: "lightdm"))
        XCTAssertEqual(
            follower.sessions["c7"],
            LogindSession(
                id: "c7", objectPath: "/org/freedesktop/login1/session/c7", uid: 1002, userName: "sam", type: .tty,
                display: "",
                isActive: false, state: .online, isRemote: false, leaderPID: 1, sessionClass: "user", seat: nil,
                isLocked: true, service: "login", tty: "tty3"))
        let greeter = try XCTUnwrap(follower.sessions["12"])
        XCTAssertEqual(
            greeter.objectPath, "/org/freedesktop/login1/session/_312", "a leading digit is escaped as logind does")
        XCTAssertEqual(greeter.type, .wayland)
        XCTAssertTrue(greeter.isRemote)
        XCTAssertEqual(greeter.state, .closing)
        XCTAssertEqual(greeter.sessionClass, "greeter")
        XCTAssertEqual(follower.sessions["3"]?.uid, getuid())
        XCTAssertEqual(record.logged, [], "nothing was ignored")
    }

    func testNewChangedAndRemovedSessionsAreReported() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop)

        let record = Record()
        let follower = LogindSessions(log: record.log)
        try follower.start(record.append)
        defer { follower.stop() }
        XCTAssertEqual(record.changes.compactMap(\.added).map(\.id), ["1"])

        /// Sends `commands` to the fake and returns the changes that arrive next (waiting
        /// for `count` of them, then a little for any extra).
        func step(_ commands: String..., count: Int) throws -> [LogindSessions.Change] {
            let before = record.changes.count
            for command in commands { try fake.send(command) }
            loop.iterate(until: { record.changes.count >= before + count }, timeout: .seconds(5))
            loop.iterate(until: { false }, timeout: .milliseconds(100))
            return Array(record.changes[before...])
        }

        let added = try step("add-session c5 uid=1001 name=kid type=x11 display=:1 active=no state=online", count: 1)
        guard case .added(let new)? = added.first, added.count == 1 else { return XCTFail("\(added)") }
        XCTAssertEqual([new.id.rawValue, new.display, new.userName], ["c5", ":1", "kid"])
        XCTAssertEqual(new.isActive, false)

        // The child switches to their session: it becomes active, and the other one not.
        let activated = try step(
            "set-session c5 active=yes state=active", "set-session 1 active=no state=online", count: 2)
        XCTAssertEqual(activated.count, 2, "\(activated)")
        guard case .changed(let now, let previous)? = activated.first else { return XCTFail("\(activated)") }
        XCTAssertEqual(previous, new)
        XCTAssertEqual([now.isActive, previous.isActive], [true, false])
        XCTAssertEqual(now.state, .active)
        XCTAssertEqual(
            activated.last?.session.map { [$0.id.rawValue, "\($0.isActive)", "\($0.state)"] }, ["1", "false", "online"])
        XCTAssertEqual(follower.sessions["c5"]?.isActive, true)

        // A change to the same values is no change.
        XCTAssertEqual(try step("set-session c5 active=yes", count: 0), [])
        let moved = try step("set-session c5 display=:2 type=wayland", count: 1)
        XCTAssertEqual(moved.map(\.session?.display), [":2"])
        XCTAssertEqual(follower.sessions["c5"]?.type, .wayland)

        let removed = try step("remove-session c5", count: 1)
        XCTAssertEqual(removed, [.removed(try XCTUnwrap(moved.first?.session))])
        XCTAssertNil(follower.sessions["c5"])
        XCTAssertEqual(Set(follower.sessions.keys), ["1"])

        // A session that goes while its properties are being read is reported whole
        // and then removed, or not at all (depending on which the fake did first).
        let brief = try step("add-session c6", "remove-session c6", count: 0)
        XCTAssertTrue(
            brief.isEmpty || (brief.count == 2 && brief[0].added?.id == "c6" && brief[1].removedID == "c6"), "\(brief)")
        XCTAssertNil(follower.sessions["c6"])

        // Nothing after stop.
        follower.stop()
        XCTAssertEqual(try step("add-session c8", count: 0), [])
        XCTAssertEqual(follower.sessions, [:])
        XCTAssertEqual(record.logged, [])
    }

    func testLockAndTerminateReachLogind() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop)
        try fake.send("add-session c2 uid=1001 name=kid display=:1")

        let unstarted = LogindSessions()
        XCTAssertThrowsError(try unstarted.lockSession("c2")) { error in
            XCTAssertEqual(error as? LogindSessionsError, .notStarted(method: "LockSession"))
        }

        let record = Record()
        let follower = LogindSessions(log: record.log)
        try follower.start(record.append)
        defer { follower.stop() }
        XCTAssertEqual(follower.sessions["c2"]?.isLocked, false)

        try follower.lockSession("c2")
        XCTAssertEqual(try fake.calls(), ["LockSession c2"])
        loop.iterate(until: { follower.sessions["c2"]?.isLocked == true }, timeout: .seconds(5))
        XCTAssertEqual(follower.sessions["c2"]?.isLocked, true, "LockedHint follows: \(record.changes)")

        try follower.terminateSession("c2")
        XCTAssertEqual(try fake.calls(), ["LockSession c2", "TerminateSession c2"])
        XCTAssertEqual(try fake.sessionIDs(), ["1"])
        loop.iterate(until: { follower.sessions["c2"] == nil }, timeout: .seconds(5))
        XCTAssertNil(follower.sessions["c2"], "the follower sees the session go")
        XCTAssertEqual(record.changes.last?.removedID, "c2")

        XCTAssertThrowsError(try follower.terminateSession("c2")) { error in
            guard case LogindSessionsError.noSuchSession("c2", _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".hasPrefix("logind knows no session c2: "), "\(error)")
        }
        try fake.send("deny-session-control yes")
        XCTAssertThrowsError(try follower.lockSession("1")) { error in
            guard case LogindSessionsError.accessDenied("LockSession", "1", _) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue("\(error)".hasPrefix("logind refused LockSession of session 1: "), "\(error)")
        }
        XCTAssertEqual(
            try fake.calls(),
            [
                "LockSession c2", "TerminateSession c2", "TerminateSession c2 -> org.freedesktop.login1.NoSuchSession",
                "LockSession 1 -> org.freedesktop.DBus.Error.AccessDenied",
            ])
        XCTAssertEqual(follower.sessions["1"]?.isLocked, false)
    }

    func testMalformedValuesAreIgnoredWithAReason() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop)
        // The fake refuses what it cannot do, rather than doing something else.
        XCTAssertTrue(try fake.sendExpectingRefusal("add-session c9 active=maybe"))
        XCTAssertTrue(try fake.sendExpectingRefusal("set-session nobody active=no"))
        try fake.send("add-session c3 malformed=yes")

        let record = Record()
        let follower = LogindSessions(log: record.log)
        try follower.start(record.append)
        defer { follower.stop() }
        XCTAssertEqual(Array(follower.sessions.keys), ["1"], "the malformed session is left out")
        XCTAssertEqual(record.logged.count, 1, "\(record.logged)")
        XCTAssertTrue(
            record.logged.first?.contains(
                "left out session /org/freedesktop/login1/session/c3: Active has type s, not b") == true,
            "\(record.logged)")

        // A malformed session that appears later, signals with wrong arguments, and a
        // change with wrong types: all ignored, each with a reason.
        try fake.send("add-session c4 malformed=yes")
        try fake.send("malformed-session-signals 1")
        loop.iterate(until: { record.logged.count >= 9 }, timeout: .seconds(5))
        XCTAssertEqual(record.changes.count, 1, "\(record.changes)")
        XCTAssertEqual(follower.sessions["1"]?.isActive, true)
        let reasons = record.logged.dropFirst()
        XCTAssertEqual(
            reasons.filter { $0.hasPrefix("left out session /org/freedesktop/login1/session/c4: ") }.count, 1,
            "\(reasons)")
        XCTAssertEqual(
            reasons.filter { $0.contains("SessionNew with arguments of type (s), not (so)") }.count, 1, "\(reasons)")
        XCTAssertEqual(
            reasons.filter { $0.contains("SessionRemoved with arguments of type (us), not (so)") }.count, 1,
            "\(reasons)")
        XCTAssertEqual(
            reasons.filter { $0.contains("ignored Active of session 1: type s, not b") }.count, 1, "\(reasons)")
        XCTAssertEqual(
            reasons.filter { $0.contains("ignored State of session 1: type u, not s") }.count, 1, "\(reasons)")
        XCTAssertEqual(
            reasons.filter { $0.contains("ignored PropertiesChanged of session 1 with arguments of type (s)") }.count,
            1, "\(reasons)")

        // And the follower still follows.
        try fake.send("set-session 1 active=no")
        loop.iterate(until: { follower.sessions["1"]?.isActive == false }, timeout: .seconds(5))
        XCTAssertEqual(follower.sessions["1"]?.isActive, false)
    }

    func testAMalformedListThrows() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop, arguments: ["--malformed-replies"])
        defer { withExtendedLifetime(fake) {} }

        let follower = LogindSessions(log: { _ in })
        XCTAssertThrowsError(try follower.start { _ in }) { error in
            XCTAssertEqual(error as? LogindSessionsError, .malformedReply(method: "ListSessions", type: "(as)"))
        }
        XCTAssertEqual(follower.sessions, [:])
        XCTAssertThrowsError(try follower.lockSession("1")) { error in
            XCTAssertEqual(
                error as? LogindSessionsError, .notStarted(method: "LockSession"), "a failed start leaves nothing open")
        }
    }

    func testABusWithoutLogindOrNoBusThrowsAClearError() throws {
        let bus = try startPrivateBus()
        defer { bus.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        XCTAssertThrowsError(try LogindSessions().start { _ in }) { error in
            guard case LogindSessionsError.noLogind = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".hasPrefix("nobody owns org.freedesktop.login1 on the system bus"), "\(error)")
        }

        let address = "unix:path=/nonexistent/screenward-test/system_bus_socket"
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
        XCTAssertThrowsError(try LogindSessions().start { _ in }) { error in
            guard case LogindSessionsError.noSystemBus(address, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".hasPrefix("cannot connect to the system bus at \(address): "), "\(error)")
        }
    }

    /// The real logind, where this machine has one. A container (CI's included) has no
    /// systemd and so no logind: then this test is skipped, under CI too, since no CI
    /// setup can provide one; the fake covers the behaviour there.
    func testTheRealLogindListsSessionsOfKnownTypes() throws {
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
        guard FileManager.default.fileExists(atPath: "/run/dbus/system_bus_socket") else {
            throw XCTSkip("no system bus at /run/dbus/system_bus_socket (a container without systemd has no logind)")
        }
        let record = Record()
        let follower = LogindSessions(log: record.log)
        do {
            try follower.start(record.append)
        } catch LogindSessionsError.noLogind(let reason) {
            throw XCTSkip("the system bus has no logind (a container without systemd): \(reason)")
        } catch LogindSessionsError.noSystemBus(_, let reason) {
            throw XCTSkip("the system bus cannot be reached: \(reason)")
        }
        defer { follower.stop() }
        XCTAssertEqual(record.logged, [], "the real logind's values all have the expected types")
        XCTAssertEqual(record.changes.count, follower.sessions.count)
        for session in follower.sessions.values {
            XCTAssertTrue(session.objectPath.hasPrefix("/org/freedesktop/login1/session/"), "\(session)")
            XCTAssertFalse(session.id.rawValue.isEmpty)
            if case .other(let type) = session.type { XCTFail("unknown session type \(type): \(session)") }
            if case .other(let state) = session.state { XCTFail("unknown session state \(state): \(session)") }
        }
        if let own = ProcessInfo.processInfo.environment["XDG_SESSION_ID"], !own.isEmpty {
            XCTAssertNotNil(follower.sessions[SessionID(own)], "this process's own session \(own) is listed")
        }
    }
}

/// What a follower reported and logged.
private final class Record {
    var changes: [LogindSessions.Change] = []
    var logged: [String] = []

    func append(_ change: LogindSessions.Change) { changes.append(change) }
    func log(_ line: String) { logged.append(line) }
}

extension LogindSessions.Change {
    fileprivate var added: LogindSession? {
        if case .added(let session) = self { session } else { nil }
    }

    /// The session as it is after the change (nil when removed).
    fileprivate var session: LogindSession? {
        switch self {
        case .added(let session), .changed(let session, _): session
        case .removed: nil
        }
    }

    fileprivate var removedID: SessionID? {
        if case .removed(let session) = self { session.id } else { nil }
    }
}
