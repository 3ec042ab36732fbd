import Foundation
import GLibRuntime
import Glibc
import ScreenwardCore
import SystemAccounts

/// The system daemon's side of launching apps' extensions for managed users: one
/// `ExtensionSupervisor` per managed user (each with that user's state), the system's
/// manifests only, and every extension run as the extensions' own system user, so the
/// child can neither signal, trace nor replace it, and it cannot read the daemon's state.
///
/// An extension the daemon started connects to the daemon's socket as that user; the
/// daemon knows which managed user and app it runs for by its pid (or its process group).
final class DaemonExtensions {
    struct Launch: Sendable, Hashable {
        var uid: UInt32
        var app: String
    }

    private let loop: MainLoop
    private let log: DaemonLog
    private let identity: ExtensionProcess.Identity
    private let folder: InstalledApps
    private let dataDirectory: URL
    private let socketPath: String
    private let owners: (UInt32) -> ManagedUserOwner?
    private var installed: [String: InstalledApp] = [:]
    private var supervisors: [UInt32: ExtensionSupervisor] = [:]
    private var rechecks: [UInt32: MainLoop.Registration] = [:]
    /// Extensions' exits, from their watcher threads.
    private var exits: LoopMailbox<(uid: UInt32, exit: ExtensionProcess.Exit)>!
    private var folderWatch: DirectoryWatch?

    /// The uid extensions run as: its connections are extensions', never a person's.
    var uid: UInt32 { identity.uid }

    init(
        account: UnixAccount, appsDirectory: URL, dataDirectory: URL, socketPath: String, loop: MainLoop,
        log: DaemonLog,
        owners: @escaping (UInt32) -> ManagedUserOwner?
    ) throws {
        self.loop = loop
        self.log = log
        identity = ExtensionProcess.Identity(uid: account.uid.rawValue, gid: account.gid.rawValue)
        folder = InstalledApps(directory: appsDirectory, trust: .rootOnly)
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath
        self.owners = owners
        // Root's, traversable: each extension's own folder below is its user's, mode 0700.
        try FileManager.default.createDirectory(
            at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755, .ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: dataDirectory.path)
        exits = LoopMailbox { [unowned self] exits in
            for (uid, exit) in exits { supervisors[uid]?.exited(exit) }
        }
        reload()
        do {
            folderWatch = try loop.watch(directories: [appsDirectory]) { [unowned self] in
                reload()
                for uid in supervisors.keys { check(uid: uid) }
            }
        } catch {
            log.warning("extensions: manifests are read at start only: \(error)")
        }
    }

    func reload() {
        let (apps, problems) = InstalledApps.all(in: [folder])
        for problem in problems { log.warning("extensions: skipped: \(problem)") }
        installed = apps
        log.info(
            """
            extensions: \(apps.count) app(s) installed, \
            \(apps.values.filter { !$0.extensions.isEmpty }.count) with extensions
            """
        )
    }

    /// Starts what `uid`'s owner needs (monitors owed callbacks); call after its engine
    /// ran and after its apps' requests.
    func check(uid: UInt32) {
        supervisor(for: uid)?.check()
    }

    /// Starts an app's shield extension for `uid` if it is installed and not running.
    func wantShieldExtension(_ point: ExtensionPoint, of app: String, uid: UInt32) {
        supervisor(for: uid)?.wantShieldExtension(point, of: app)
    }

    /// The installed app of that bundle identifier, as its manifest names it.
    func installedApp(_ app: String) -> InstalledApp? { installed[app] }

    func isInstalled(_ point: ExtensionPoint, of app: String) -> Bool {
        installed[app]?.extensions[point] != nil
    }

    func apps(with point: ExtensionPoint) -> Set<String> {
        Set(installed.values.filter { $0.extensions[point] != nil }.map(\.bundleIdentifier))
    }

    /// `screenward extensions` for managed user `owner`.
    func listing(for owner: ManagedUserOwner, runs: Int) throws -> ExtensionsListing {
        let running = supervisors[owner.user.uid]?.runningExtensions.keys.map { "\($0.app) \($0.point.rawValue)" } ?? []
        let (apps, problems) = folder.all()
        return ExtensionsListing(
            installed: apps, skipped: problems.map(\.description),
            runs: try owner.ledger.recentExtensionRuns(limit: runs), running: Set(running))
    }

