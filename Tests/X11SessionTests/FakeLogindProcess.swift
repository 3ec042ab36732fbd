import Foundation
import GLibRuntime
import SessionHarness
import TestSupport
import X11Session
import XCTest

// What the logind tests share: `screenward-fake-logind` (ScreenwardTesting's fake) as a
// child process driven through its control channel, on a private bus.

/// Restores environment variables a test changes.
struct SavedEnvironment {
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
final class FakeLogindChild {
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
            throw TestFailure(
                """
                \(name) \(ended ? "ended" : "said nothing expected for \(timeout)") (exit status \
                \(process.isRunning ? "running" : "\(process.terminationStatus)"))
                """
            )
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
func startPrivateBus() throws -> PrivateDBus {
    _ = try requireProgram("dbus-daemon", package: "dbus-daemon")
    return try PrivateDBus()
}

extension XCTestCase {
    /// The fake logind on a private system bus of its own, which this process's
    /// `DBUS_SYSTEM_BUS_ADDRESS` names from now on (tests save and restore it); the fake
    /// and the bus stop when the test ends.
    func startFakeLogindOnAPrivateBus(loop: MainLoop, arguments: [String] = []) throws -> FakeLogind {
        let bus = try startPrivateBus()
        addTeardownBlock { bus.stop() }
        let fake = try FakeLogind(loop: loop, address: bus.address, arguments: arguments)
        addTeardownBlock { fake.stop() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        return fake
    }
}

/// `screenward-fake-logind`, built by SwiftPM next to the test bundle.
final class FakeLogind {
    private let child: FakeLogindChild

    init(loop: MainLoop, address: String, arguments: [String] = []) throws {
        child = try FakeLogindChild(
            loop: loop, executable: try Self.executable(), arguments: ["--address", address] + arguments)
        _ = try child.waitForLine { $0.hasPrefix("ready") }
    }

    /// Sends a command and waits until the fake has put its signals on the bus.
    func send(_ command: String) throws {
        try child.send(command)
        _ = try child.waitForLine { $0 == "ok \(command)" || $0 == "error \(command)" }
    }

    /// Sends a command the fake must refuse (it answers `error <command>`).
    func sendExpectingRefusal(_ command: String) throws -> Bool {
        try child.send(command)
        return try child.waitForLine { $0 == "ok \(command)" || $0 == "error \(command)" } == "error \(command)"
    }

    /// The session lookups the fake has answered, as it reports them.
    func lookups() throws -> String {
        try query("lookups")
    }

    /// The LockSession and TerminateSession calls the fake received, in order.
    func calls() throws -> [String] {
        let answer = try query("calls")
        return answer.isEmpty ? [] : answer.components(separatedBy: ", ")
    }

    /// The ids of the fake's sessions, in the order they were added.
    func sessionIDs() throws -> [String] {
        try query("sessions").split(separator: " ").map(String.init)
    }

    private func query(_ command: String) throws -> String {
        try child.send(command)
        let line = try child.waitForLine { $0 == command || $0.hasPrefix(command + " ") }
        return String(line.dropFirst(command.count)).trimmingCharacters(in: .whitespaces)
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
        let candidates = [
            argv0.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        .map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestFailure("\(name) not found in \(candidates.map(\.path)); build it with swift build")
        }
        return found
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
