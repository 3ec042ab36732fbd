import Foundation
import X11Session
import SessionHarness
import TestSupport
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
        let bus = try startPrivateBus()
        defer { bus.stop() }
        let fake = try FakeLogind(loop: loop, address: bus.address)
        defer { fake.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
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
        let bus = try startPrivateBus()
        defer { bus.stop() }
        let fake = try FakeLogind(
            loop: loop, address: bus.address, arguments: ["--no-session-by-pid", "--locked", "--session-id", "c7"])
        defer { fake.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)

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
        let bus = try startPrivateBus()
        defer { bus.stop() }
        let fake = try FakeLogind(loop: loop, address: bus.address, arguments: ["--malformed-replies"])
        defer { fake.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
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

// MARK: - Support

/// Restores environment variables a test changes.
private struct SavedEnvironment {
    private let values: [String: String?]

    init(_ names: [String]) {
        values = Dictionary(uniqueKeysWithValues: names.map { ($0, getenv($0).map { String(cString: $0) }) })
    }

    func restore() {
        for (name, value) in values {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
}

/// A child process whose standard output is read line by line on the main loop.
private final class Child {
    let process = Process()
    let name: String
    private let input = Pipe()
    private let output = Pipe()
    private var reader: MainLoop.Registration?
    private(set) var lines: [String] = []
    private(set) var ended = false
    private let loop: MainLoop

    init(loop: MainLoop, executable: URL, arguments: [String]) throws {
        self.loop = loop
        name = executable.lastPathComponent
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        reader = loop.readLines(
            from: output.fileHandleForReading.fileDescriptor,
            onLine: { [unowned self] in lines.append($0) },
            onEnd: { [unowned self] in ended = true })
    }

    /// Waits for the next line that satisfies `matches`, dropping the ones before.
    func waitForLine(timeout: Duration = .seconds(10), where matches: (String) -> Bool) throws -> String {
        var found: String?
        loop.iterate(
            until: {
                while found == nil, !lines.isEmpty {
                    let line = lines.removeFirst()
                    if matches(line) { found = line }
                }
                return found != nil || ended
            }, timeout: timeout)
        guard let found else {
            throw TestFailure("\(name) \(ended ? "ended" : "said nothing expected for \(timeout)") (exit status \(process.isRunning ? "running" : "\(process.terminationStatus)"))")
        }
        return found
    }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    func stop() {
        reader?.cancel()
        reader = nil
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// The harness's private bus, skipped where dbus-daemon is missing outside CI.
private func startPrivateBus() throws -> PrivateDBus {
    _ = try requireProgram("dbus-daemon", package: "dbus-daemon")
    return try PrivateDBus()
}

/// `screenward-fake-logind`, built by SwiftPM next to the test bundle.
private final class FakeLogind {
    private let child: Child

    init(loop: MainLoop, address: String, arguments: [String] = []) throws {
        child = try Child(loop: loop, executable: try Self.executable(), arguments: ["--address", address] + arguments)
        _ = try child.waitForLine { $0.hasPrefix("ready") }
    }

    /// Sends a command and waits until the fake has put its signals on the bus.
    func send(_ command: String) throws {
        try child.send(command)
        _ = try child.waitForLine { $0 == "ok \(command)" || $0 == "error \(command)" }
    }

    /// The session lookups the fake has answered, as it reports them.
    func lookups() throws -> String {
        try child.send("lookups")
        return String(try child.waitForLine { $0.hasPrefix("lookups") }.dropFirst("lookups ".count))
    }

    func stop() {
        try? child.send("quit")
        child.stop()
    }

    /// On Linux `swift test` runs the bundle itself (…/debug/<Package>PackageTests.xctest),
    /// so the executables SwiftPM built sit in the directory of argv[0].
    static func executable() throws -> URL {
        let name = "screenward-fake-logind"
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [argv0.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestFailure("\(name) not found in \(candidates.map(\.path)); build it with swift build")
        }
        return found
    }
}

private struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
