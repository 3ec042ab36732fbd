@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
import Glibc
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

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
    /// What makes a browser's tab a website (nil: the browsers' reports are not taken).
    private let webAddresses: WebAddresses?
    private let shieldDefaults: ShieldDefaults?
    private var owners: [UInt32: ManagedUserOwner] = [:]
    private var engines: [UInt32: OwnerEngine] = [:]
    private var sessions: ManagedSessions!
    private var apps: ManagedAppRequests!
    private let timeZone: SystemTimeZone
    private let guardianGroup: String
    private var askExpiry: MainLoop.Registration?
    private var server: SocketServer?
    private let socketPath: String
    /// Launches managed users' extensions (nil when there is no user to run them as).
    private var extensions: DaemonExtensions?
    /// The connections of extensions the daemon started, and whose they are.
    private var extensionPeers: [ServicePeer: DaemonExtensions.Launch] = [:]
    /// Managed users' rules (`screenward limit … --user`).
    private let rules: DaemonRules
    /// What the managed users' programs are; their covered processes held.
    private var programGuard: ProgramGuard!
    /// The agents' system user: its connections are never limited.
    private let agentUID: UInt32
    /// Refused connections, recorded once a minute per child.
    private var attempts = AttemptRecorder()

    /// How many connections one user may hold open at once (root, the agents' and the
    /// extensions' users are not limited). A child's programs need a handful; a guardian's
    /// tray and command line fewer.
    static let connectionsPerUser = 32

    struct Options {
        var stateDirectory: URL
        var socketPath: String
        var runtimeDirectory: URL
        var agentExecutable: URL
        /// The browsers' native-messaging host (`screenward-web-host`) as installed.
        var webHost: URL
        var agentUser: String
        var appsDirectory: URL
        var extensionUser: String
        var extensionsDirectory: URL
        var warningLeads: [TimeInterval]
        /// A managed user's session bus; `%u` is their uid.
        var userBus: String
        /// Whose members are guardians.
        var guardianGroup: String
        /// The link naming the system's zone (`/etc/localtime`).
        var localtime: String
        /// The system's shared data folders (`/usr/local/share:/usr/share`): their desktop
        /// entries are the applications managed users' usage is filed under.
        var dataDirectories: String
    }

    init(options: Options, log: DaemonLog) throws {
        self.log = log
        timeZone = SystemTimeZone(localtime: options.localtime)
        guardianGroup = options.guardianGroup
        rules = DaemonRules(
            warningLeads: options.warningLeads,
            notifier: SessionNotifier(
                program: options.agentExecutable.deletingLastPathComponent().appendingPathComponent("screenward"),
                busTemplate: options.userBus,
                log: log),
            log: log)
        socketPath = options.socketPath
        try Self.makePrivate(options.stateDirectory)
        state = try DaemonState(url: options.stateDirectory.appendingPathComponent("daemon.sqlite"))
        homes = ChildHomes(stateDirectory: options.stateDirectory)
        service = ChildModeService(
            state: state, accounts: SystemAccountDirectory(), homes: homes,
            policy: GuardianPolicy(guardianGroup: options.guardianGroup))
        // The system's applications only: nothing a child installs in their home counts.
        catalog = ApplicationCatalog.loadFromEnvironment(["XDG_DATA_DIRS": options.dataDirectories]).0
        categories = try DataDirectory.categoryTable()
        var webHost: ManagedAppRequests.WebHostTrust?
        do {
            webAddresses = WebAddresses(suffixes: try PublicSuffixList.load())
            if FileManager.default.isExecutableFile(atPath: options.webHost.path) {
                webHost = ManagedAppRequests.WebHostTrust(executable: options.webHost.path)
            } else {
                log.warning(
                    """
                    there is no \(options.webHost.path): \
                    managed users' browsers are not followed (scripts/install.sh installs it)
                    """
                )
            }
        } catch {
            webAddresses = nil
            log.warning("managed users' websites are not counted or shielded: \(error)")
        }
        do {
            shieldDefaults = try ShieldDefaults.load()
        } catch {
            shieldDefaults = nil
            log.warning("the browsers' shield pages keep their built-in look: \(error)")
        }
        guard let agentAccount = try SystemAccountDirectory().account(named: options.agentUser) else {
            throw DaemonError(
                "there is no user \(options.agentUser) for the session agents to run as: scripts/install.sh creates it")
        }
        agentUID = agentAccount.uid
        guard FileManager.default.isExecutableFile(atPath: options.agentExecutable.path) else {
            throw DaemonError("the session agent \(options.agentExecutable.path) is missing")
        }
        try FileManager.default.createDirectory(
            at: options.runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let launcher = AgentLauncher(
            agentExecutable: options.agentExecutable, agentAccount: agentAccount, daemonSocket: options.socketPath,
            runtimeDirectory: options.runtimeDirectory, dataDirectories: options.dataDirectories, log: log)
        sessions = ManagedSessions(
            loop: loop, launcher: launcher, state: state, owner: { [unowned self] uid in owners[uid] }, log: log)
        let record: (ChildEvent, UInt32) -> Void = { [state, log] event, uid in
            Self.record(event, uid: uid, in: state, log: log)
        }
        let approvals = GuardianApprovals(
            services: GuardianApprovals.Services(
                guardianNames: { [guardianGroup] in Self.guardianNames(in: guardianGroup) },
                isGuardian: { [service] name in service.isGuardian(named: name) },
                show: { [unowned self] uid, ask in sessions.show(ask, uid: uid) },
                close: { [unowned self] uid, ask in sessions.closeAsk(ask, uid: uid) },
                checkCode: { [unowned self] guardian, code in
                    // Said so that the log (and the tests) show each code that reached
                    // the daemon; the code itself never is.
                    log.debug("checking a code for \(guardian)")
                    return service.checkGuardianCode(named: guardian, code: code)
                },
                record: record))
        apps = ManagedAppRequests(
            services: ManagedAppRequests.Services(
                owner: { [unowned self] uid in owners[uid] }, apps: InstalledApps(directory: options.appsDirectory),
                vetting: ProcessVetting(),
                record: record, webHost: webHost),
            approvals: approvals,
            send: { [unowned self] delivery in
                delivery.send()
                if let uid = delivery.peer.credentials?.uid { appsHeard(uid: uid) }
            })
        programGuard = ProgramGuard(
            installed: InstalledPrograms(catalog: catalog), loop: loop, sessions: sessions,
            owner: { [unowned self] uid in owners[uid] },
            allowed: { [unowned self] uid in owners[uid]?.allowedExecutables() ?? [] },
            record: { [state, log] uid, kind, detail in
                Self.record(
                    ChildEvent(at: Date(), kind: kind, actor: "screenward-daemon", detail: detail), uid: uid, in: state,
                    log: log)
            })
        sessions.extraStores = { [unowned self] uid in programGuard.extraStores(of: uid) }
        sessions.onClients = { [unowned self] uid, pids in programGuard.clients(pids, of: uid) }
        sessions.onCloseProgram = { [unowned self] uid, pid in programGuard.close(pid, of: uid) }
        sessions.onHeldElsewhere = { [unowned self] uid, pids in programGuard.heldElsewhere(pids, of: uid) }
        sessions.onWindowManagerGone = { [unowned self] uid in
            recordAttempt(
                .windowManagerStopped, uid: uid, actor: "screenward-daemon",
                detail:
                    """
                    the window manager of the session stopped (killed or crashed); \
                    its windows are followed and covered without it
                    """
            )
        }
        sessions.onShieldTampered = { [unowned self] uid, tampering in
            recordAttempt(
                .shieldTampered, uid: uid, actor: "screenward-daemon",
                detail: "the shield over \(tampering.application) was \(tampering.problem); it was put back")
        }
        sessions.onUnsupportedBrowser = { [unowned self] uid, browser in
            recordAttempt(
                .unsupportedBrowser, uid: uid, actor: "screenward-daemon",
                detail:
                    """
                    \(browser.browser) (\(browser.executable), pid \(browser.pid)) had the focus with \
                    no report of Screenward's extension; its windows are shielded as not supported
                    """
            )
        }
        sessions.onCovered = { [unowned self] uid, covered in
            programGuard.covered(covered, of: uid)
            // A shield of an app with a data source installed: start it; it redraws the
            // shield when it attaches (the agents hear of it).
            for app in Set(covered.map(\.owner)) {
                extensions?.wantShieldExtension(.shieldConfiguration, of: app, uid: uid)
            }
        }
        sessions.onPresence = { [unowned self] uid, present in
            owners[uid]?.service.isPresent = present
            engines[uid]?.run()
        }
        sessions.onFocusChanged = { [unowned self] uid in engines[uid]?.run() }
        service.owner = { [unowned self] uid in owners[uid] }
        service.calendar = { [timeZone] in timeZone.calendar() }
        if let account = try UnixAccount.named(options.extensionUser) {
            extensions = try DaemonExtensions(
                account: account, appsDirectory: options.appsDirectory, dataDirectory: options.extensionsDirectory,
                socketPath: options.socketPath,
                loop: loop, log: log, owners: { [unowned self] uid in owners[uid] })
        } else {
            log.warning(
                """
                there is no user \(options.extensionUser) to run apps' extensions as (scripts/install.sh creates it): \
                managed users' extensions are not started, and their callbacks wait for a monitor the app runs itself
                """
            )
        }
        if let extensions {
            service.extensionsListing = { owner, runs in try extensions.listing(for: owner, runs: runs) }
        }
        for user in try state.managedUsers() { open(user) }
        service.onManagedUsersChanged = { [unowned self] in managedUsersChanged() }
    }

    /// An attempt that may repeat many times a second: recorded once a minute per kind and
    /// user (`AttemptRecorder`), saying how many more came in between.
    private func recordAttempt(_ kind: ChildEvent.Kind, uid: UInt32, actor: String, detail: String) {
        let (record, skipped) = attempts.shouldRecord(kind.rawValue, uid: uid)
        guard record else { return }
        let more = skipped > 0 ? " (\(skipped) more in the minute before)" : ""
        Self.record(
            ChildEvent(at: Date(), kind: kind, actor: actor, detail: detail + more), uid: uid, in: state, log: log)
    }

    private static func record(_ event: ChildEvent, uid: UInt32, in state: DaemonState, log: DaemonLog) {
        log.info("\(event.kind): \(event.detail)")
        do { try state.record(event, uid: uid) } catch {
            log.error("could not record an event (\(error)): \(event.detail)")
        }
    }

    /// The members of the guardians' group, then root (always a guardian).
    private static func guardianNames(in guardianGroup: String) -> [String] {
        let members = (try? UnixGroup.named(guardianGroup))?.members ?? []
        return members.sorted() + ["root"]
    }

    /// Creates the state directory owned by root, mode 0700, and makes an existing one so:
    /// nobody else may read children's usage or change their limits.
    private static func makePrivate(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o700, .ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: directory.path)
    }

    // MARK: Managed users' owners

    private func open(_ user: ManagedUser) {
        do {
            let log = log
            let owner = try ManagedUserOwner(
                user: user, homes: homes, catalog: catalog, categories: categories,
                calendar: { [timeZone] in timeZone.calendar() },
                addresses: webAddresses, shieldDefaults: shieldDefaults, note: { line in log.info(line) }
            ) { problem in log.warning(problem) }
            let changed = LoopMailbox<Void> { [unowned self] in sessions.shieldsChanged(uid: user.uid) }
            if let extensions {
                owner.shieldRelay.canStartAction = { app in extensions.isInstalled(.shieldAction, of: app) }
                owner.shieldRelay.startableActions = { extensions.apps(with: .shieldAction) }
                owner.webShieldQuestions.startAction = { app in
                    guard extensions.isInstalled(.shieldAction, of: app) else { return false }
                    extensions.wantShieldExtension(.shieldAction, of: app, uid: user.uid)
                    return true
                }
            }
            owner.service.onShieldsChanged = { changed.post() }
            owner.service.onCallbacks = { callbacks in
                for callback in callbacks { log.info("\(user.name): monitor: \(callback)") }
            }
            owners[user.uid] = owner
            let engine = try OwnerEngine(service: owner.service) { wake in
                if wake == .clockChanged {
                    log.info("the wall clock was set: working out \(user.name)'s deadlines again")
                }
            }
            engines[user.uid] = engine
            engine.afterRun = { [unowned self] in extensions?.check(uid: user.uid) }
            engine.run()
            // The rules app's requests reach the owner through its host.
            owner.stack.host.afterRequest = { [unowned self] in appsHeard(uid: user.uid) }
            rules.open(owner, state: state)
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
            extensions?.stop(uid: uid)
            rules.close(uid: uid)
            owner.close(reason: "no longer managed")
            owners[uid] = nil
            engines[uid] = nil
        }
        for user in managed where owners[user.uid] == nil { open(user) }
        programGuard.manage(managed)
        sessions.managedUsersChanged()
        restrictBrowsers(forChildren: !managed.isEmpty)
    }

    /// The browsers' restrictions for managed users (no private windows, guests, other
    /// extensions…) are machine-wide: on while the computer has a managed user.
    private func restrictBrowsers(forChildren children: Bool) {
        do {
            if try BrowserInstallation().setChildRestrictions(children) {
                log.info(
                    """
                    the browsers' policies for managed users are \(children ? "on" : "off") \
                    (machine-wide; running browsers take them at their next start)
                    """
                )
            }
        } catch {
            log.error("the browsers' policies for managed users could not be set \(children ? "on" : "off"): \(error)")
        }
    }

    // MARK: Running

    /// Serves until SIGTERM or SIGINT.
    func run() throws {
        let handler = RequestsOnLoop { [unowned self] arrival in handle(arrival) }
        let socketDirectory = URL(fileURLWithPath: socketPath).deletingLastPathComponent()
        // Every local user must reach the socket (children read their usage, guardians act).
        try FileManager.default.createDirectory(
            at: socketDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let limit = ConnectionLimit(
            perUser: Self.connectionsPerUser, exempt: Set([0, agentUID] + (extensions.map { [$0.uid] } ?? [])))
        server = try SocketServer(
            path: socketPath, access: .everyone, identify: PeerCredentialReader.read, acceptingReports: true,
            limit: limit, handler: handler)
        loop.onSignal(SIGTERM) { [unowned self] in stop("SIGTERM") }
        loop.onSignal(SIGINT) { [unowned self] in stop("SIGINT") }
        sessions.start()
        programGuard.start(managing: (try? state.managedUsers()) ?? [])
        restrictBrowsers(forChildren: !owners.isEmpty)
        log.info("covered programs of managed users are \(programGuard.holdMethod)")
        warnAboutTracing()
        log.info("listening on \(socketPath); \(owners.count) managed user(s)")
        loop.run()
    }

    /// The app checks see a debugger only while it is attached: without Yama's
    /// ptrace_scope 2 (desktop/sysctl), a child could change an app under a debugger and
    /// let it go before it connects. Said once, at start, for the administrator.
    private func warnAboutTracing() {
        let path = "/proc/sys/kernel/yama/ptrace_scope"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let scope = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            return log.warning(
                """
                this kernel has no Yama ptrace_scope: a child can debug an installed app before it connects \
                (docs/architecture.md, what child mode does not protect against)
                """
            )
        }
        if scope < 2 {
            log.warning(
                """
                kernel.yama.ptrace_scope is \(scope): a child can debug an installed app before it connects; \
                set it to 2 (/etc/sysctl.d/60-screenward.conf)
                """
            )
        }
    }

    private func stop(_ reason: String) {
        log.info("stopping (\(reason))")
        sessions.stopAll()
        programGuard.stop()
        extensions?.stopAll()
        server?.close()
        for owner in owners.values { owner.close(reason: reason) }
        loop.quit()
    }

    private func handle(_ arrival: RequestsOnLoop.Arrival) {
        switch arrival {
        case .refused(let peer, let reason) where reason == ConnectionLimit.refusal:
            guard let uid = peer.credentials?.uid, owners[uid] != nil else {
                return log.warning("\(peer.credentials.map { "\($0)" } ?? "a peer"): \(reason)")
            }
            recordAttempt(
                .refused, uid: uid, actor: (try? UnixAccount.withID(UserID(rawValue: uid)))?.name ?? "uid \(uid)",
                detail: "connections over \(Self.connectionsPerUser) at once were turned away")
        case .refused(let peer, let reason):
            if let pid = peer.credentials?.pid, peer.credentials?.uid == extensions?.uid {
                extensions?.misbehaved(pid: pid, "it sent a line that is not a message: \(reason)")
            }
        case .gone(let peer):
            if let launch = extensionPeers.removeValue(forKey: peer) {
                owners[launch.uid]?.service.disconnected(peer)
                appsHeard(uid: launch.uid)
                return
            }
            if let uid = sessions.agentUser(peer) { owners[uid]?.shieldRelay.agentGone(peer) }
            sessions.disconnected(peer)
            apps.disconnected(peer)
            if let uid = peer.credentials?.uid, owners[uid] != nil { appsHeard(uid: uid) }
        case .frame(let frame, let peer):
            guard let head = try? FrameHead.decode(from: frame) else { return }
            if let kind = head.push {
                if kind == AppProof.push.name {
                    apps.proofReceived(frame, from: peer)
                } else if kind == AgentLinkMethods.askShieldExtension.name
                    || kind == AgentLinkMethods.cancelShieldQuestion.name
                {
                    relayShieldQuestion(kind, frame, from: peer)
                } else {
                    sessions.received(push: kind, frame: frame, from: peer)
                }
                return
            }
            guard let id = head.id, let method = head.method else { return }
            log.debug("\(peer): \(method)")
            switch method {
            case AgentLinkMethods.attach.name:
                let result = Result {
                    try sessions.attach(try AgentLinkMethods.attach.request(from: frame).body, from: peer)
                }
                peer.send(
                    AgentLinkMethods.attach.replyFrame(
                        id: id, result.mapError { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }))
                if case .success(let attachment) = result {
                    programGuard.agentAttached(peer, uid: attachment.uid)
                    sessions.sendShields(to: peer)
                    owners[attachment.uid]?.shieldRelay.tell([peer]).forEach { $0.send() }
                    owners[attachment.uid]?.browserTabsLines(to: [peer]).forEach { $0.send() }
                    apps.approvals.agentAttached(uid: attachment.uid)
                }
            case AgentLinkMethods.answerGuardian.name:
                answerGuardian(frame, id: id, from: peer)
            case DaemonAddress.placementMethod.name:
                // An extension the daemon started is served here, as its managed user's apps are.
                let managed = (try? service.caller(peer))?.role == .managed || launch(of: peer) != nil
                peer.send(
                    DaemonAddress.placementMethod.replyFrame(id: id, .success(AccountPlacement(managed: managed))))
            case ChildMethods.lock.name:
                let result = Result<Int, any Error> {
                    let name = try ChildMethods.lock.request(from: frame).body.user
                    let access = try service.rulesAccess(peer, user: name, changing: true, action: "child lock \(name)")
                    return sessions.lockSessions(of: access.uid, by: access.actor)
                }
                peer.send(ChildMethods.lock.replyFrame(id: id, result.mapError(ChildModeService.serviceError)))
            case ReportMethods.run.name:
                reportRequest(frame, id: id, from: peer)
            case _ where RulesMethods.answers(method):
                rulesRequest(frame, id: id, method: method, from: peer)
            case _ where ChildModeService.answers(method):
                if let reply = service.handle(frame: frame, from: peer) { peer.send(reply) }
            default:
                screenTimeRequest(frame, id: id, from: peer)
            }
        }
    }

    /// An app's report drawn by its extension for a managed user: the child's own, or a
    /// guardian's for a child they name. The data is gathered here; the extension runs
    /// (up to 10 s) on a thread of its own, as the extensions' user, with no network.
    private func reportRequest(_ frame: Data, id: UInt64, from peer: ServicePeer) {
        let request: ReportRunRequest
        let run: AppReportRun
        do {
            request = try ReportMethods.run.request(from: frame).body
            let owner = try service.readableOwner(request.user, on: peer, reading: "reports")
            guard let extensions else {
                throw ServiceError(
                    .unsupported,
                    """
                    apps' extensions are not started on this computer: \
                    there is no user to run them as (scripts/install.sh creates it)
                    """
                )
            }
            let (installed, launcher) = try extensions.reportRun(for: owner.user.uid, app: request.app)
            run = AppReportRun(
                data: owner.appReportData(calendar: timeZone.calendar(), language: "en"), installed: installed,
                launcher: launcher)
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        let log = log
        Thread.detachNewThread {
            let result = Result { try run.run(request, now: Date()) }.mapError(ChildModeService.serviceError)
            switch result {
            case .success:
                log.info(
                    """
                    reports: \(request.app)'s report extension drew \
                    \"\(request.context.rawValue)\" for \(request.user ?? "its user") (no network)
                    """
                )
            case .failure(let error): log.warning("reports: \(error.message)")
            }
            peer.send(ReportMethods.run.replyFrame(id: id, result))
        }
    }

    /// A rules request: a guardian's for a managed user (named), a managed user's own to read.
    private func rulesRequest(_ frame: Data, id: UInt64, method: String, from peer: ServicePeer) {
        struct Whose: Codable, Sendable { var user: String? }
        let user = (try? ServiceMethod<Whose, Empty>(method).request(from: frame))?.body.user
        let changing = !RulesMethods.reading.contains(method)
        // A guardian's list of requests without --user: every managed user's.
        if method == RulesMethods.requests.name, user == nil, (try? service.caller(peer))?.role == .guardian {
            var all: [TimeRequest] = []
            for (uid, owner) in owners.sorted(by: { $0.value.user.name < $1.value.user.name }) {
                for var request in (try? rules.app(for: uid)?.requests()) ?? [] {
                    request.user = owner.user.name
                    all.append(request)
                }
            }
            return peer.send(RulesMethods.requests.replyFrame(id: id, .success(all)))
        }
        if method == RulesMethods.guardianAction.name { return guardianAction(frame, id: id, from: peer) }
        let access: RulesAccess
        do {
            access = try service.rulesAccess(
                peer, user: user, changing: changing, action: method.replacingOccurrences(of: ".", with: " "))
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        guard let app = rules.app(for: access.uid) else {
            return peer.send(
                errorLine(
                    id: id,
                    ServiceError(.internalFailure, "\(access.user)'s rules are not running; the daemon's log says why"))
            )
        }
        guard let reply = app.handle(frame: frame, actor: access.actor, mayChange: access.mayChange) else { return }
        peer.send(reply)
        // A request's answer is recorded as such by the rules themselves.
        if changing, method != RulesMethods.answer.name, let outcome = try? RulesMethods.add.reply(from: reply) {
            do {
                try state.record(
                    ChildEvent(at: Date(), kind: .rulesChanged, actor: access.actor, detail: outcome.message),
                    uid: access.uid)
            } catch {
                log.error("could not record a change of \(access.user)'s rules: \(error)")
            }
        }
    }

    /// A managed user's tray asks for a guardian's action at their desktop: the guardian's
    /// dialog comes up in the session (as for an app's `.child`), and the action is done
    /// once a guardian's one-time code approved it. The reply waits for that.
    private func guardianAction(_ frame: Data, id: UInt64, from peer: ServicePeer) {
        let spec = RulesMethods.guardianAction
        do {
            let request = try spec.request(from: frame).body
            let access = try service.rulesAccess(
                peer, user: request.user, changing: false, action: "rules guardian-action")
            guard !access.mayChange else {
                throw ServiceError(
                    .invalidArgument,
                    """
                    a guardian does this with `screenward request approve`, \
                    `screenward pause` or `screenward child lock`
                    """
                )
            }
            let rulesApp = InstalledApp(
                bundleIdentifier: RulesApp.bundleIdentifier, displayName: "Screenward", executables: [])
            try apps.approvals.begin(
                .rules, app: rulesApp, child: access.user, uid: access.uid, requester: peer,
                action: request.action.request
            ) {
                [unowned self] outcome in
                let result = Result<RuleOutcome, any Error> {
                    switch outcome {
                    case .notApproved(let why): throw ServiceError(.unauthorized, "not approved: \(why)")
                    case .approved(let guardian):
                        guard let app = rules.app(for: access.uid) else {
                            throw ServiceError(.internalFailure, "\(access.user)'s rules are not running")
                        }
                        switch request.action {
                        case .lockNow:
                            let locked = sessions.lockSessions(of: access.uid, by: guardian)
                            return RuleOutcome(message: "Locked \(locked) session(s).")
                        case .pauseForAnHour:
                            return try app.pause(for: 3600, by: guardian)
                        case .add15Minutes, .add1Hour, .addRestOfDay:
                            return try app.giveExtraTime(request.action.extraTime ?? nil, by: guardian)
                        }
                    }
                }
                peer.send(spec.replyFrame(id: id, result.mapError(ChildModeService.serviceError)))
                appsHeard(uid: access.uid)
            }
            scheduleAskExpiry()
        } catch {
            peer.send(spec.replyFrame(id: id, .failure(ChildModeService.serviceError(error))))
        }
    }

    /// The managed user and app of an extension the daemon started, by the connection's pid.
    private func launch(of peer: ServicePeer) -> DaemonExtensions.Launch? {
        guard let extensions, let credentials = peer.credentials, credentials.uid == extensions.uid else { return nil }
        return extensions.launch(of: credentials.pid)
    }

    /// A request of an extension the daemon started: served by its managed user's owner as
    /// the app it was started for (and only that app). An extension neither asks for nor
    /// gives up authorization: that is the app's, with a guardian.
    private func extensionRequest(_ frame: Data, id: UInt64, method: String, client: String?, from peer: ServicePeer) {
        guard let launch = extensionPeers[peer] ?? launch(of: peer), let owner = owners[launch.uid] else {
            return peer.send(
                errorLine(id: id, ServiceError(.unauthorized, "this connection is not an extension the daemon started"))
            )
        }
        extensionPeers[peer] = launch
        guard client == launch.app else {
            if let pid = peer.credentials?.pid {
                extensions?.misbehaved(
                    pid: pid, "it spoke as \(client ?? "no app") though it was started for \(launch.app)")
            }
            return peer.send(
                errorLine(id: id, ServiceError(.unauthorized, "this extension was started for \(launch.app)")))
        }
        if method == AuthorizationMethods.request.name || method == AuthorizationMethods.revoke.name {
            return peer.send(
                errorLine(
                    id: id,
                    ServiceError(
                        .unauthorized,
                        "an extension cannot ask for or give up authorization: its app does, with a guardian")))
        }
        owner.service.handle(frame: frame, from: peer).forEach { $0.send() }
        appsHeard(uid: launch.uid)
    }

    /// A Screen Time API request: only managed users' apps have their owner here.
    private func screenTimeRequest(_ frame: Data, id: UInt64, from peer: ServicePeer) {
        if let extensions, peer.credentials?.uid == extensions.uid, let head = try? FrameHead.decode(from: frame),
            let method = head.method
        {
            return extensionRequest(frame, id: id, method: method, client: head.client, from: peer)
        }
        let caller: ChildModeService.Caller
        do {
            caller = try service.caller(peer)
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        guard caller.role == .managed else {
            return peer.send(
                errorLine(
                    id: id,
                    ServiceError(
                        .unauthorized,
                        """
                        the system daemon owns the limits of managed accounts only; \(caller.account.name)'s \
                        own agent (screenward-agent) is the Screen Time API's owner for this account
                        """
                    )))
        }
        apps.handle(frame: frame, from: peer, user: caller.account).forEach { $0.send() }
        appsHeard(uid: caller.account.uid)
        scheduleAskExpiry()
    }

    /// After a managed user's app was heard from (or went): the engine may have work,
    /// and the agents may have extension answers or news of extensions.
    private func appsHeard(uid: UInt32) {
        // A lie (a token never given) is only refused from the child's own programs; an
        // extension the daemon started is stopped for it too.
        for lie in owners[uid]?.service.takeLies() ?? [] {
            if let extensions, let credentials = lie.peer.credentials, credentials.uid == extensions.uid {
                extensions.misbehaved(pid: credentials.pid, "it used a token it was never given: \(lie.what)")
            }
        }
        engines[uid]?.run()
        owners[uid]?.shieldRelay.afterApps(agents: sessions.agents(of: uid)).forEach { $0.send() }
        owners[uid]?.afterBrowsers(agents: sessions.agents(of: uid)).forEach { $0.send() }
    }

    /// An agent's question for an app's shield extension, or its cancellation: only an
    /// attached agent asks, and only about its own user's apps.
    private func relayShieldQuestion(_ kind: String, _ frame: Data, from agent: ServicePeer) {
        guard let uid = sessions.agentUser(agent), let relay = owners[uid]?.shieldRelay else {
            return log.warning("\(agent) sent \(kind) without being an attached agent: ignored")
        }
        if kind == AgentLinkMethods.askShieldExtension.name,
            let question = try? AgentLinkMethods.askShieldExtension.body(from: frame)
        {
            let (deliveries, startAction) = relay.ask(question, from: agent)
            deliveries.forEach { $0.send() }
            if startAction { extensions?.wantShieldExtension(.shieldAction, of: question.owner, uid: uid) }
        } else if let cancel = try? AgentLinkMethods.cancelShieldQuestion.body(from: frame) {
            relay.cancel(cancel, from: agent)
        }
    }

    /// The guardian's answer from a dialog: only an attached agent of the child's session may send it.
    private func answerGuardian(_ frame: Data, id: UInt64, from peer: ServicePeer) {
        let spec = AgentLinkMethods.answerGuardian
        guard let uid = sessions.agentUser(peer) else {
            log.warning("\(peer) sent a guardian's answer without being an attached agent: refused")
            return peer.send(
                spec.replyFrame(
                    id: id, .failure(ServiceError(.unauthorized, "only a managed session's agent may answer"))))
        }
        guard let answer = try? spec.request(from: frame).body else {
            return peer.send(
                spec.replyFrame(id: id, .failure(ServiceError(.malformedMessage, "the answer is malformed"))))
        }
        apps.approvals.answer(answer, fromAgentOf: uid) { verdict in
            peer.send(spec.replyFrame(id: id, .success(verdict)))
        }
    }

    private func scheduleAskExpiry() {
        askExpiry?.cancel()
        guard let next = apps.approvals.expire() else { return }
        askExpiry = loop.schedule(after: .milliseconds(Int64(max(0, next.timeIntervalSinceNow) * 1000) + 10)) {
            [weak self] in
            self?.scheduleAskExpiry()
        }
    }
}

struct DaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
