import AppExtensions
import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// The state owner: authorizations, settings stores and monitored activities, and
/// the engine that runs them. Clients reach it through `ScreenwardIPC` requests.
///
/// It runs on its owner's loop (the agent's, the daemon's; a test's thread), inside an
/// `OwnerStack`, and keeps no timers: the caller runs `runDue()` when `nextDeadline()` comes, and
/// whenever the focus, presence or clock changes. Lines it produces come back as
/// `Delivery` values for the caller to send once the step is over.
public final class ScreenTimeService {
    public let ledger: Ledger
    let engine: MonitorEngine
    let usage: any EventUsageSource
    public let directory: ItemDirectory
    let monitors: any MonitorDispatch
    let now: @Sendable () -> Date
    let calendar: @Sendable () -> Calendar
    /// Whether the person is using the device (interval callbacks wait while not).
    public var isPresent = true

    /// Called after any store changed (the shield presenter redraws from `effectiveShields`).
    public var onShieldsChanged: (@Sendable () -> Void)?
    /// Called with the owner when an app's shield configuration data source attaches
    /// (from inside a use of the service: post to the loop's mailbox, never call back in).
    public var onShieldDataSourceAttached: (@Sendable (String) -> Void)?
    /// An app's action delegate answered `.askForAccess` on `item`'s shield (the owner app, the
    /// item): a managed user's daemon asks the guardians; a person's agent has nobody to ask.
    public var onAccessAsked: ((_ owner: String, _ item: ShieldedItem) -> Void)?
    /// Called with each batch of callbacks as the engine hands them out (logs, benchmarks).
    public var onCallbacks: (@Sendable ([MonitorCallback]) -> Void)?
    /// Problems that are not any one client's fault (a damaged store, a failed write).
    public var report: @Sendable (String) -> Void = { _ in }

    /// Every browser's tabs, as their hosts report them (nil: this owner does not take
    /// them, and says why with `browserTabsMissing`).
    public var browserTabs: BrowserTabs?
    public var browserTabsMissing = "websites are not counted: this state owner does not take the browsers' reports"
    /// Whether the browsers shield pages at an address (`WebShields.addresses`): set for an
    /// account a guardian manages.
    public var shieldsAddresses = false
    /// Called when a browser's tabs changed (from inside a use of the service: post to the
    /// loop's mailbox).
    public var onBrowserTabsChanged: (@Sendable () -> Void)?
    /// Goes up at each change of a browser's tabs (the daemon passes the news on when it moved).
    public private(set) var browserTabsChanges = 0

    /// Shield pages shown and buttons pressed in the browsers, for the agent's loop.
    var webShieldEvents: [(WebShieldEvent, ServicePeer)] = []
    /// Called when one came (from inside a use of the service: post to the loop's mailbox).
    public var onWebShieldEvent: (@Sendable () -> Void)?

    public func takeWebShieldEvents() -> [(WebShieldEvent, ServicePeer)] {
        defer { webShieldEvents.removeAll() }
        return webShieldEvents
    }

    /// The hosts that reported, to push `WebShields` to.
    var webHosts: [UInt64: ServicePeer] = [:]
    /// The connections watching each app's authorization status (`authorization.watch`).
    var statusWatchers: [String: [ServicePeer]] = [:]

    private var cachedShields: EffectiveShields?
    /// The apps' shield configuration data sources and action delegates, and what they were asked.
    var shieldExtensions = ShieldExtensions()
    /// Requests only a lying client sends, since the last `takeLies()`.
    var lies: [ClientLieReport] = []

    /// The lies told since the last call (the host reports them: the owner stops an
    /// extension it started that lies).
    public func takeLies() -> [ClientLieReport] {
        defer { lies.removeAll() }
        return lies
    }

    public static let maximumStoresPerClient = 50
    public static let maximumEventsPerActivity = 256
    public static let maximumNameLength = 200
    public static let maximumStoreNameLength = 200
    /// Far more than a person picks at once; bounds what one request can make the owner issue and record.
    public static let maximumSelectionItems = 1_000
    /// Apps built into the owner (our rules): trusted code, so Apple's quotas for apps
    /// (20 activities, intervals of 15 minutes at least) do not bind them.
    public static let builtInClients: Set<String> = ["org.screenward.rules"]

    public init(
        ledger: Ledger, usage: any EventUsageSource, directory: ItemDirectory,
        now: @escaping @Sendable () -> Date = { Date() }, calendar: @escaping @Sendable () -> Calendar = { .current }
    ) throws {
        self.ledger = ledger
        engine = try MonitorEngine(ledger: ledger, usage: usage)
        self.usage = usage
        self.directory = directory
        monitors = ConnectedMonitors(ledger: ledger)
        self.now = now
        self.calendar = calendar
    }

    // MARK: Running the engine

    /// Delivers every callback due by now.
    public func runDue() -> [Delivery] {
        let time = now()
        do {
            return try engineStep(at: time) { queue in
                try engine.takeDue(now: time, calendar: calendar(), isPresent: isPresent, alongside: queue)
            }
        } catch {
            report("the monitor engine could not record its progress (\(error)); it tries again at the next change")
            return []
        }
    }

