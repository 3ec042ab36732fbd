import ArgumentParser
import Foundation
import Glibc
import ScreenwardCore
import SessionHarness
import X11Session

/// Child mode's boundary, timed: a new window of a shielded application that claims to be
/// another (Debian's xterm as `-name mousepad -class Mousepad`, the child's own) until its
/// shield is over it and focused, with its identity taken from its process (the daemon reads
/// /proc and answers the agent); and a guardian's `child.list` answered by the daemon while
/// the child holds 1,000 connections to it. Everything real but logind. Needs root.
///
/// The shield's time is the X server's record: from the window entering
/// `_NET_CLIENT_LIST` to a shield viewable with its frame, read as soon as the record shows
/// it (an upper bound). Openbox does not focus a window started this way, so its shield is
/// shown without the focus, as the agent does for a window in the background. Whether the process
/// is held is read from /proc by this program after that, so its time is an upper bound.
/// The guardian's calls are made by a real guardian account (a script run with runuser,
/// one connection, one request after another), each timed from its write to its answer.
struct ChildBoundaryBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-boundary",
        abstract:
            """
            A disguised window of a shielded app → covered (identity from its process); a guardian's call during \
            a flood (root).
            """
    )

    enum Targets {
        static let newWindow = Target(
            figure: "disguised new window of a shielded app → its shield over it, p99",
            limit: 20, unit: "ms", digits: 0
        )
        static let guardian = Target(
            figure: "a guardian's child.list while the child floods the daemon, p99", limit: 100, unit: "ms", digits: 1)
    }

    @Option(help: "New disguised windows.")
    var windows = 30
    @Option(help: "A guardian's calls during the flood.")
    var calls = 200
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard windows >= 1, calls >= 1 else { throw ValidationError("--windows ≥ 1, --calls ≥ 1") }
        if let missing = ManagedDesktopRig.missingRequirement() { throw ValidationError("cannot run: \(missing)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xterm") else {
            throw ValidationError("cannot run: xterm is not installed (apt-get install xterm)")
        }
    }

    func run() throws {
        let rig = try DaemonRig()
        rig.machineApplications = ["debian-xterm.desktop", "debian-uxterm.desktop", "org.xfce.mousepad.desktop"]
        let desktop = try ManagedDesktopRig(fixture: rig, windows: ["notes.Notes:Notes"])
        defer {
            _ = try? rig.users.run(as: "root", ["pkill", "-KILL", "-u", desktop.kid])
            desktop.tearDown()
        }
        print(
            """
            Screenward child-boundary benchmark on \(desktop.display): \(windows) disguised windows, \(calls) \
            guardian calls during a flood
            """
        )
        try desktop.startSession(shielding: [
            AppIdentity(key: .desktopEntry("debian-xterm.desktop"), displayName: "XTerm")
        ])
        XConnection.useAuthorityFile(desktop.authority)
        let record = try ShieldRecord(display: desktop.display)
        let driver = try FocusDriver(display: desktop.display)

        var shielded: [Double] = []
        var held: [Double] = []
        // One more first, not counted but printed: the session's first shield (GTK's first
        // map, the first identity asked) is the slowest; the figures are the steady state.
        var first: Double = 0
        for index in 0...windows {
            try driver.activate(desktop.windows[0])
            try settleClientList(driver)
            var pid: Int32 = 0
            let started = Date()
            driver.log.poll()
            record.update()
            let firstClientListChange = driver.log.clientListChangeTimes.count
            let name = "disguise\(index)"
            _ = try desktop.startAsKid(["xterm", "-name", name, "-class", "Mousepad", "-e", "sleep", "600"])
            // Read from the record (event by event), not by searching: a search as the
            // child takes longer than what is measured.
            let target = try record.waitForWindow(instance: name) { driver.log.poll() }
            let end = try record.waitUntilShown(over: target) { driver.log.poll() }
            driver.log.poll()
            guard driver.log.clientListChangeTimes.count > firstClientListChange else {
                throw HarnessError.failed("no client list change for \(target)")
            }
            let managedAt = driver.log.clientListChangeTimes[firstClientListChange]
            let span = ShieldSpan(start: managedAt, end: end, shield: target, stamped: false)
            let found = String(UInt(target.rawValue))
            pid =
                Int32(
                    try desktop.runAsKid(["xdotool", "getwindowpid", found]).output.trimmingCharacters(
                        in: .whitespacesAndNewlines)) ?? 0
            try desktop.waitFor("the disguised xterm held") { Self.isHeld(pid) }
            if index == 0 {
                first = span.milliseconds
            } else {
                shielded.append(span.milliseconds)
                held.append(Date().timeIntervalSince(started) * 1000)
            }
            kill(pid, SIGKILL)
        }

        let guardian = try rig.users.add("guard", groups: [rig.guardianGroup])
        let flood = try ConnectionFlood(desktop: desktop)
        defer { flood.stop() }
        let answered = try guardianCalls(as: guardian, rig: rig)

        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()
        print("")
        for (name, label, samples) in [
            (
                "new_window",
                "disguised new window managed → its shield mapped over it (upper bound: read when seen)",
                shielded
            ),
            (
                "held", "…and its process held, read from /proc (upper bound: includes starting xterm as the child)",
                held
            ),
            ("guardian_list", "a guardian's child.list during the flood (1,000 connections of the child's)", answered),
        ] {
            let sorted = samples.sorted()
            func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: sorted) }
            let digits = name == "guardian_list" ? 1 : 0
            print(
                """
                  \(label), \(sorted.count) times (ms): p50 \(format(percentile(0.5), digits)), p99 \
                \(format(percentile(0.99), digits)), max \(format(sorted.last!, digits))
                """
            )
            figures[name] = [
                "count": sorted.count, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": sorted.last!,
                "samples_ms": samples,
            ]
            if name == "new_window" { verdicts.check(Targets.newWindow, percentile(0.99)) }
            if name == "guardian_list" { verdicts.check(Targets.guardian, percentile(0.99)) }
        }
        print("  the session's first disguised window (not counted above): \(format(first, 0)) ms")
        figures["first_window_ms"] = first
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "child-boundary", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    private static func isHeld(_ pid: Int32) -> Bool {
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        guard !cgroup.contains("screenward-held-") else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else {
            return false
        }
        return stat[close.upperBound...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }

    /// `calls` child.list requests on one connection of a guardian's, each timed.
    private func guardianCalls(as guardian: String, rig: DaemonRig) throws -> [Double] {
        let script = rig.work.appendingPathComponent("guardian.py")
        try """
        import json, socket, sys, time
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        reader = s.makefile("rb")
        for i in range(1, int(sys.argv[2]) + 1):
            line = json.dumps({"id": i, "client": "org.screenward.cli", "method": "child.list", "body": {}}) + "\\n"
            start = time.perf_counter()
            s.sendall(line.encode())
            answer = reader.readline()
            elapsed = (time.perf_counter() - start) * 1000
            if b'"reply"' not in answer:
                print("error", answer.decode().strip(), flush=True)
                sys.exit(1)
            print("%.3f" % elapsed, flush=True)
        """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: script.path)
        let result = try rig.users.run(as: guardian, ["python3", script.path, rig.socket, String(calls)])
        guard result.status == 0 else {
            throw HarnessError.failed("the guardian's calls failed: \(result.output) \(result.error)")
        }
        return result.output.split(separator: "\n").compactMap { Double($0) }
    }
}
