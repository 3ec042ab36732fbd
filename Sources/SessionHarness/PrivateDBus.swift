import Foundation

/// A private dbus-daemon on a socket in a temporary directory, allowing everything:
/// a stand-in system bus for tests (`DBUS_SYSTEM_BUS_ADDRESS`).
public final class PrivateDBus {
    public let address: String
    private let directory: URL
    private let daemon: ChildProcess

    public static func canStart() -> Bool { PrivateXSession.which("dbus-daemon") != nil }

    public init() throws {
        guard let executable = PrivateXSession.which("dbus-daemon") else {
            throw HarnessError.missingProgram("dbus-daemon is not installed (Debian: apt-get install dbus-daemon)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>screenward-test</type>
          <listen>unix:path=\(directory.path)/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        daemon = try ChildProcess(
            executable, ["--config-file=\(config.path)", "--nofork", "--nopidfile", "--print-address"])
        address = try daemon.waitForOutputLines(1, timeout: 10)[0]
    }

    deinit { stop() }

    public func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A private bus with a fake logind on it: the system bus an agent sees when
/// `DBUS_SYSTEM_BUS_ADDRESS` points here.
public final class PrivateLogindBus {
    private let bus: PrivateDBus
    private let logind: ChildProcess

    public var address: String { bus.address }

    public static func canStart() -> Bool { PrivateDBus.canStart() }

    /// `outsideSessions`: the test process and what it starts are in no session, as a
    /// system daemon and the agents it starts are (GetSessionByPID fails; an agent finds
    /// its session by $XDG_SESSION_ID).
    public init(outsideSessions: Bool = false) throws {
        bus = try PrivateDBus()
        logind = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-fake-logind"),
            ["--address", bus.address] + (outsideSessions ? ["--no-session-by-pid"] : []))
        _ = try logind.waitForOutputLines(1, timeout: 10)
    }

    deinit { stop() }

    /// Ends the fake and its bus. A rig calls it from its tearDown: XCTest keeps every test
    /// case, and what it holds, until the run ends, and a dbus-daemon outlives its parent.
    public func stop() {
        logind.closeInput()
        logind.stop()
        bus.stop()
    }

    /// Sends a query (`calls`, `sessions`) and returns its answer line.
    public func logindAnswer(_ query: String) throws -> String {
        let before = logind.outputLines.count
        logind.send(query)
        let lines = try logind.waitForOutputLines(before + 2, timeout: 10)
        return lines[before...].first { $0.hasPrefix(query) } ?? ""
    }

    /// Sends a command to the fake logind (`lock`, `unlock`, `sleep`, `wake`…) and
    /// waits until its signals are on the bus.
    public func logind(_ command: String) throws {
        let before = logind.outputLines.count
        logind.send(command)
        let lines = try logind.waitForOutputLines(before + 1, timeout: 10)
        guard lines.last == "ok \(command)" else {
            throw HarnessError.failed("fake logind answered \(lines.last ?? "") to \(command)")
        }
    }
}
