import Foundation
import GLibRuntime
import Glibc
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// Child mode's hold on the managed users' programs, on the daemon's loop:
/// - their agents learn what each process of theirs is (`ChildPrograms`), so a window is
///   identified by its process, not by what it says;
/// - a program the system did not install and no guardian allowed is shielded, by an extra
///   store (`NotInstalledPrograms`) beside the user's own;
/// - the processes of covered windows are held (`ProcessHolds`), and a shield's Close ends
///   one through here, since the agent may not signal the child;
/// - a text browser or a display server of the user's own no guardian allowed is closed
///   (`TextBrowsers`, `DisplayServers`), its terminal told why.
final class ProgramGuard {
    private let programs: ChildPrograms
    private let holds: ProcessHolds
    private let loop: MainLoop
    private let sessions: ManagedSessions
    private let owner: (UInt32) -> ManagedUserOwner?
    /// The executables a guardian allowed for the user (`screenward allow exe:PATH --user`).
    private let allowed: (UInt32) -> Set<String>
    /// The language the user's session speaks (what a closed text browser's terminal is told in).
    private let language: (UInt32) -> String
    /// The text browsers and display servers closed, so that each is recorded once however
    /// long it takes to end.
    private var closedPrograms: Set<Int32> = []
    private var timer: MainLoop.Registration?
    private var notInstalled: [UInt32: StoreSettings] = [:]
    /// uid → the processes of its covered windows, and of shielded apps drawing elsewhere.
    private var coveredPIDs: [UInt32: Set<Int32>] = [:]
    private var elsewherePIDs: [UInt32: Set<Int32>] = [:]
    static let scanInterval: Duration = .milliseconds(250)

    init(
        installed: InstalledPrograms, loop: MainLoop, sessions: ManagedSessions,
        owner: @escaping (UInt32) -> ManagedUserOwner?,
        allowed: @escaping (UInt32) -> Set<String>,
        language: @escaping (UInt32) -> String,
        record: @escaping (_ uid: UInt32, _ kind: ChildEvent.Kind, _ what: Phrase) -> Void
    ) {
        programs = ChildPrograms(installed: installed)
        holds = ProcessHolds(freezer: CgroupFreezer.find())
        self.loop = loop
        self.sessions = sessions
        self.owner = owner
        self.allowed = allowed
        self.language = language
        self.record = record
        holds.onEvent = record
    }

    private let record: (_ uid: UInt32, _ kind: ChildEvent.Kind, _ what: Phrase) -> Void

    /// How covered processes are held, for the log.
    var holdMethod: String { holds.method }

    func start(managing users: [ManagedUser]) {
        manage(users)
        scan()
    }

    func stop() {
        timer?.cancel()
        holds.releaseAll()
    }

    func manage(_ users: [ManagedUser]) {
        programs.manage(
            users.map { user in
                (user.uid, (try? UnixAccount.withID(UserID(rawValue: user.uid)))??.gid.rawValue ?? user.uid, user.name)
            })
        let uids = Set(users.map(\.uid))
        for uid in notInstalled.keys where !uids.contains(uid) { notInstalled[uid] = nil }
        coveredPIDs = coveredPIDs.filter { uids.contains($0.key) }
        elsewherePIDs = elsewherePIDs.filter { uids.contains($0.key) }
        for uid in holds.heldUsers where !uids.contains(uid) { holds.releaseAll(of: uid) }
    }

    /// The store that shields the user's programs the system did not install, if any runs.
    func extraStores(of uid: UInt32) -> [StoreSettings] {
        notInstalled[uid].map { [$0] } ?? []
    }

    /// An agent attached: it learns the user's programs at once.
    func agentAttached(_ peer: ServicePeer, uid: UInt32) {
        if let frame = try? AgentLinkMethods.programs.frame(table(of: uid)) { peer.send(frame) }
    }

    /// An agent met windows of clients it does not know: read those now, answer at once.
    func clients(_ pids: [Int32], of uid: UInt32) {
        guard programs.inspect(pids, of: uid) else { return }
        push(uid)
        // Read here first, a program is no change to the next scan: a display server with a
        // window (a nested sway) is closed now, or never.
        closeUnallowed(of: uid)
        refreshStore(uid)
    }

    /// What the user's agent covers now: those processes are held, but for a browser's covered
    /// while it is checked (its extension must load to report).
    func covered(_ covered: [CoveredWindow], of uid: UInt32) {
        coveredPIDs[uid] = Set(
            covered.filter { $0.store != UnsupportedBrowsers.checkingStore || $0.owner != NotInstalledPrograms.owner }
                .compactMap(\.pid))
        hold(uid)
    }

    /// Processes of shielded apps with no window on the session's display (drawing on a
    /// nested display server, say): held too.
    func heldElsewhere(_ pids: [Int32], of uid: UInt32) {
        elsewherePIDs[uid] = Set(pids.prefix(4096))
        hold(uid)
    }

    private func hold(_ uid: UInt32) {
        let elsewhere = elsewherePIDs[uid] ?? []
        holds.cover((coveredPIDs[uid] ?? []).union(elsewhere), of: uid, elsewhere: elsewhere) { [programs] pid in
            programs.facts(pid: pid, of: uid)
        }
    }

