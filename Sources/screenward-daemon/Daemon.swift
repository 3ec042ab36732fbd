import Foundation
import Glibc
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts
import X11Session

/// The composition root of the system daemon: its state, its socket, logind and the
/// managed sessions' agents, all on one loop (GLib's, which logind's signals need).
/// Requests arrive on the socket's threads and hop onto the loop, where everything that
/// owns state runs, so nothing here needs a lock.
final class Daemon {
    private let log: DaemonLog
    private let loop = MainLoop()
    private let state: DaemonState
    private let service: ChildModeService
    private let homes: ChildHomes
    private let catalog: ApplicationCatalog
    private let categories: CategoryTable
    private var owners: [UInt32: ManagedUserOwner] = [:]
    private var sessions: ManagedSessions!
    private var server: SocketServer?
    private let socketPath: String
    private let inbox = Inbox<Arrival>()

    enum Arrival: Sendable {
        case frame(Data, ServicePeer)
        case gone(ServicePeer)
    }

    struct Options {
        var stateDirectory: URL
        var socketPath: String
        var runtimeDirectory: URL
        var agentExecutable: URL
        var agentUser: String
    }

    init(options: Options, log: DaemonLog) throws {
        self.log = log
        socketPath = options.socketPath
        try Self.makePrivate(options.stateDirectory)
        state = try DaemonState(url: options.stateDirectory.appendingPathComponent("daemon.sqlite"))
        homes = ChildHomes(stateDirectory: options.stateDirectory)
        service = ChildModeService(state: state, accounts: SystemAccountDirectory(), homes: homes)
        // The system's applications only: nothing a child installs in their home counts.
        catalog = ApplicationCatalog.loadFromEnvironment(["XDG_DATA_DIRS": "/usr/local/share:/usr/share"]).0
        categories = try DataDirectory.categoryTable()
        guard let agentAccount = try SystemAccountDirectory().account(named: options.agentUser) else {
            throw DaemonError("there is no user \(options.agentUser) for the session agents to run as: scripts/install.sh creates it")
        }
        guard FileManager.default.isExecutableFile(atPath: options.agentExecutable.path) else {
            throw DaemonError("the session agent \(options.agentExecutable.path) is missing")
        }
        try FileManager.default.createDirectory(at: options.runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let launcher = AgentLauncher(
            agentExecutable: options.agentExecutable, agentAccount: agentAccount, daemonSocket: options.socketPath,
            runtimeDirectory: options.runtimeDirectory, log: log)
        sessions = ManagedSessions(loop: loop, launcher: launcher, state: state, owner: { [unowned self] uid in owners[uid] }, log: log)
        for user in try state.managedUsers() { open(user) }
        service.onManagedUsersChanged = { [unowned self] in managedUsersChanged() }
    }

    /// Creates the state directory owned by root, mode 0700, and makes an existing one so:
    /// nobody else may read children's usage or change their limits.
    private static func makePrivate(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700, .ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: directory.path)
    }

    // MARK: Managed users' owners

    private func open(_ user: ManagedUser) {
        do {
            let log = log
            let owner = try ManagedUserOwner(user: user, homes: homes, catalog: catalog, categories: categories) { problem in log.warning(problem) }
            let changed = LoopWakeup { [unowned self] in sessions.shieldsChanged(uid: user.uid) }
            owner.service.onShieldsChanged = { changed.fire() }
            owners[user.uid] = owner
        } catch {
            // Fail closed: the user stays managed, and their sessions are not left
            // unenforced silently: say why, loudly.
            log.error("cannot open the state of managed user \(user.name): \(error)")
        }
    }

    private func managedUsersChanged() {
        let managed = (try? state.managedUsers()) ?? []
        let uids = Set(managed.map(\.uid))
        for (uid, owner) in owners where !uids.contains(uid) {
            owner.close(reason: "no longer managed")
            owners[uid] = nil
        }
        for user in managed where owners[user.uid] == nil { open(user) }
        sessions.managedUsersChanged()
    }

    // MARK: Running

    /// Serves until SIGTERM or SIGINT.
    func run() throws {
        let inbox = inbox
        let wakeup = LoopWakeup { [unowned self] in
            for arrival in inbox.take() { handle(arrival) }
        }
        let handler = DaemonRequests { arrival in
            inbox.put(arrival)
            wakeup.fire()
        }
        let socketDirectory = URL(fileURLWithPath: socketPath).deletingLastPathComponent()
        // Every local user must reach the socket (children read their usage, guardians act).
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        server = try SocketServer(path: socketPath, access: .everyone, identify: PeerCredentialReader.read, acceptingReports: true, handler: handler)
        loop.onSignal(SIGTERM) { [unowned self] in stop("SIGTERM") }
        loop.onSignal(SIGINT) { [unowned self] in stop("SIGINT") }
        sessions.start()
        log.info("listening on \(socketPath); \(owners.count) managed user(s)")
        loop.run()
    }

    private func stop(_ reason: String) {
        log.info("stopping (\(reason))")
        sessions.stopAll()
        server?.close()
        for owner in owners.values { owner.close(reason: reason) }
        loop.quit()
    }

    private func handle(_ arrival: Arrival) {
        switch arrival {
        case .gone(let peer):
            sessions.disconnected(peer)
        case .frame(let frame, let peer):
            guard let head = try? FrameHead.decode(from: frame) else { return }
            if let kind = head.push {
                sessions.received(push: kind, frame: frame, from: peer)
                return
            }
            guard let id = head.id, let method = head.method else { return }
            log.debug("\(peer): \(method)")
            if method == AgentLinkMethods.attach.name {
                let result = Result { try sessions.attach(try AgentLinkMethods.attach.request(from: frame).body, from: peer) }
                peer.send(AgentLinkMethods.attach.replyFrame(id: id, result.mapError { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }))
                if case .success = result { sessions.sendShields(to: peer) }
            } else if ChildModeService.answers(method) {
                if let reply = service.handle(frame: frame, from: peer) { peer.send(reply) }
            } else {
                peer.send(errorLine(id: id, ServiceError(.unsupported, "the system daemon does not serve \(method) yet: child mode is being built (see the README)")))
            }
        }
    }

    typealias Arrive = @Sendable (Arrival) -> Void

    /// The socket's side: each line and each ended connection is handed to the loop.
    private final class DaemonRequests: ServiceRequestHandler {
        private let arrive: Arrive

        init(_ arrive: @escaping Arrive) { self.arrive = arrive }

        func received(frame: Data, from peer: ServicePeer) { arrive(.frame(frame, peer)) }
        func disconnected(_ peer: ServicePeer) { arrive(.gone(peer)) }
    }
}

struct DaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
