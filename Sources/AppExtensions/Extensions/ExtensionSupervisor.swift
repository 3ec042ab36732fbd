import Foundation
import Glibc
import ScreenwardBasics
import UsageLedger

/// Starts apps' extensions when the owner needs them, as the system does on Apple's
/// platforms, and keeps them in their box: a monitor when callbacks are owed to an app
/// no monitor of which is attached, a shield configuration data source when one of the
/// app's shields must be drawn. An extension exits on its own when idle (the API's base
/// classes do this when started here); one that does not acknowledge its callbacks in
/// time is killed. Each callback a failed run leaves unacknowledged counts an attempt;
/// after two it is recorded as failed instead of sent again.
///
/// Single-threaded: the owner calls it on its loop, and hands it the exits (which
/// arrive on other threads) there too.
public final class ExtensionSupervisor {
    /// What the supervisor needs of the owner's world.
    public struct Services {
        /// The apps installed for this owner, by bundle identifier.
        public var apps: () -> [String: InstalledApp]
        /// Apps owed callbacks with no monitor attached.
        public var monitorsWanted: () -> Set<String>
        /// The callbacks an app's monitor has not acknowledged.
        public var callbacksOwed: (String) -> [Int64]
        /// Starts the process; its exit must come back through `exited(_:_:)` on the loop.
        public var start: (AppExtension, _ app: InstalledApp, _ run: Int64) throws -> ExtensionProcess
        /// Calls the supervisor's `check()` again after this long.
        public var checkAgain: (Duration) -> Void
        public var log: (String) -> Void
        /// Whether any process of this process group is left (a zombie included): what a
        /// killed extension started still counts against its user's process limit.
        public var groupRemains: (Int32) -> Bool

        public init(
            apps: @escaping () -> [String: InstalledApp], monitorsWanted: @escaping () -> Set<String>,
            callbacksOwed: @escaping (String) -> [Int64],
            start: @escaping (AppExtension, InstalledApp, Int64) throws -> ExtensionProcess,
            checkAgain: @escaping (Duration) -> Void,
            log: @escaping (String) -> Void, groupRemains: @escaping (Int32) -> Bool = ExtensionProcess.groupRemains
        ) {
            self.apps = apps
            self.monitorsWanted = monitorsWanted
            self.callbacksOwed = callbacksOwed
            self.start = start
            self.checkAgain = checkAgain
            self.log = log
            self.groupRemains = groupRemains
        }
    }

    /// How long a monitor has to acknowledge what it was sent.
    public static let monitorPatience: Duration = .seconds(10)
    /// Deliveries of one callback before it is recorded as failed.
    public static let attemptsPerCallback = 2

    private let services: Services
    private let ledger: Ledger
    private let now: () -> Date

    private struct Running {
        var process: ExtensionProcess
        var run: Int64
        /// Since when callbacks have been owed to this monitor without being acknowledged.
        var owedSince: Date?
    }
    private var running: [ExtensionKey: Running] = [:]
    /// A monitor killed or crashed is started again only after this, and once nothing of
    /// its process group is left (or `leftoverPatience` has passed): what it started dies
    /// with it, but the kernel counts a dying process against the user's process limit
    /// until it is reaped, and a retry started before could not fork.
    static let restartPause: TimeInterval = 0.5
    static let leftoverPatience: TimeInterval = 10
    private var notBefore: [ExtensionKey: Date] = [:]
    /// The process group of the run that was killed or crashed, and when it ended.
    private var leftovers: [ExtensionKey: (group: Int32, since: Date)] = [:]

    public struct ExtensionKey: Hashable, Sendable {
        public var app: String
        public var point: ExtensionPoint
    }

    public init(services: Services, ledger: Ledger, now: @escaping () -> Date = { Date() }) {
        self.services = services
        self.ledger = ledger
        self.now = now
        try? ledger.endOpenExtensionRuns(at: now())
    }

    /// The extensions running now.
    public var runningExtensions: [ExtensionKey: Int32] { running.mapValues(\.process.pid) }

    /// Looks at what is owed: starts the monitors wanted, and kills a monitor that sits
    /// on its callbacks past its patience. Call after each engine step and request.
    public func check() {
        let time = now()
        let apps = services.apps()
        for app in services.monitorsWanted().sorted() {
            let key = ExtensionKey(app: app, point: .deviceActivityMonitor)
            guard running[key] == nil, let installed = apps[app],
                let monitor = installed.extensions[.deviceActivityMonitor]
            else { continue }
            if let pause = notBefore[key], pause > time {
                services.checkAgain(.milliseconds(Int64(pause.timeIntervalSince(time) * 1000) + 10))
                continue
            }
            notBefore[key] = nil
            if let left = leftovers[key], time.timeIntervalSince(left.since) < Self.leftoverPatience,
                services.groupRemains(left.group)
            {
                services.checkAgain(.milliseconds(100))
                continue
            }
            leftovers[key] = nil
            start(monitor, of: installed, key: key)
        }
        for (key, entry) in running where key.point == .deviceActivityMonitor {
            let owed = !services.callbacksOwed(key.app).isEmpty
            guard owed else {
                running[key]?.owedSince = nil
                continue
            }
            let since = entry.owedSince ?? time
            running[key]?.owedSince = since
            let waited = time.timeIntervalSince(since)
            let patience = Double(Self.monitorPatience.components.seconds)
            if waited >= patience {
                entry.process.kill(because: "it did not acknowledge its callbacks within \(Int(patience)) s")
            } else {
                services.checkAgain(.milliseconds(Int64((patience - waited) * 1000) + 50))
            }
        }
    }