    /// A shield's Close, or a window of a shielded app that cannot be covered: the process
    /// ends if it is the user's (the agent may not signal it; only the attached agent's
    /// connection gets here).
    func close(_ pid: Int32, of uid: UInt32) {
        guard !holds.close(pid, of: uid), let program = programs.facts(pid: pid, of: uid) else { return }
        kill(pid, SIGKILL)
        let values = ["executable": program.executable, "pid": "\(pid)"]
        // swift-format-ignore
        let what = Phrase("{executable} (pid {pid}) was closed by its session's agent (a window of a shielded app it could not cover)", context: "event", values)
        record(uid, .programClosed, what)
    }

    private func scan() {
        let changed = programs.scan()
        for uid in programs.tables.keys {
            if changed.contains(uid) {
                push(uid)
                closeUnallowed(of: uid)
            }
            // Every scan: a guardian's allowance takes effect within one.
            refreshStore(uid)
        }
        holds.check()
        timer = loop.schedule(after: Self.scanInterval) { [weak self] in self?.scan() }
    }

    /// Closes the user's text browsers and display servers no guardian allowed, each after a
    /// line on its terminal.
    private func closeUnallowed(of uid: UInt32) {
        // A pid no longer running may come back as another program.
        closedPrograms.formIntersection(Set(programs.tables.values.flatMap(\.keys)))
        let table = table(of: uid)
        let allowed = allowed(uid)
        // The compositors of the user's Wayland sessions are the sessions' own.
        let sessionCompositors = sessions.sessionCompositors(of: uid)
        let servers = DisplayServers.toClose(
            table.filter {
                DisplayServers.isDisplayServer($0) && !sessionCompositors.contains($0.pid)
                    && !Self.isFork(of: sessionCompositors, $0)
            }.map { server in
                DisplayServers.Candidate(
                    program: server, parentExecutable: Self.parentExecutable(of: server.pid),
                    connectedToSessionCompositor: sessionCompositors.contains {
                        UnixSocketPeers.isConnected(server.pid, to: $0)
                    })
            }, allowed: allowed
        ).map(\.program)
        // A text browser a limit names runs too, under that limit.
        let browsers = TextBrowsers.toClose(table, allowed: allowed.union(owner(uid)?.limitedExecutables() ?? []))
        for program in browsers + servers where !closedPrograms.contains(program.pid) {
            closedPrograms.insert(program.pid)
            let isBrowser = TextBrowsers.isTextBrowser(program)
            let name = ExecCommand.fileName(program.executable)
            let speak = Translations.forLanguage(language(uid))
            // swift-format-ignore
            let browserTold = Phrase("{program} is closed: in this account, text browsers run only where a guardian allowed them.", context: "terminal", ["program": name])
            // swift-format-ignore
            let serverTold = Phrase("{program} is closed: in this account, display servers of your own run only where a guardian allowed them.", context: "terminal", ["program": name])
            // Its standard error is its terminal, as a rule: the line shows where it was started.
            let told = speak(isBrowser ? browserTold : serverTold)
            Terminals.write("\r\nscreenward: \(told)\r\n", to: "/proc/\(program.pid)/fd/2")
            kill(program.pid, SIGKILL)
            let user = owner(uid)?.user.name ?? "\(uid)"
            let values = ["executable": program.executable, "pid": "\(program.pid)", "user": user]
            // swift-format-ignore
            let browserClosed = Phrase("{executable} (pid {pid}), a text browser, was closed: a guardian may allow it (screenward allow exe:{executable} --user {user})", context: "event", values)
            // swift-format-ignore
            let serverClosed = Phrase("{executable} (pid {pid}), a display server no agent watches, was closed: a guardian may allow it (screenward allow exe:{executable} --user {user})", context: "event", values)
            record(uid, .programClosed, isBrowser ? browserClosed : serverClosed)
        }
    }

    /// The executable of `pid`'s parent ("" when it cannot be read).
    private static func parentExecutable(of pid: Int32) -> String {
        guard let ppid = parent(of: pid) else { return "" }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(ppid)/exe")) ?? ""
    }

    private static func parent(of pid: Int32) -> Int32? {
        // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) }
    }

    /// Whether `program` is a fork of one of `compositors` that runs its program still (wlroots
    /// forks to start Xwayland detached, and sway to run a command): the compositor's own code.
    private static func isFork(of compositors: Set<Int32>, _ program: ProgramFacts) -> Bool {
        guard let parent = parent(of: program.pid), compositors.contains(parent) else { return false }
        let parentProgram = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(parent)/exe")
        return parentProgram == program.executable
    }

    private func table(of uid: UInt32) -> [ProgramFacts] {
        (programs.tables[uid] ?? [:]).values.sorted { $0.pid < $1.pid }
    }

    private func push(_ uid: UInt32) {
        guard let frame = try? AgentLinkMethods.programs.frame(table(of: uid)) else { return }
        for peer in sessions.agents(of: uid) { peer.send(frame) }
    }

    private func refreshStore(_ uid: UInt32) {
        guard let owner = owner(uid) else { return }
        let store =
            owner.deniesAppInstallation
            ? NotInstalledPrograms.store(
                for: table(of: uid), allowed: allowed(uid), minter: TokenMinter(secret: owner.secret)) : nil
        if notInstalled[uid] != store {
            notInstalled[uid] = store
            sessions.shieldsChanged(uid: uid)
        }
    }
}
