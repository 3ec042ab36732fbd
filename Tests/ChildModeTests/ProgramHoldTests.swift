import Foundation
import Glibc
import ManagedSettings
import SessionHarness
import TestSupport
import XCTest

/// In a managed session an application is what its process is, and what is shielded is
/// held: a window is identified by its X client's executable (the daemon reads /proc as
/// root), whatever class it claims; the process of a covered window is stopped, so no key
/// reaches it by any path; a program the system did not install is shielded until a
/// guardian allows it by name. Each as the real child against the real daemon, with
/// Debian's xterm, and a positive control (the same program, unshielded, takes keys).
final class ProgramHoldTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }
    private var home: String { "/home/\(desktop.kid)" }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        _ = try requireProgram("xterm", package: "xterm")
        _ = try requireProgram("xdotool", package: "xdotool")
        startWithinOneDay(lasting: 90)
        let fixture = try DaemonFixture()
        fixture.machineApplications = ["debian-xterm.desktop", "debian-uxterm.desktop", "org.xfce.mousepad.desktop"]
        desktop = try ManagedDesktop(fixture: fixture)
    }

    override func tearDown() {
        _ = try? desktop?.fixture.users.run(as: "root", ["pkill", "-KILL", "-u", desktop.kid, "xterm"])
        desktop?.tearDown()
    }

    /// Starts `program` (xterm or a copy) as the child, reading one line into `file`, with the
    /// window names given, and synthetic events taken (so that `xdotool type --window` is a
    /// real path in). Returns the window and the pid.
    private func startTerminal(_ program: String = "xterm", name: String, windowClass: String, into file: String) throws
        -> (window: String, pid: Int32)
    {
        _ = try desktop.startAsKid([
            program, "-name", name, "-class", windowClass, "-xrm", "*allowSendEvents: true", "-e", "sh", "-c",
            "read line; echo \"$line\" > \(file)",
        ])
        var window = ""
        try desktop.waitFor("the \(windowClass) window") {
            window =
                try desktop.runAsKid(["xdotool", "search", "--classname", "^\(name)$"]).output
                .split(separator: "\n").last.map(String.init) ?? ""
            return !window.isEmpty
        }
        let pid = try desktop.runAsKid(["xdotool", "getwindowpid", window]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        return (window, try XCTUnwrap(Int32(pid), "no pid for \(window)"))
    }

    /// Types `text` with real key events (XTEST) on the focused window, then Return, or if
    /// `synthetic`, `text` and a newline as synthetic events (XSendEvent) straight to
    /// `window`, which pass any grab. (Return on a focused shield would press its button.)
    private func type(_ text: String, into window: String, synthetic: Bool = false) throws {
        _ = try desktop.runAsKid(["xdotool", "windowactivate", "--sync", window])
        _ = try desktop.runAsKid(["xdotool", "type", "--delay", "30", text])
        if synthetic {
            _ = try desktop.runAsKid(["xdotool", "type", "--window", window, "--delay", "30", text + "\n"])
        } else {
            _ = try desktop.runAsKid(["xdotool", "key", "Return"])
        }
    }

    private func isHeld(_ pid: Int32) -> Bool { HeldProcess.isHeld(pid) }

    private func processState(_ pid: Int32) -> String? { HeldProcess.state(of: pid) }

    private var daemonLog: String { fixture.daemon?.standardError ?? "" }

    func testAShieldedAppClaimingToBeAnotherIsCoveredAsItselfAndHeld() throws {
        try desktop.startManagedSession()
        // The control: xterm claiming to be Mousepad, nothing shielded, takes the keys typed.
        let control = try startTerminal(name: "mousepad", windowClass: "Mousepad", into: "\(home)/control")
        try type("before", into: control.window)
        try desktop.waitFor("the keys in the unshielded xterm") {
            (try? String(contentsOfFile: "\(home)/control", encoding: .utf8)) == "before\n"
        }
        // Counted as what it is.
        try desktop.waitFor("its use counted as XTerm") { try desktop.usageSeconds(of: "debian-xterm.desktop") > 0 }
        XCTAssertEqual(
            try desktop.usageSeconds(of: "org.xfce.mousepad.desktop"), 0, "a window's class does not make it Mousepad")

        // XTerm's daily limit is used up.
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let limited = try fixture.screenward(
            as: guardian,
            ["limit", "add", "Terminal", "--app", "debian-xterm.desktop", "--daily", "1s", "--user", desktop.kid])
        XCTAssertEqual(limited.status, 0, limited.error)

        // The same disguise now: covered as XTerm, its process stopped, no key reaches it.
        let disguised = try startTerminal(name: "mousepad", windowClass: "Mousepad", into: "\(home)/typed")
        let windowID = String(format: "0x%x", UInt32(disguised.window) ?? 0)
        try desktop.waitFor("the disguised xterm covered as XTerm") {
            daemonLog.contains("covering \(windowID) of debian-xterm.desktop")
        }
        try desktop.waitFor("the disguised xterm held") { isHeld(disguised.pid) }
        try type("after", into: disguised.window, synthetic: true)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: "\(home)/typed"),
            "no key may reach a shielded app, by XTEST or XSendEvent")

        // The child continues it: frozen, it stays so (stopped, it is closed), and it reads nothing.
        XCTAssertEqual(try fixture.users.run(as: desktop.kid, ["kill", "-CONT", "\(disguised.pid)"]).status, 0)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(
            isHeld(disguised.pid) || processState(disguised.pid) == nil, "SIGCONT must not give the child the app back")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: "\(home)/typed"), "it must not have read the keys typed while held")
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("program-held"), events)

        // The child takes the covered window from its shield: withdraws it and puts it in a
        // window of their own. It is no longer covered, and still held.
        let own = desktop.windows[0]
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowunmap", disguised.window]).status, 0)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowreparent", disguised.window, own]).status, 0)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowmap", disguised.window]).status, 0)
        try desktop.waitFor("the taken window uncovered") {
            daemonLog.contains("uncovered \(windowID) of debian-xterm.desktop")
        }
        // It shows nowhere while its app is shielded: kept unmapped, and unmapped again when
        // the child maps it again.
        func unmapped() throws -> Bool {
            try desktop.runAsKid(["xwininfo", "-id", disguised.window]).output.contains("Map State: IsUnMapped")
        }
        try desktop.waitFor("the taken window kept unmapped", timeout: 5) { try unmapped() }
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowmap", disguised.window]).status, 0)
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.waitFor("the taken window unmapped again", timeout: 5) { try unmapped() }
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(
            isHeld(disguised.pid) || processState(disguised.pid) == nil,
            "a shielded app's window taken from its shield must stay held")
        _ = try desktop.runAsKid(["xdotool", "type", "--window", disguised.window, "--delay", "30", "taken\n"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: "\(home)/typed"),
            "no key may reach a shielded app taken from its shield")
    }

    /// Where the daemon has no cgroup v2 it may write (an old kernel, a container), a held app
    /// is stopped with SIGSTOP. Twenty xterms shielded at once on a busy machine stay held and
    /// are not closed (a stop the machine has not carried out yet is not the app running); the
    /// one the child continues is closed, and that is recorded.
    func testWithoutCgroupV2HeldAppsAreStoppedAndOnlyOneThatRanAgainIsClosed() throws {
        // The daemon in a mount namespace of its own where every cgroup2 mount is read-only.
        fixture.commandPrefix = [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            """
            for mount in $(awk '$3 == "cgroup2" { print $2 }' /proc/self/mounts); do
              mount -o remount,bind,ro "$mount" || exit 1
            done
            exec "$@"
            """,
            "sh",
        ]
        try desktop.startManagedSession()
        XCTAssertTrue(daemonLog.contains("stopped with SIGSTOP"), daemonLog)
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let limited = try fixture.screenward(
            as: guardian,
            ["limit", "add", "Terminal", "--app", "debian-xterm.desktop", "--daily", "1s", "--user", desktop.kid])
        XCTAssertEqual(limited.status, 0, limited.error)
        for index in 0..<20 { _ = try desktop.startAsKid(["xterm", "-name", "held\(index)", "-e", "sleep", "600"]) }
        var pids: [Int32] = []
        do {
            try desktop.waitFor("twenty xterms held", timeout: 60) {
                let found = try desktop.runAsKid(["pgrep", "-u", desktop.kid, "-x", "xterm"]).output
                pids = found.split(separator: "\n").compactMap { Int32($0) }
                return pids.count == 20 && pids.allSatisfy { processState($0) == "T" }
            }
        } catch {
            // What each xterm was doing, for the reader of a failure under load.
            let states = pids.map { "\($0): \(processState($0) ?? "gone")" }.joined(separator: ", ")
            XCTFail(
                "\(pids.count) xterms of the child's (\(states)); the daemon's holds: "
                    + daemonLog.split(separator: "\n").filter { $0.contains("held") }.suffix(25).joined(separator: "\n")
            )
            throw error
        }
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(pids.filter { processState($0) != "T" }, [], "every held xterm must stay stopped, none closed")
        var events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertFalse(events.contains("ran again while shielded"), events)

        // The child continues one: it is closed, the others stay held.
        XCTAssertEqual(try fixture.users.run(as: desktop.kid, ["kill", "-CONT", "\(pids[0])"]).status, 0)
        // Ended: gone, or a zombie (its parent, runuser, stopped itself when its child stopped).
        try desktop.waitFor("the continued xterm closed", timeout: 5) { [nil, "Z"].contains(processState(pids[0])) }
        XCTAssertEqual(pids.dropFirst().filter { processState($0) != "T" }, [])
        events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertEqual(events.components(separatedBy: "ran again while shielded").count - 1, 1, events)
    }

    /// An app a guardian authorised turns `application.denyAppInstallation` off: the child's
    /// own copy of xterm then runs as an application of its own, uncovered.
    func testAnAppsStoreMayLetProgramsTheSystemDidNotInstallRun() throws {
        try desktop.startSession(shielding: [], settings: ApplicationSettings(denyAppInstallation: false))
        let copy = "\(home)/myterm"
        XCTAssertEqual(try desktop.runAsKid(["cp", "/usr/bin/xterm", copy]).status, 0)
        let mine = try startTerminal(copy, name: "homework", windowClass: "Homework", into: "\(home)/typed")
        try type("mine", into: mine.window)
        try desktop.waitFor("the keys in the child's own xterm") {
            (try? String(contentsOfFile: "\(home)/typed", encoding: .utf8)) == "mine\n"
        }
        XCTAssertFalse(daemonLog.contains("of exe:\(copy)"), "it must not have been covered")
        XCTAssertFalse(isHeld(mine.pid))
    }

    /// A display number free on this machine, for the child's nested X server.
    private func freeDisplayNumber() -> Int {
        (40..<400).first {
            !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
        } ?? 399
    }

    /// The child runs XTerm inside a nested X server (Xephyr) of their own, where no shield of
    /// the session's display can be: once XTerm is limited, it is held there too, and keys
    /// typed into the nested display reach it no more. Before the limit they do (the control).
    func testAShieldedAppIsHeldOnANestedDisplayServer() throws {
        _ = try requireProgram("Xephyr", package: "xserver-xephyr")
        try desktop.startManagedSession()
        let number = freeDisplayNumber()
        _ = try desktop.startAsKid(["Xephyr", ":\(number)", "-screen", "640x480", "-nolisten", "tcp", "-ac"])
        let nested = ["DISPLAY": ":\(number)"]
        try desktop.waitFor("the child's nested X server") {
            (try? desktop.runAsKid(["xdpyinfo"], environment: nested).status) == 0
        }
        var started: Set<Int32> = []
        func startNested(into file: String) throws -> Int32 {
            // It stays open once it has read its line.
            _ = try desktop.startAsKid(
                ["xterm", "-e", "sh", "-c", "read line; echo \"$line\" > \(file); exec sleep 600"], environment: nested)
            var pid: Int32 = 0
            try desktop.waitFor("xterm on the nested display") {
                let all = try desktop.runAsKid(["pgrep", "-u", desktop.kid, "-x", "xterm"]).output.split(
                    separator: "\n"
                ).compactMap { Int32($0) }
                pid = all.first { !started.contains($0) } ?? 0
                return pid > 0
            }
            started.insert(pid)
            return pid
        }
        func typeNested(_ text: String) throws {
            // The nested server's own XTEST; without a window manager there, its focus
            // follows the pointer, put in xterm's window.
            var window = ""
            try desktop.waitFor("an xterm window on the nested display") {
                window =
                    try desktop.runAsKid(["xdotool", "search", "--class", "XTerm"], environment: nested).output
                    .split(separator: "\n").last.map(String.init) ?? ""
                return !window.isEmpty
            }
            _ = try desktop.runAsKid(["xdotool", "mousemove", "--window", window, "20", "20"], environment: nested)
            _ = try desktop.runAsKid(["xdotool", "type", "--delay", "30", text], environment: nested)
            _ = try desktop.runAsKid(["xdotool", "key", "Return"], environment: nested)
        }
        let control = try startNested(into: "\(home)/control")
        try typeNested("before")
        try desktop.waitFor("the keys in the nested xterm") {
            (try? String(contentsOfFile: "\(home)/control", encoding: .utf8)) == "before\n"
        }
        XCTAssertFalse(isHeld(control))

        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let limited = try fixture.screenward(
            as: guardian,
            ["limit", "add", "Terminal", "--app", "debian-xterm.desktop", "--daily", "1s", "--user", desktop.kid])
        XCTAssertEqual(limited.status, 0, limited.error)
        // The limit needs a second of XTerm on the session's display to be used up.
        let counted = try startTerminal(name: "counted", windowClass: "XTerm", into: "\(home)/unused")
        started.insert(counted.pid)
        try desktop.waitFor("XTerm covered on the session's display", timeout: 30) { isHeld(counted.pid) }

        try desktop.waitFor("the xterm started on the nested display before the limit held", timeout: 10) {
            isHeld(control)
        }
        // One xterm on the nested display, so that the keys typed there go to it.
        XCTAssertEqual(try desktop.runAsKid(["kill", "-KILL", "\(control)"]).status, 0)
        let nestedTerminal = try startNested(into: "\(home)/typed")
        try desktop.waitFor("the xterm started on the nested display after the limit held", timeout: 10) {
            isHeld(nestedTerminal)
        }
        try typeNested("after")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: "\(home)/typed"),
            "no key may reach a shielded app on another display")
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("no window on the session's display"), events)
    }

    func testAProgramTheSystemDidNotInstallIsShieldedUntilAGuardianAllowsIt() throws {
        try desktop.startManagedSession()
        // The child's own copy of xterm, in their home, under a class of its own.
        let copy = "\(home)/myterm"
        XCTAssertEqual(try desktop.runAsKid(["cp", "/usr/bin/xterm", copy]).status, 0)
        let mine = try startTerminal(copy, name: "homework", windowClass: "Homework", into: "\(home)/typed")
        let windowID = String(format: "0x%x", UInt32(mine.window) ?? 0)
        try desktop.waitFor("the copy covered as a program not installed") {
            daemonLog.contains("covering \(windowID) of exe:\(copy)")
        }
        try desktop.waitFor("the copy held") { isHeld(mine.pid) }
        desktop.screenshot("not-installed-program.png")
        // (Synthetic events sent now would wait in its connection and be read once it is
        // allowed: the test above shows they are not read while it is shielded.)
        _ = try desktop.runAsKid(["xdotool", "windowactivate", "--sync", mine.window])
        _ = try desktop.runAsKid(["xdotool", "type", "--delay", "30", "blocked"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(home)/typed"))

        // The child's own programs without a window still run: a copy of sleep.
        XCTAssertEqual(try desktop.runAsKid(["cp", "/usr/bin/sleep", "\(home)/mysleep"]).status, 0)
        XCTAssertEqual(try desktop.runAsKid(["\(home)/mysleep", "0.1"]).status, 0)

        // A guardian allows it by name: the shield comes down, the process runs, keys reach it.
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let allowed = try fixture.screenward(as: guardian, ["allow", "exe:\(copy)", "--user", desktop.kid])
        XCTAssertEqual(allowed.status, 0, allowed.error)
        try desktop.waitFor("the copy uncovered", timeout: 10) {
            daemonLog.contains("uncovered \(windowID) of exe:\(copy)")
        }
        try desktop.waitFor("the copy running again") { !isHeld(mine.pid) }
        try type("allowed", into: mine.window)
        try desktop.waitFor("the keys in the allowed copy") {
            (try? String(contentsOfFile: "\(home)/typed", encoding: .utf8))?.hasPrefix("allowed") == true
        }
    }
    /// A text browser in the child's terminal shows websites no extension reports: closed as
    /// soon as the daemon sees it, its terminal told why, recorded; once a guardian allows it,
    /// it runs (the positive control).
    func testATextBrowserRunsOnlyWhereAGuardianAllowedIt() throws {
        let w3m = try requireProgram("w3m", package: "w3m")
        try desktop.startManagedSession()
        // In a terminal of its own (script's), as from the child's xterm: w3m's start page, waiting for keys.
        func startW3m() throws -> ChildProcess {
            try desktop.startAsKid(["script", "-qfec", "\(w3m.path) -v", "/dev/null"], environment: ["TERM": "xterm"])
        }
        let first = try startW3m()
        defer { first.stop() }
        let started = Date()
        try desktop.waitFor("w3m closed", timeout: 10) {
            (try? self.desktop.runAsKid(["pgrep", "-u", self.desktop.kid, "-x", "w3m"]).status) == 1
                && first.outputLines.contains { $0.contains("screenward: w3m is closed") }
        }
        let closedIn = Date().timeIntervalSince(started)
        print("w3m closed \(closedIn) s after it started")
        XCTAssertLessThan(closedIn, 3)
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("a text browser, was closed"), events)

        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let allowed = try fixture.screenward(as: guardian, ["allow", "exe:\(w3m.path)", "--user", desktop.kid])
        XCTAssertEqual(allowed.status, 0, allowed.error)
        Thread.sleep(forTimeInterval: 1)  // the allowance counts from now on
        let second = try startW3m()
        defer { second.stop() }
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(
            try desktop.runAsKid(["pgrep", "-u", desktop.kid, "-x", "w3m"]).status, 0,
            "allowed, w3m runs: \(second.outputLines.suffix(5))")
    }
    /// A text browser a guardian limits runs, and is an application of its own while it is in
    /// the foreground of the child's terminal: the xterm showing it counts as w3m, not as
    /// XTerm, and is covered as w3m once w3m's limit is used. The control: the same xterm,
    /// before w3m runs in it, counts as XTerm.
    func testALimitedTextBrowserCountsAsItselfInItsTerminalAndIsShieldedThere() throws {
        let w3m = try requireProgram("w3m", package: "w3m")
        try desktop.startManagedSession()
        let limited = try fixture.screenward(
            as: "root",
            ["limit", "add", "Web", "--app", "exe:\(w3m.path)", "--daily", "4s", "--user", desktop.kid])
        XCTAssertEqual(limited.status, 0, limited.error)
        Thread.sleep(forTimeInterval: 0.5)
        // The shell waits for a line, then runs w3m in the same terminal.
        _ = try desktop.startAsKid(
            [
                "xterm", "-name", "reader", "-e", "sh", "-c", "read line; exec \(w3m.path) -v",
            ], environment: ["TERM": "xterm"])
        var window = ""
        try desktop.waitFor("the xterm's window") {
            window =
                try desktop.runAsKid(["xdotool", "search", "--classname", "^reader$"]).output
                .split(separator: "\n").last.map(String.init) ?? ""
            return !window.isEmpty
        }
        _ = try desktop.runAsKid(["xdotool", "windowactivate", "--sync", window])
        try desktop.waitFor("the xterm counted as XTerm (the control)") {
            try desktop.usageSeconds(of: "debian-xterm.desktop") > 0.5
        }
        XCTAssertEqual(try desktop.usageSeconds(of: "exe:\(w3m.path)"), 0)
        _ = try desktop.runAsKid(["xdotool", "key", "--window", window, "Return"])
        let started = Date()
        let windowID = String(format: "0x%x", UInt32(window) ?? 0)
        try desktop.waitFor("the xterm showing w3m covered as w3m", timeout: 20) {
            self.daemonLog.contains("covering \(windowID) of exe:\(w3m.path)")
        }
        let covered = Date().timeIntervalSince(started)
        let asW3m = try desktop.usageSeconds(of: "exe:\(w3m.path)")
        print("w3m in the xterm: covered \(covered) s after it started, \(asW3m) s counted as w3m")
        XCTAssertEqual(asW3m, 4, accuracy: 1.5, "w3m's time is its own")
        XCTAssertLessThan(covered, 7)
        XCTAssertEqual(
            try desktop.runAsKid(["pgrep", "-u", desktop.kid, "-x", "w3m"]).status, 0, "a limited w3m is not closed")
    }

    /// An X server the child starts in their session (Xvfb here: apps shown there would be
    /// seen through a viewer, unwatched) is closed within a second, its terminal told why, and
    /// recorded; one a guardian allowed runs (the control: the same Xvfb, started the same way).
    func testADisplayServerOfTheChildsOwnRunsOnlyWhereAGuardianAllowedIt() throws {
        let xvfb = try requireProgram("Xvfb", package: "xvfb")
        try desktop.startManagedSession()
        func startXvfb(_ display: Int) throws -> ChildProcess {
            let command = "\(xvfb.path) :\(display) -nolisten tcp"
            return try desktop.startAsKid(["script", "-qfec", command, "/dev/null"], environment: ["TERM": "xterm"])
        }
        func running(_ display: Int) -> Bool {
            (try? desktop.runAsKid(["pgrep", "-u", desktop.kid, "-f", "^\(xvfb.path) :\(display) "]).status) == 0
        }
        // Displays no server holds: a closed Xvfb leaves its lock file, which only root removes.
        let free = (90..<200).filter {
            !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
                && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
        }.prefix(2)
        guard free.count == 2 else { throw XCTSkip("no two free X displays between :90 and :199") }
        let (closed, allowedDisplay) = (free.first!, free.last!)
        defer {
            for display in [closed, allowedDisplay] {
                try? FileManager.default.removeItem(atPath: "/tmp/.X\(display)-lock")
                try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(display)")
            }
        }
        let first = try startXvfb(closed)
        defer { first.stop() }
        let started = Date()
        try desktop.waitFor("Xvfb closed", timeout: 10) {
            !running(closed) && first.outputLines.contains { $0.contains("screenward: Xvfb is closed") }
        }
        let closedIn = Date().timeIntervalSince(started)
        print("Xvfb :\(closed) closed \(closedIn) s after it started")
        XCTAssertLessThan(closedIn, 3)
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("a display server no agent watches, was closed"), events)

        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let allowed = try fixture.screenward(as: guardian, ["allow", "exe:\(xvfb.path)", "--user", desktop.kid])
        XCTAssertEqual(allowed.status, 0, allowed.error)
        Thread.sleep(forTimeInterval: 1)  // the allowance counts from now on
        let second = try startXvfb(allowedDisplay)
        defer {
            second.stop()
            _ = try? desktop.runAsKid(["pkill", "-u", desktop.kid, "-f", "^\(xvfb.path) :\(allowedDisplay) "])
        }
        try desktop.waitFor("Xvfb :\(allowedDisplay) running") { running(allowedDisplay) }
        Thread.sleep(forTimeInterval: 3)
        XCTAssertTrue(running(allowedDisplay), "allowed, Xvfb runs: \(second.outputLines.suffix(5))")
    }

    /// A process of root's that becomes the child's under the same pid (as `login`, `su` and a
    /// display manager's session do) and then runs an X server is the child's like any other:
    /// the daemon saw it as root's first, and reads again whose root's processes are.
    func testAProcessThatBecomesTheChildsIsGuardedAsTheirs() throws {
        let xvfb = try requireProgram("Xvfb", package: "xvfb")
        try desktop.startManagedSession()
        // A display no server holds, whose keymap file no other account left behind.
        let leftovers = { (display: Int) in
            ["/tmp/.X\(display)-lock", "/tmp/.X11-unix/X\(display)", "/tmp/server-\(display).xkm"]
        }
        guard
            let display = (90..<200).first(where: { !leftovers($0).contains(where: FileManager.default.fileExists) })
        else { throw XCTSkip("no free X display between :90 and :199") }
        defer { for file in leftovers(display) { try? FileManager.default.removeItem(atPath: file) } }
        let ids = try fixture.users.run(as: "root", ["id", "-u", desktop.kid]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let group = try fixture.users.run(as: "root", ["id", "-g", desktop.kid]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Root's for two of the daemon's scans, then the child's, then Xvfb.
        let becoming = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import os, time
                time.sleep(1.5)
                os.setgroups([]); os.setgid(\(group)); os.setuid(\(ids))
                os.execv('\(xvfb.path)', ['Xvfb', ':\(display)', '-nolisten', 'tcp'])
                """,
            ])
        defer { becoming.stop() }
        let started = Date()
        let closed = "(pid \(becoming.pid)), a display server no agent watches, was closed"
        try desktop.waitFor("the Xvfb it became closed: \(becoming.standardError)", timeout: 10) {
            try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output.contains(closed)
        }
        print("a process become the child's ran Xvfb: closed \(Date().timeIntervalSince(started) - 1.5) s after")
        XCTAssertEqual(becoming.waitForExit(timeout: 5), SIGKILL, "killed by the daemon: \(becoming.standardError)")
    }

    /// A daemon starting thaws what an earlier run of its own left frozen, and nothing of
    /// another computer's: a container's daemon's held cgroups are below the host's in the
    /// host's tree (a host daemon thawed them, and the container's daemon closed its xterm
    /// as having run again). Two processes held as the daemons hold them, one under another
    /// machine's mark, one under this one's (the control): only this one's is thawed.
    func testADaemonThawsItsOwnLeftoversOnlyNotAnotherComputersHolds() throws {
        guard let mount = Self.writableCgroup2() else { try cannotRun("no cgroup v2 hierarchy root may write here") }
        let mark = String(
            try String(contentsOfFile: "/etc/machine-id", encoding: .utf8).filter(\.isHexDigit).prefix(12))
        var groups: [String] = []
        defer {
            for group in groups {
                try? "0".write(toFile: group + "/cgroup.freeze", atomically: false, encoding: .utf8)
            }
        }
        func hold(under machine: String) throws -> (ChildProcess, group: String) {
            let sleeper = try ChildProcess(URL(fileURLWithPath: "/usr/bin/sleep"), ["600"])
            let cgroups = try String(contentsOfFile: "/proc/\(sleeper.pid)/cgroup", encoding: .utf8)
            let line = cgroups.split(separator: "\n").first { $0.hasPrefix("0::") }
            let own = line.map { String($0.dropFirst(3)) } ?? "/"
            let parent = (own as NSString).deletingLastPathComponent
            let group = mount + (parent == "/" ? "" : parent) + "/screenward-held-\(machine)-0-\(sleeper.pid)"
            try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
            groups.append(group)
            try "1".write(toFile: group + "/cgroup.freeze", atomically: false, encoding: .utf8)
            try "\(sleeper.pid)".write(toFile: group + "/cgroup.procs", atomically: false, encoding: .utf8)
            return (sleeper, group)
        }
        func frozen(_ pid: Int32) -> Bool {
            ((try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? "").contains("screenward-held-")
        }
        let (theirs, _) = try hold(under: "0123456789ab")
        defer { theirs.stop() }
        let (ours, _) = try hold(under: mark)
        defer { ours.stop() }
        XCTAssertTrue(frozen(theirs.pid) && frozen(ours.pid))
        try desktop.startManagedSession()
        try desktop.waitFor("this computer's leftover thawed") { !frozen(ours.pid) }
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(frozen(theirs.pid), "another computer's hold was thawed")
    }

    /// The first read-write cgroup2 mount, as the daemon finds it.
    private static func writableCgroup2() -> String? {
        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for line in mounts.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count >= 6, fields[5].split(separator: ",").contains("rw") { return String(fields[4]) }
        }
        return nil
    }
}
