@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
import Glibc
import Household
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// The composition root of the system daemon: its state, its socket, logind and the
/// managed sessions' agents, all on one loop (GLib's, which logind's signals need).
/// Requests arrive on the socket's threads and hop onto the loop, where everything that
/// owns state runs, so nothing here needs a lock.
final class Daemon {
    let log: DaemonLog
    private let loop = MainLoop()
    let state: DaemonState
    let service: ChildModeService
    private let homes: ChildHomes
    private let catalog: ApplicationCatalog
    private let categories: CategoryTable
    /// What makes a browser's tab a website (nil: the browsers' reports are not taken).
    private let webAddresses: WebAddresses?
    private let shieldDefaults: ShieldDefaults?
    var owners: [UInt32: ManagedUserOwner] = [:]
    var engines: [UInt32: OwnerEngine] = [:]
    var sessions: ManagedSessions!
    var apps: ManagedAppRequests!
    let timeZone: SystemTimeZone
    private let guardianGroup: String
    /// The system's shared data folders (where its desktop sessions are listed).
    private let dataDirectories: String
    private var askExpiry: MainLoop.Registration?
    private var server: SocketServer?
    private let socketPath: String
    /// Launches managed users' extensions (nil when there is no user to run them as).
    var extensions: DaemonExtensions?
    /// The connections of extensions the daemon started, and whose they are.
    var extensionPeers: [ServicePeer: DaemonExtensions.Launch] = [:]
    /// Managed users' rules (`screenward limit … --user`).
    let rules: DaemonRules
    /// What the managed users' programs are; their covered processes held.
    var programGuard: ProgramGuard!
    /// The agents' system user: its connections are never limited.
    let agentUID: UInt32
    /// Refused connections, recorded once a minute per child.
    private var attempts = AttemptRecorder()
    /// The last of each attempt counted and not recorded, and the timer that tells their count.
    private var repeated: [AttemptRecorder.Key: (kind: ChildEvent.Kind, actor: String, what: Phrase)] = [:]
    private var repeatsTimer: MainLoop.Registration?
    /// The household this computer is in, if any (docs/household.md).
    let household: DaemonHousehold

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
        dataDirectories = options.dataDirectories
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
        household = DaemonHousehold(stateDirectory: options.stateDirectory, log: log)
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
                    managed users' browsers are not followed (the screenward package or scripts/install.sh installs it)
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
                """
                there is no user \(options.agentUser) for the session agents to run as: the screenward package \
                (or scripts/install.sh) creates it
                """)
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
                record: record,
                // The dialog is in the child's session: its verdicts in the session's language.
                language: { [state] uid in state.languageToSpeak(uid: uid) }))
        var appServices = ManagedAppRequests.Services(
            owner: { [unowned self] uid in owners[uid] }, apps: InstalledApps(directory: options.appsDirectory),
            vetting: ProcessVetting(),
            record: record, webHost: webHost)
        appServices.showPicker = { [unowned self] show, uid in
            sessions.sendToAgent(AgentLinkMethods.showPicker, show, uid: uid)
        }
        appServices.showReport = { [unowned self] show, uid in
            sessions.sendToAgent(AgentLinkMethods.showReport, show, uid: uid)
        }
        appServices.showLabel = { [unowned self] show, uid in
            sessions.sendToAgent(AgentLinkMethods.showLabel, show, uid: uid)
        }
        apps = ManagedAppRequests(
            services: appServices,
            approvals: approvals,
            send: { [unowned self] delivery in
                delivery.send()
                if let uid = delivery.peer.credentials?.uid { appsHeard(uid: uid) }
            })
        programGuard = ProgramGuard(
            installed: InstalledPrograms(catalog: catalog), loop: loop, sessions: sessions,
            owner: { [unowned self] uid in owners[uid] },
            allowed: { [unowned self] uid in owners[uid]?.allowedExecutables() ?? [] },
            language: { [unowned self] uid in state.languageToSpeak(uid: uid) },
            record: { [unowned self] uid, kind, what in
                // The same thing again and again (a window re-mapped in a loop, held each
                // time) is one event a minute, with a count.
                recordAttempt(kind, uid: uid, actor: "screenward-daemon", what: what, alike: what.description)
            })
        sessions.extraStores = { [unowned self] uid in programGuard.extraStores(of: uid) }
        sessions.onClients = { [unowned self] uid, pids in programGuard.clients(pids, of: uid) }
        sessions.onCloseProgram = { [unowned self] uid, pid in programGuard.close(pid, of: uid) }
        sessions.onPickerClosed = { [unowned self] uid, closed in apps.pickerClosed(closed, fromAgentOf: uid) }
        sessions.onReportClosed = { [unowned self] uid, closed in apps.reportClosed(closed, fromAgentOf: uid) }
        sessions.onLabelShown = { [unowned self] uid, shown in apps.labelShown(shown, fromAgentOf: uid) }
        sessions.onHeldElsewhere = { [unowned self] uid, pids in programGuard.heldElsewhere(pids, of: uid) }
        sessions.onWindowManagerGone = { [unowned self] uid in
            // swift-format-ignore
            let what = Phrase("the window manager of the session stopped (killed or crashed); its windows are followed and covered without it", context: "event")
            recordAttempt(.windowManagerStopped, uid: uid, actor: "screenward-daemon", what: what)
        }
        sessions.onShieldTampered = { [unowned self] uid, tampering in
            // The agent says what was done to the shield in English (`ShieldAudit.Problem`).
            let what = Phrase(
                "the shield over {app} was {problem}; it was put back", context: "event",
                ["app": tampering.application, "problem": tampering.problem])
            recordAttempt(.shieldTampered, uid: uid, actor: "screenward-daemon", what: what)
        }
        sessions.onUnsupportedBrowser = { [unowned self] uid, browser in
            let values = ["browser": browser.browser, "executable": browser.executable, "pid": "\(browser.pid)"]
            // swift-format-ignore
            let what = Phrase("{browser} ({executable}, pid {pid}) had the focus with no report of Screenward's extension; its windows are shielded as not supported", context: "event", values)
            recordAttempt(.unsupportedBrowser, uid: uid, actor: "screenward-daemon", what: what)
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
        sessions.onDoorClosed = { [unowned self] uid, door in
            guard let user = owners[uid]?.user else { return }
            rules.tell(door.notice(in: state.languageToSpeak(uid: uid)), to: user)
        }
        sessions.onUsage = { [unowned self] uid in
            if let owner = owners[uid] { household.usageRecorded(in: owner) }
        }
        sessions.consoleAllowed = { [state] uid in state.consoleAllowed(uid: uid) }
        sessions.consoles.onUsage = { [unowned self] uid in
            engines[uid]?.run()
            if let owner = owners[uid] { household.usageRecorded(in: owner) }
        }
        service.onConsoleAccessChanged = { [unowned self] _ in sessions.managedUsersChanged() }
        household.children = { [unowned self] in householdChildren() }
        household.deliver = { [unowned self] child, intervals in deliverElsewhere(child: child, intervals) }
        household.adopt = { [unowned self] child, version, rules in adoptHouseholdRules(child, version, rules) }
        household.applyAnswer = { [unowned self] child, answer in applyElsewhereAnswer(child: child, answer) }
        household.countExtraTime = { [unowned self] child, grants in countExtraTimeElsewhere(child: child, grants) }
        service.eventsElsewhere = { [unowned self] child in household.sync?.events(elsewhereOf: child) ?? [] }
        service.householdRefusal = { [unowned self] in household.refusalOfManaging() }
        service.onGuardianChangedManaged = { [unowned self] name, managed, guardian in
            household.publishChild(name, managed: managed, by: guardian)
        }
        household.followChildren = { [unowned self] changes in followHouseholdChildren(changes) }
        household.guardians = { [guardianGroup] in Self.guardianNames(in: guardianGroup) }
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
                there is no user \(options.extensionUser) to run apps' extensions as (the screenward package \
                or scripts/install.sh creates it): managed users' extensions are not started, and their \
                callbacks wait for a monitor the app runs itself
                """
            )
        }
        if let extensions {
            service.extensionsListing = { owner, runs in try extensions.listing(for: owner, runs: runs) }
        }
        for user in try state.managedUsers() { open(user) }
        service.onManagedUsersChanged = { [unowned self] in managedUsersChanged() }
        service.onSessionLanguageChanged = { [unowned self] uid, language in
            log.info(
                "\(owners[uid]?.user.name ?? "uid \(uid)")'s session speaks \(language): their rules and shields too")
            sessions.languageChanged(uid: uid, to: language)
        }
    }

    /// An attempt that may repeat many times a second: recorded once a minute per kind and user
    /// (`alike`: per such detail too), and how many more came in that minute told once it is
    /// over (`AttemptRecorder`).
    private func recordAttempt(
        _ kind: ChildEvent.Kind, uid: UInt32, actor: String, what: Phrase, alike detail: String = ""
    ) {
        let key = kind.rawValue + " " + detail
        guard attempts.shouldRecord(key, uid: uid) else {
            repeated[AttemptRecorder.Key(uid: uid, kind: key)] = (kind, actor, what)
            tellRepeatsWhenDue()
            return
        }
        Self.record(ChildEvent(at: Date(), kind: kind, actor: actor, phrase: what), uid: uid, in: state, log: log)
    }

    /// Once a minute of repeats is over, says how many there were.
    private func tellRepeatsWhenDue() {
        guard repeatsTimer == nil, let next = attempts.nextDue else { return }
        let delay = Int64(max(0, next.timeIntervalSinceNow) * 1000) + 1
        repeatsTimer = loop.schedule(after: .milliseconds(delay)) { [weak self] in
            guard let self else { return }
            repeatsTimer = nil
            for (key, count) in attempts.due() {
                guard let last = repeated.removeValue(forKey: key) else { continue }
                let values: [String: any PhraseFilling] = ["event": last.what, "count": String(count)]
                let phrase =
                    count == 1
                    ? Phrase("{event} (once more in the minute after)", context: "event", values)
                    : Phrase("{event} ({count} more times in the minute after)", context: "event", values)
                Self.record(
                    ChildEvent(at: Date(), kind: last.kind, actor: last.actor, phrase: phrase), uid: key.uid, in: state,
                    log: log)
            }
            tellRepeatsWhenDue()
        }
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
            owner.service.onAccessAsked = { [unowned self] app, item in accessAsked(app, item, by: user) }
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
            // What this computer last read of the household's other computers counts at
            // once, whether or not the database can be reached now.
            do {
                owner.stack.useElsewhere(
                    try owner.ledger.elsewhereIntervals(since: Date().addingTimeInterval(-HouseholdSync.horizon)))
            } catch {
                log.error("\(user.name)'s usage on the household's other computers cannot be read: \(error)")
            }
            engine.afterRun = { [unowned self] in extensions?.check(uid: user.uid) }
            engine.run()
            // The rules app's requests reach the owner through its host.
            owner.stack.host.afterRequest = { [unowned self] in appsHeard(uid: user.uid) }
            rules.open(owner, state: state)
            X11SessionChoice.apply(to: user.name, dataDirectories: dataDirectories, log: log)
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
        household.childrenChanged()
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
        household.start()
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
        household.stop()
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
                what: Phrase(
                    "connections over {count} at once were turned away", context: "event",
                    ["count": String(Self.connectionsPerUser)]))
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
            // Whether or not the session still counts it as its agent (its exit may be heard first).
            apps.agentGone(peer)
            sessions.disconnected(peer)
            apps.disconnected(peer)
            if let uid = peer.credentials?.uid, owners[uid] != nil { appsHeard(uid: uid) }
        case .frame(let frame, let peer):
            received(frame, from: peer)
        }
    }

    func scheduleAskExpiry() {
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
