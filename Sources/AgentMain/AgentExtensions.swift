import Foundation
import GLibRuntime
import Glibc
import ScreenwardCore
import X11Session

/// The individual agent's side of launching apps' extensions: which apps are installed
/// for this person (their own folder and the system's), the processes, and the hop of
/// their exits onto the loop where the supervisor runs.
final class AgentExtensions {
    private let log: AgentLog
    private let loop: MainLoop
    private let socketPath: String
    private var installed: [String: InstalledApp] = [:]
    private(set) var supervisor: ExtensionSupervisor!
    /// Extensions' exits, from their watcher threads.
    private var exits: LoopMailbox<ExtensionProcess.Exit>!
    private var recheck: MainLoop.Registration?
    private var folderWatch: DirectoryWatch?

    /// The folders manifests are read from: the person's own first; the system's
    /// install for every user (and win when both name an app).
    let folders: [InstalledApps]

    init(ledger: Ledger, host: ServiceHost, socketPath: String, loop: MainLoop, log: AgentLog) {
        self.log = log
        self.loop = loop
        self.socketPath = socketPath
        folders = InstalledApps.forPerson(uid: getuid())
        exits = LoopMailbox { [unowned self] exits in
            for exit in exits { supervisor.exited(exit) }
        }
        host.onMisbehaviour = { [unowned self] peer, what in
            // The socket identifies its peers; a launched extension is known by its pid.
            guard let pid = peer.credentials?.pid else { return }
            supervisor.misbehaved(pid: pid, what)
        }
        supervisor = ExtensionSupervisor(
            services: ExtensionSupervisor.Services(
                apps: { [unowned self] in installed },
                monitorsWanted: { host.withService { $0.monitorsWanted() } },
                callbacksOwed: { app in host.withService { $0.callbacksOwed(to: app) } },
                start: { [unowned self] found, app, _ in try start(found, of: app) },
                checkAgain: { [unowned self] delay in
                    recheck?.cancel()
                    recheck = loop.schedule(after: delay) { [unowned self] in supervisor.check() }
                },
                log: { [log] line in log.info("extensions: \(line)") }),
            ledger: ledger)
        reload()
        do {
            folderWatch = try loop.watch(directories: folders.map(\.directory)) { [unowned self] in
                reload()
                supervisor.check()
            }
        } catch {
            log.warning("extensions: manifests are read at start and on SIGHUP only: \(error)")
        }
    }

    /// Reads the manifests again (at start, on SIGHUP, when a folder changes).
    func reload() {
        let (apps, problems) = InstalledApps.all(in: folders)
        for problem in problems { log.warning("extensions: skipped: \(problem)") }
        installed = apps
        let withExtensions = apps.values.filter { !$0.extensions.isEmpty }.count
        log.info("extensions: \(apps.count) app(s) installed, \(withExtensions) with extensions")
    }

    private func start(_ found: AppExtension, of app: InstalledApp) throws -> ExtensionProcess {
        let env = ProcessInfo.processInfo.environment
        // A clean environment: what the API needs, and where the person's files are.
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": env["HOME"] ?? NSHomeDirectory(),
            "LANG": env["LANG"] ?? "C.UTF-8",
            "SCREENWARD_SOCKET": socketPath, "SCREENWARD_BUNDLE_ID": app.bundleIdentifier,
            "SCREENWARD_EXTENSION_IDLE_EXIT": "5",
        ]
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "SCREENWARD_HOME"] {
            if let value = env[name] { environment[name] = value }
        }
        let exits = exits!
        let log = log
        let app = app.bundleIdentifier
        let point = found.point
        return try ExtensionProcess(
            found, app: app, environment: environment, currentProcesses: ExtensionProcess.taskCount(of: getuid()),
            onOutput: { line in log.info("\(app) \(point): \(line)") },
            onExit: { exit in
                exits.post(exit)
            })
    }
}
