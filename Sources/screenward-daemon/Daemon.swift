import Dispatch
import Foundation
import Glibc
import NIOCore
import NIOPosix
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// The composition root of the system daemon: its state, its socket and its one state
/// loop. Requests arrive on the socket's threads and hop onto the state loop, where
/// everything that owns state runs, so nothing here needs a lock.
final class Daemon {
    private let log: DaemonLog
    private let stateLoop: any EventLoop
    private let server: SocketServer
    private let socketDirectory: URL

    init(stateDirectory: URL, socketPath: String, log: DaemonLog) throws {
        self.log = log
        try Self.makePrivate(stateDirectory)
        let state = try DaemonState(url: stateDirectory.appendingPathComponent("daemon.sqlite"))
        let stateLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
        self.stateLoop = stateLoop
        // The service is made on the loop it lives on, and never leaves it.
        let service = try stateLoop.submit {
            NIOLoopBound(
                ChildModeService(state: state, accounts: SystemAccountDirectory(), homes: ChildHomes(stateDirectory: stateDirectory)),
                eventLoop: stateLoop)
        }.wait()
        let requests = DaemonRequests(loop: stateLoop, service: service, log: log)

        socketDirectory = URL(fileURLWithPath: socketPath).deletingLastPathComponent()
        // Every local user must reach the socket (children read their usage, guardians act).
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        server = try SocketServer(path: socketPath, access: .everyone, identify: PeerCredentialReader.read, handler: requests)
        let managed = try state.managedUsers()
        log.info("listening on \(socketPath); state in \(stateDirectory.path); \(managed.count) managed user(s)")
    }

    /// Creates the state directory owned by root, mode 0700, and makes an existing one so:
    /// nobody else may read children's usage or change their limits.
    private static func makePrivate(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700, .ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: directory.path)
    }

    /// Serves until SIGTERM or SIGINT.
    func run() -> Never {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [self] in
                log.info("stopping (signal \(number))")
                server.close()
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
        withExtendedLifetime(sources) { dispatchMain() }
    }
}

/// The socket's side: each request hops onto the state loop, is answered there, and
/// the reply goes back to its peer.
final class DaemonRequests: ServiceRequestHandler {
    private let loop: any EventLoop
    private let service: NIOLoopBound<ChildModeService>
    private let log: DaemonLog

    init(loop: any EventLoop, service: NIOLoopBound<ChildModeService>, log: DaemonLog) {
        self.loop = loop
        self.service = service
        self.log = log
    }

    func received(frame: Data, from peer: ServicePeer) {
        loop.execute { [service, log] in
            let method = (try? FrameHead.decode(from: frame))?.method ?? "?"
            log.debug("\(peer): \(method)")
            guard ChildModeService.answers(method) else {
                if let id = (try? FrameHead.decode(from: frame))?.id {
                    peer.send(errorLine(id: id, ServiceError(.unsupported, "the system daemon does not serve \(method) yet: child mode is being built (see the README)")))
                }
                return
            }
            if let reply = service.value.handle(frame: frame, from: peer) { peer.send(reply) }
        }
    }

    func disconnected(_ peer: ServicePeer) {}
}
