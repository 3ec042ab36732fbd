import Foundation
import ScreenwardCore
import Synchronization

/// The real `screenward-agent` running on a display with its own Screenward home.
public final class AgentRun {
    public let home: URL
    public let process: ChildProcess
    public let environment: [String: String]

    /// Starts the agent and waits until it tracks (its "tracking" log line).
    public init(
        display: String, home: URL, idleThreshold: Double = 3600, environment extra: [String: String] = [:],
        verbose: Bool = false,
        arguments extraArguments: [String] = []
    ) throws {
        self.home = home
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // No system daemon: one installed on the machine would take a guardian's (root's)
        // tray and commands for its own (`noSystemDaemon`).
        environment = [
            "SCREENWARD_HOME": home.path, "DISPLAY": display,
            "SCREENWARD_DAEMON_SOCKET": Self.noSystemDaemon(beside: home),
        ]
        .merging(extra) { $1 }
        // The display named: a $WAYLAND_DISPLAY the tests were run under would otherwise win.
        var arguments = ["--display", display, "--idle-threshold", String(idleThreshold)]
        if verbose { arguments.append("--verbose") }
        arguments += extraArguments
        process = try ChildProcess(try ProjectPrograms.url(of: "screenward-agent"), arguments, environment: environment)
        try process.waitForStandardError(containing: "tracking", timeout: 20)
    }

    /// Records that the person allowed `apps` Screen Time access, as their answer in the
    /// agent's dialog does. Tests of what an app does once allowed start from here; the
    /// dialog's own tests answer it with real keys, as the person.
    public func allowAccess(_ apps: String...) throws {
        let ledger = try Ledger(url: ScreenwardHome(url: home).ledgerURL)
        for app in apps {
            let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
            _ = try ledger.authorize(client: app, member: "individual", grantKey: key, at: Date())
        }
    }

    /// A daemon socket that is not there, beside `home`: programs of an individual-mode test
    /// then find no system daemon, whether or not the machine runs one.
    public static func noSystemDaemon(beside home: URL) -> String {
        home.deletingLastPathComponent().appendingPathComponent("no-system-daemon.sock").path
    }

    /// Runs `screenward` with `arguments` against the same home; returns its output (all
    /// of it: read to the end of the pipe, however long); fails when it exits with an error.
    public func cli(_ arguments: [String], environment extra: [String: String] = [:]) throws -> String {
        let run = try cliRun(arguments, environment: extra)
        guard run.status == 0 else {
            throw HarnessError.failed("screenward \(arguments) exited \(run.status): \(run.errors)")
        }
        return run.output
    }

    /// Runs `screenward` with `arguments` against the same home, whatever its exit status:
    /// its status, output and error output.
    public func cliRun(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
        status: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = try ProjectPrograms.url(of: "screenward")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging(extra) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A hung command is killed, which ends its pipes.
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        let errorText = Mutex(Data())
        let errorsRead = DispatchGroup()
        errorsRead.enter()
        DispatchQueue.global().async {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = data }
            errorsRead.leave()
        }
        let text = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationReason == .exit else { throw HarnessError.timedOut("screenward \(arguments)") }
        let printed = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast(text.last == 10 ? 1 : 0).joined(separator: "\n")
        return (process.terminationStatus, printed, String(decoding: errorText.withLock { $0 }, as: UTF8.self))
    }

    /// `screenward usage --json` over all recorded time, as seconds per public id.
    public func usage() throws -> UsageFigures {
        let text = try cli(["usage", "--json", "--since", "2000-01-01", "--until", "now"])
        return try JSONDecoder().decode(UsageFigures.self, from: Data(text.utf8))
    }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    public func stop() -> Int32? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: 10)
    }
}

/// The documented JSON of `screenward usage --json`.
public struct UsageFigures: Decodable, Sendable {
    public struct App: Decodable, Sendable {
        public var id: String
        public var name: String
        public var token: String
        public var seconds: Double
    }
    public var since: String
    public var until: String
    public var totalSeconds: Double
    public var apps: [App]

    enum CodingKeys: String, CodingKey {
        case since, until, apps
        case totalSeconds = "total_seconds"
    }

    public func seconds(of id: String) -> Double {
        apps.first { $0.id == id }?.seconds ?? 0
    }
}

/// Windows played by `screenward-testwindow`, one per `instance.Class[:Title]`.
public final class DemoApplications {
    public let process: ChildProcess
    public let windows: [String]

    public init(display: String, windows specs: [String], extraArguments: [String] = []) throws {
        process = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-testwindow"),
            specs.flatMap { ["--window", $0] } + extraArguments, environment: ["DISPLAY": display])
        windows = try process.waitForOutputLines(specs.count, timeout: 20).prefix(specs.count).map { $0 }
    }

    /// Sends a command (see screenward-testwindow) and waits for its acknowledgement.
    public func command(_ line: String) throws {
        let before = process.outputLines.count
        process.send(line)
        _ = try process.waitForOutputLines(before + 1, timeout: 10)
    }

    deinit {
        process.closeInput()
        process.stop()
    }
}
