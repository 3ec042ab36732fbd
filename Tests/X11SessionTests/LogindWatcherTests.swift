import Foundation
import GLibRuntime
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// Runs `LogindWatcher` in this process against a private dbus-daemon on which
/// `screenward-fake-logind` owns org.freedesktop.login1, and drives the fake.
final class LogindWatcherTests: XCTestCase {
    private var environment: SavedEnvironment!

    override func setUp() {
        environment = SavedEnvironment(["DBUS_SYSTEM_BUS_ADDRESS", "XDG_SESSION_ID"])
    }

    override func tearDown() {
        environment.restore()
    }

    func testLogindReportsLockAndSleepInOrder() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop)
        unsetenv("XDG_SESSION_ID")

        var events: [SessionEvent] = []
        let watcher = LogindWatcher()
        try watcher.start { events.append($0) }
        defer { watcher.stop() }
        XCTAssertEqual(events, [.locked(false)], "the lock state is reported once at start")
        XCTAssertEqual(watcher.sessionPath, "/org/freedesktop/login1/session/_31")
        XCTAssertEqual(try fake.lookups(), "GetSessionByPID \(getpid())")

        /// Sends `commands` to the fake and waits for exactly `expected` to arrive next.
        func step(_ commands: String..., expect expected: [SessionEvent], line: UInt = #line) throws {
            let before = events.count
            for command in commands { try fake.send(command) }
            loop.iterate(until: { events.count >= before + expected.count }, timeout: .seconds(5))
            XCTAssertEqual(Array(events[before...]), expected, "after \(commands)", line: line)
        }

        try step("lock", expect: [.locked(true)])
        try step("sleep", expect: [.sleeping(true)])
        try step("wake", expect: [.sleeping(false)])
        try step("unlock", expect: [.locked(false)])
        // Lockers that follow loginctl lock-session get the session's Lock/Unlock.
        try step("lock-signal", expect: [.locked(true)])
        try step("unlock-signal", expect: [.locked(false)])
        // A PropertiesChanged that only invalidates LockedHint makes the watcher ask.
        try step("lock-invalidated", expect: [.locked(true)])
        // Lock while locked (a locker obeying Lock then sets the hint) changes nothing.
        try step("lock-signal", "unlock", expect: [.locked(false)])
        // Neither does re-reading an unchanged hint, nor signals with arguments of
        // the wrong types, which are ignored, not read.
        try step("unlock-invalidated", "malformed", "sleep", expect: [.sleeping(true)])
        try step("wake", expect: [.sleeping(false)])

        // Nothing more comes, and nothing after stop.
        loop.iterate(until: { false }, timeout: .milliseconds(300))
        XCTAssertEqual(events.count, 11, "\(events)")
        watcher.stop()
        let count = events.count
        try fake.send("lock")
        loop.iterate(until: { false }, timeout: .milliseconds(200))
        XCTAssertEqual(events.count, count, "no events after stop: \(events)")
    }

    func testFallsBackToXDGSessionIDWhenThePIDIsInNoSession() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(
            loop: loop, arguments: ["--no-session-by-pid", "--locked", "--session-id", "c7"])

        unsetenv("XDG_SESSION_ID")
        XCTAssertThrowsError(try LogindWatcher().start { _ in }) { error in
            guard case LogindError.noSession(_, nil, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("XDG_SESSION_ID is not set"), "\(error)")
        }

        setenv("XDG_SESSION_ID", "c8", 1)
        XCTAssertThrowsError(try LogindWatcher().start { _ in }) { error in
            guard case LogindError.noSession(_, "c8", _) = error else { return XCTFail("\(error)") }
        }

        setenv("XDG_SESSION_ID", "c7", 1)
        var events: [SessionEvent] = []
        let watcher = LogindWatcher()
        try watcher.start { events.append($0) }
        defer { watcher.stop() }
        XCTAssertEqual(events, [.locked(true)])
        XCTAssertEqual(watcher.sessionPath, "/org/freedesktop/login1/session/c7")
        try fake.send("unlock")
        loop.iterate(until: { events.count >= 2 }, timeout: .seconds(5))
        XCTAssertEqual(events, [.locked(true), .locked(false)])
    }

    func testMalformedRepliesThrowInsteadOfCrashing() throws {
        let loop = MainLoop()
        let fake = try startFakeLogindOnAPrivateBus(loop: loop, arguments: ["--malformed-replies"])
        defer { withExtendedLifetime(fake) {} }
        unsetenv("XDG_SESSION_ID")

        XCTAssertThrowsError(try LogindWatcher().start { _ in }) { error in
            XCTAssertEqual(error as? LogindError, .malformedReply(method: "GetSessionByPID", type: "(s)"))
        }
    }

    func testBusWithoutLogindThrowsAClearError() throws {
        let bus = try startPrivateBus()
        defer { bus.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)

        XCTAssertThrowsError(try LogindWatcher().start { _ in }) { error in
            guard case LogindError.noLogind = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("org.freedesktop.login1"), "\(error)")
        }
    }

    func testNoSystemBusThrowsAClearError() throws {
        let address = "unix:path=/nonexistent/screenward-test/system_bus_socket"
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
        var events: [SessionEvent] = []
        let watcher = LogindWatcher()
        XCTAssertThrowsError(try watcher.start { events.append($0) }) { error in
            guard case LogindError.noSystemBus(address, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".hasPrefix("cannot connect to the system bus at \(address): "), "\(error)")
        }
        XCTAssertEqual(events, [])
        XCTAssertNil(watcher.sessionPath)
    }
}