    /// When `runDue()` must run next (nil: not until something changes).
    public func nextDeadline() -> Date? {
        engine.nextDeadline(now: now(), calendar: calendar(), isPresent: isPresent)
    }

    /// Runs one engine step; the callbacks it decides on are queued for their monitors
    /// in the transaction that records them as fired. Returns what can be sent now.
    func engineStep(at time: Date, _ step: (_ queue: @escaping AlongsideWrite) throws -> [MonitorCallback]) throws
        -> [Delivery]
    {
        var queued: [QueuedCallback] = []
        let monitors = monitors
        let callbacks = try step { callbacks, db in queued = try monitors.queue(callbacks, at: time, in: db) }
        guard !callbacks.isEmpty else { return [] }
        onCallbacks?(callbacks)
        return monitors.deliveries(of: queued)
    }

    // MARK: Monitor extensions

    /// The apps owed callbacks that no attached monitor receives now: the owner starts
    /// their monitor extension, and the callbacks go out when it attaches.
    public func monitorsWanted() -> Set<String> {
        let owed: Set<String>
        do {
            owed = try ledger.clientsWithOutbox()
        } catch {
            report("could not read the monitor outbox (\(error))")
            return []
        }
        return owed.filter { !monitors.hasMonitor(owner: $0) }
    }

    /// The callbacks `owner`'s monitor has not acknowledged yet.
    public func callbacksOwed(to owner: String) -> [Int64] {
        ((try? ledger.outbox(client: owner)) ?? []).map(\.sequence)
    }

    // MARK: Shields

    /// The union of every store of every client (device-wide tokens).
    public var effectiveShields: EffectiveShields {
        if let cachedShields { return cachedShields }
        var problems: [String] = []
        let stores = (try? ledger.allStores(problems: &problems)) ?? []
        problems.forEach(report)
        let shields = EffectiveShields(stores: stores)
        cachedShields = shields
        return shields
    }

    func storesChanged() {
        cachedShields = nil
        onShieldsChanged?()
        pushWebShields(to: Array(webHosts.values))
    }

    /// What the browsers must shield now.
    public var webShields: WebShields {
        let names: [String: String]
        do {
            names = try ledger.labels(kind: .webDomain)
        } catch {
            report("could not read the websites' names (\(error)); the browsers keep their shields")
            names = [:]
        }
        let table = directory.categories
        func categories(_ name: String) -> Set<ActivityCategoryToken> {
            Set(table.category(ofWebsite: name).map { [directory.minter.categoryToken(forCategory: $0)] } ?? [])
        }
        var candidates = names.map {
            WebShields.Candidate(name: $1, token: WebDomainToken(opaqueValue: $0), categories: categories($1))
        }
        let named = Set(names.values)
        for domain in table.websites.keys where !named.contains(domain) {
            candidates.append(
                WebShields.Candidate(
                    name: domain, token: directory.minter.webDomainToken(forDomain: domain),
                    categories: categories(domain)))
        }
        return WebShields(shields: effectiveShields, candidates: candidates, addresses: shieldsAddresses)
    }

    func pushWebShields(to hosts: [ServicePeer]) {
        guard !hosts.isEmpty, let frame = try? WebHostMethods.shields.frame(webShields) else { return }
        for host in hosts { host.send(frame) }
    }

    // MARK: Connections

    public func disconnected(_ peer: ServicePeer) {
        for client in statusWatchers.keys { statusWatchers[client]?.removeAll { $0 == peer } }
        monitors.detach(peer)
        shieldExtensions.detach(peer)
        webHosts[peer.number] = nil
        if browserTabs?.isEmpty == false {
            browserTabs?.forget(connection: peer.number)
            browserTabsChanges += 1
            onBrowserTabsChanged?()
        }
    }

    // MARK: Websites

    /// A host's report. (In a managed account the daemon has put the browser it vetted in
    /// `browserPID`.)
    package func takeBrowserWindows(_ report: BrowserWindowsReport, from peer: ServicePeer) throws {
        guard browserTabs != nil else { throw ServiceError(.unsupported, browserTabsMissing) }
        guard report.windows.count <= BrowserWindowsReport.maximumWindows,
            report.windows.allSatisfy({
                ($0.tab?.title.count ?? 0) <= BrowserWindowsReport.maximumTitleLength
                    && ($0.tab?.url.utf8.count ?? 0) <= WebAddresses.maximumURLLength
            })
        else {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "a browser report with more than {maximum} windows, or a title or URL too long to be a page's",
                    context: "service", ["maximum": "\(BrowserWindowsReport.maximumWindows)"]))
        }
        browserTabs?.update(report, from: peer.number)
        browserTabsChanges += 1
        onBrowserTabsChanged?()
        if webHosts.updateValue(peer, forKey: peer.number) == nil { pushWebShields(to: [peer]) }
    }
}