    /// Which managed user and app the extension process `pid` (or the process group it
    /// is in) was started for; nil for anything the daemon did not start.
    func launch(of pid: Int32) -> Launch? {
        let group = getpgid(pid)
        for (uid, supervisor) in supervisors {
            for (key, started) in supervisor.runningExtensions where started == pid || started == group {
                return Launch(uid: uid, app: key.app)
            }
        }
        return nil
    }

    /// An extension sent what no honest client sends: it is stopped.
    func misbehaved(pid: Int32, _ what: String) {
        for supervisor in supervisors.values { supervisor.misbehaved(pid: pid, what) }
    }

    /// `uid` is no longer managed, or the daemon stops: its extensions stop.
    func stop(uid: UInt32) {
        supervisors.removeValue(forKey: uid)?.stopAll()
        rechecks.removeValue(forKey: uid)?.cancel()
    }

    func stopAll() {
        for uid in Array(supervisors.keys) { stop(uid: uid) }
    }

    private func supervisor(for uid: UInt32) -> ExtensionSupervisor? {
        if let supervisor = supervisors[uid] { return supervisor }
        guard let owner = owners(uid) else { return nil }
        let service = owner.service
        let supervisor = ExtensionSupervisor(
            services: ExtensionSupervisor.Services(
                apps: { [unowned self] in installed },
                monitorsWanted: { service.monitorsWanted() },
                callbacksOwed: { app in service.callbacksOwed(to: app) },
                start: { [unowned self] found, app, _ in try start(found, of: app, uid: uid) },
                checkAgain: { [unowned self] delay in
                    rechecks[uid]?.cancel()
                    rechecks[uid] = loop.schedule(after: delay) { [unowned self] in supervisors[uid]?.check() }
                },
                log: { [log] line in log.info("extensions (uid \(uid)): \(line)") }),
            ledger: owner.ledger)
        supervisors[uid] = supervisor
        return supervisor
    }

    /// How an app's report extension runs for `uid`: as the extensions' user, in the
    /// app's folder for that user, with no network (`ReportExtensionRun`).
    func reportRun(for uid: UInt32, app: String) throws -> (
        installed: [String: InstalledApp], launcher: ReportExtensionRun
    ) {
        guard installed[app] != nil else {
            return (installed, ReportExtensionRun(environment: [:], identity: identity) { _ in })
        }
        let home = try home(of: app, uid: uid)
        let environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8",
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SCREENWARD_BUNDLE_ID": app, "TMPDIR": home.path,
        ]
        let log = log
        var run = ReportExtensionRun(environment: environment, identity: identity) { line in
            log.info("reports (uid \(uid)): \(line)")
        }
        // What it writes there is gone when it exits: the app's monitor shares that folder.
        run.privateFolders = [dataDirectory.path]
        return (installed, run)
    }

    /// The extension's own folder for this managed user: its HOME and data, its user's
    /// alone (the child cannot read or change it; other extensions' are apart).
    private func home(of app: String, uid: UInt32) throws -> URL {
        let user = dataDirectory.appendingPathComponent("\(uid)", isDirectory: true)
        let home = user.appendingPathComponent(app, isDirectory: true)
        let manager = FileManager.default
        // Modes set explicitly: the daemon's unit runs it with umask 0077.
        try manager.createDirectory(at: user, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try manager.setAttributes(
            [.posixPermissions: 0o755, .ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: user.path)
        try manager.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try manager.setAttributes(
            [.posixPermissions: 0o700, .ownerAccountID: identity.uid, .groupOwnerAccountID: identity.gid],
            ofItemAtPath: home.path)
        return home
    }

    private func start(_ found: AppExtension, of app: InstalledApp, uid: UInt32) throws -> ExtensionProcess {
        let home = try home(of: app.bundleIdentifier, uid: uid)
        // A clean environment: the daemon's socket, the app's name, its own folder.
        let environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8",
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SCREENWARD_DAEMON_SOCKET": socketPath, "SCREENWARD_BUNDLE_ID": app.bundleIdentifier,
            "SCREENWARD_EXTENSION_IDLE_EXIT": "5",
        ]
        let exits = exits!
        let log = log
        let name = app.bundleIdentifier
        let point = found.point
        return try ExtensionProcess(
            found, app: name, environment: environment, currentProcesses: ExtensionProcess.taskCount(of: identity.uid),
            runningAs: identity,
            onOutput: { line in log.info("\(name) \(point) (uid \(uid)): \(line)") },
            onExit: { exit in
                exits.post((uid, exit))
            })
    }
}
