import Foundation
@_exported import struct ScreenwardIPC.ServiceError
import ScreenwardIPC
import Synchronization

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
