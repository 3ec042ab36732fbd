import Foundation
import ScreenwardCore
import ScreenwardIPC

/// The command line's connection to the system daemon (child mode). The daemon knows
/// the caller by the socket's peer credentials; the bundle identifier is only a label.
struct DaemonConnection {
    let path = DaemonAddress.socketPath(environment: ProcessInfo.processInfo.environment)
    private let transport: SocketTransport
    private let client: ServiceClient

    init() {
        transport = SocketTransport(path: path)
        client = ServiceClient(transport: transport, bundleIdentifier: ShieldCommand.client)
    }

    func close() { transport.close() }

    func call<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        do {
            return try client.call(method, request)
        } catch let error as ServiceError where error.code == .agentUnavailable {
            // A phrase, not a translated text: the message stays English (as a ServiceError's
            // is) and `ScreenwardCommand.spoken` tells it in the reader's language.
            // swift-format-ignore
            let message = Phrase("the Screenward system daemon is not running (no answer on {path}): child mode needs it; install the screenward package (or run scripts/install.sh) and start it with `systemctl start screenward-daemon`", context: "cli", ["path": path])
            throw ServiceError(.agentUnavailable, message)
        }
    }
}
