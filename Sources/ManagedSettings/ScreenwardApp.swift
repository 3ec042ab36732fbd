import Foundation
import ScreenwardIPC
import Synchronization

@_exported import struct ScreenwardIPC.ServiceError

/// How this process appears to Screenward: the one thing Apple's API gets from the
/// app's bundle and a Linux program has to say.
///
/// Set `bundleIdentifier` before the first use of the API, or start the program with
/// `SCREENWARD_BUNDLE_ID=org.example.worklog` in its environment. An app and its
/// monitor share the identifier, so they share their stores and activities.
public enum ScreenwardApp {
    private static let state = Mutex(State())
    private struct State {
        var client: ServiceClient?
        var problemHandler: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("Screenward: \(message)\n".utf8))
        }
    }

    /// The bundle identifier this process declares (nil until declared).
    public static var bundleIdentifier: String? {
        get { try? client.bundleIdentifier() }
        set {
            let transport = client.transport
            state.withLock { $0.client = ServiceClient(transport: transport, bundleIdentifier: newValue) }
        }
    }

    /// Calls that cannot throw in Apple's API (a store's setters) report failures here;
    /// by default they are written to standard error.
    public static var problemHandler: @Sendable (String) -> Void {
        get { state.withLock { $0.problemHandler } }
        set { state.withLock { $0.problemHandler = newValue } }
    }

    /// The connection to the state owner (the agent's socket unless replaced).
    @_spi(Screenward) public static var client: ServiceClient {
        get {
            state.withLock { state in
                if let client = state.client { return client }
                let client = ServiceClient.standard()
                state.client = client
                return client
            }
        }
        set { state.withLock { $0.client = newValue } }
    }

    @_spi(Screenward) public static func report(_ message: String) {
        problemHandler(message)
    }
}

extension ScreenwardApp {
    /// What an extension's `class func main()` does (a monitor, a shield configuration
    /// data source, a shield action delegate): attach, then keep the process alive for
    /// the agent's pushes. Exits with a message naming `extensionName` when it cannot
    /// attach (the app is not authorised, no agent runs).
    ///
    /// Started by the owner (`SCREENWARD_EXTENSION_IDLE_EXIT` names seconds), it exits
    /// once it has had nothing to do for that long, as extensions do on Apple's platforms;
    /// started by the app itself, it runs until it is stopped.
    @_spi(Screenward) public static func runExtension(_ extensionName: String, attach: () throws -> Void) -> Never {
        do {
            try attach()
        } catch {
            FileHandle.standardError.write(Data("Screenward: \(extensionName) could not attach: \(error)\n".utf8))
            exit(1)
        }
        let idleExit = ProcessInfo.processInfo.environment["SCREENWARD_EXTENSION_IDLE_EXIT"].flatMap(Double.init)
            .flatMap { $0 > 0 ? $0 : nil }
        // Not dispatchMain(): on Linux it ends the main thread with pthread_exit, and
        // libdispatch then crashes when an idle worker thread exits (seen here).
        while true {
            guard let idleExit else {
                Thread.sleep(forTimeInterval: 3600)
                continue
            }
            Thread.sleep(forTimeInterval: 0.1)
            if extensionWork.isIdle(for: idleExit) { exit(0) }
        }
    }

    /// Runs `body` as work of this extension: an extension does not exit as idle while
    /// it works, nor until the idle time has passed since.
    @_spi(Screenward) public static func working<Result>(_ body: () throws -> Result) rethrows -> Result {
        extensionWork.begin()
        defer { extensionWork.end() }
        return try body()
    }

    private static let extensionWork = ExtensionWork()

    private final class ExtensionWork: Sendable {
        private let state = Mutex<(busy: Int, since: ContinuousClock.Instant)>((0, .now))

        func begin() { state.withLock { $0.busy += 1 } }

        func end() {
            state.withLock { state in
                state.busy -= 1
                state.since = .now
            }
        }

        func isIdle(for seconds: Double) -> Bool {
            state.withLock { $0.busy == 0 && ContinuousClock.now - $0.since >= .milliseconds(Int64(seconds * 1000)) }
        }
    }
}
