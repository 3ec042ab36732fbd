import Foundation
import ScreenwardTesting
import X11Session

/// A private X server (Xvfb) with, optionally, the openbox window manager: a real
/// desktop session that tests, the demo and the benchmark own and tear down.
public final class PrivateXSession {
    public let display: String
    private let server: ChildProcess
    private var windowManager: ChildProcess?

    /// Finds a program on `$PATH`.
    public static func which(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Whether Xvfb (and openbox, when asked) are installed.
    public static func canStart(windowManager: Bool = true) -> Bool {
        which("Xvfb") != nil && (!windowManager || which("openbox") != nil)
    }

    /// Starts Xvfb on a free display (it picks one itself with -displayfd) and,
    /// with `windowManager`, openbox, returning once the window manager manages.
    public init(windowManager withWindowManager: Bool = true, screen: String = "1280x800x24") throws {
        guard let xvfb = Self.which("Xvfb") else {
            throw HarnessError.missingProgram("Xvfb is not installed (Debian: apt-get install xvfb)")
        }
        (server, display) = try Self.startServer(xvfb, ["-screen", "0", screen, "-nolisten", "tcp", "-noreset"])
        if withWindowManager {
            try startWindowManager()
        }
    }

    deinit { stop() }

    /// Starts `xvfb` with `arguments` on a display it picks itself (-displayfd: two servers
    /// started at once never race for a number); returns it and its display (":N").
    public static func startServer(_ xvfb: URL, _ arguments: [String]) throws -> (ChildProcess, String) {
        let server = try ChildProcess(xvfb, ["-displayfd", "1"] + arguments)
        let number = try server.waitForOutputLines(1, timeout: 20)[0].trimmingCharacters(in: .whitespaces)
        guard Int(number) != nil else {
            throw HarnessError.failed("Xvfb printed \"\(number)\" instead of a display number")
        }
        return (server, ":" + number)
    }

    /// Starts openbox and waits until it announces itself (EWMH) on the root window and
    /// manages windows (a window mapped before that may never be managed).
    public func startWindowManager() throws {
        guard let openbox = Self.which("openbox") else {
            throw HarnessError.missingProgram("openbox is not installed (Debian: apt-get install openbox)")
        }
        let manager = try ChildProcess(openbox, ["--sm-disable"], environment: ["DISPLAY": display])
        windowManager = manager
        let connection = try XConnection(displayName: display)
        let deadline = Date().addingTimeInterval(20)
        while !connection.hasWindowManager() || !connection.publishesClientList() {
            if Date() > deadline || !manager.isRunning {
                throw HarnessError.timedOut(
                    "openbox did not start on \(display): \(manager.standardError.suffix(1000))")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Ends the X server (the session) at once, as a crash or logout would.
    public func killServer() {
        server.signal(SIGKILL)
        server.waitForExit(timeout: 5)
    }

    public func stop() {
        windowManager?.stop()
        windowManager = nil
        server.stop()
    }
}

/// The project's own programs, found next to the running executable or test bundle.
public enum ProjectPrograms {
    /// From `$SCREENWARD_PROGRAMS` when that folder has it (/usr/bin, to measure the installed
    /// package, whose programs are links to one multi-call executable), else from beside the
    /// running executable (the build's folder, where the test tools are too).
    public static func url(of program: String) throws -> URL {
        if let folder = ProcessInfo.processInfo.environment["SCREENWARD_PROGRAMS"], !folder.isEmpty {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        var candidates: [URL] = []
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(me.deletingLastPathComponent())
        candidates.append(me.deletingLastPathComponent().deletingLastPathComponent())  // inside an .xctest bundle
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let candidate = directory.appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw HarnessError.missingProgram(
            "\(program) is not built next to \(me.path): run `swift build` before the tests")
    }
}