    /// Starts `app`'s shield configuration data source if it has one and it is not running.
    public func wantShieldExtension(_ point: ExtensionPoint, of app: String) {
        let key = ExtensionKey(app: app, point: point)
        guard running[key] == nil, let installed = services.apps()[app], let found = installed.extensions[point] else {
            return
        }
        start(found, of: installed, key: key)
    }

    /// Whether `app` has an extension for `point` installed (the owner may wait for it).
    public func isInstalled(_ point: ExtensionPoint, of app: String) -> Bool {
        services.apps()[app]?.extensions[point] != nil
    }

    private func start(_ found: AppExtension, of app: InstalledApp, key: ExtensionKey) {
        let time = now()
        let run: Int64
        do {
            run = try ledger.beginExtensionRun(client: app.bundleIdentifier, point: found.point, pid: nil, at: time)
        } catch {
            return services.log(
                "could not record a run of \(app.bundleIdentifier)'s \(found.point) (\(error)); not started")
        }
        do {
            let process = try services.start(found, app, run)
            running[key] = Running(process: process, run: run)
            try? ledger.setExtensionRunPID(run, pid: process.pid)
            services.log("started \(app.bundleIdentifier)'s \(found.point) extension (pid \(process.pid))")
        } catch {
            services.log(
                "could not start \(app.bundleIdentifier)'s \(found.point) extension \(found.executable): \(error)")
            try? ledger.endExtensionRun(run, at: time, outcome: .failedToStart, detail: "\(error)")
            if found.point == .deviceActivityMonitor {
                countFailedDelivery(app.bundleIdentifier, why: "the monitor could not start: \(error)")
            }
        }
    }

    /// An extension process ended (on the loop).
    public func exited(_ exit: ExtensionProcess.Exit) {
        let key = ExtensionKey(app: exit.app, point: exit.point)
        guard let entry = running[key], entry.process.pid == exit.pid else { return }
        let process = entry.process
        running[key] = nil
        let outcome: ExtensionRunOutcome
        let detail: String
        if let reason = exit.killedBecause {
            outcome = .killed
            detail = "killed: \(reason)"
        } else if exit.signalled {
            outcome = .crashed
            detail = "ended by signal \(exit.status)"
        } else if exit.status != 0 {
            outcome = .crashed
            detail = "exited with status \(exit.status)"
        } else {
            outcome = .exited
            detail = "exited when idle"
        }
        try? ledger.endExtensionRun(entry.run, at: now(), outcome: outcome, detail: detail)
        if outcome == .killed || outcome == .crashed {
            notBefore[key] = now().addingTimeInterval(Self.restartPause)
            leftovers[key] = (process.pid, now())
        }
        services.log("\(process.app)'s \(process.point) extension (pid \(process.pid)) \(detail)")
        // A monitor that left callbacks unacknowledged failed them, however it ended.
        if process.point == .deviceActivityMonitor, outcome != .exited || !services.callbacksOwed(process.app).isEmpty {
            countFailedDelivery(process.app, why: outcome == .exited ? "it exited without acknowledging them" : detail)
        }
        check()
    }

    /// Every callback owed to `app` now was sent to a monitor that failed (or that
    /// could not start): one more attempt each.
    private func countFailedDelivery(_ app: String, why: String) {
        let owed = services.callbacksOwed(app)
        guard !owed.isEmpty else { return }
        do {
            let givenUp = try ledger.recordFailedDelivery(
                client: app, sequences: owed, limit: Self.attemptsPerCallback, at: now(), why: why)
            if !givenUp.isEmpty {
                services.log(
                    """
                    \(app): callback(s) \(givenUp.map(String.init).joined(separator: ", ")) failed \
                    \(Self.attemptsPerCallback) times and are recorded as failed
                    """
                )
            }
        } catch {
            services.log("could not count a failed delivery to \(app)'s monitor (\(error))")
        }
    }

    /// A client sent what no honest one sends (see `ServiceHost.onMisbehaviour`): if it is
    /// an extension started here, or a process it started, the extension is killed and
    /// the run records why. Anything else is only refused (the owner already did that).
    public func misbehaved(pid: Int32, _ what: String) {
        let group = getpgid(pid)
        for entry in running.values where entry.process.pid == pid || entry.process.pid == group {
            services.log(
                "\(entry.process.app)'s \(entry.process.point) extension (pid \(entry.process.pid)) is stopped: \(what)"
            )
            entry.process.kill(because: what)
        }
    }

    /// The owner stops: its extensions stop with it.
    public func stopAll() {
        for entry in running.values {
            entry.process.kill(because: "the owner stopped")
            try? ledger.endExtensionRun(entry.run, at: now(), outcome: .stopped, detail: "the owner stopped")
        }
        running.removeAll()
    }
}
