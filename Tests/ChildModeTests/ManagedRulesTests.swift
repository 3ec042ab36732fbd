import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

@testable import ScreenwardCore

/// A guardian's rules for a managed user, kept by the system daemon: set from the
/// guardian's own account with `--user`, enforced in the child's real session, read but
/// never changed by the child (a real user with a shell), every change recorded.
final class ManagedRulesTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        _ = try requireProgram("xdotool", package: "xdotool")
        // Daily limits used up and given more time: one day's use (the daemon's zone is TZ's or
        // the machine's, as TimeZone.current reads them).
        startWithinOneDay(lasting: 60)
        desktop = try ManagedDesktop(fixture: try DaemonFixture(), windows: ["game.Game:Game", "notes.Notes:Notes"])
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    /// `actor` limits the child's game to one second a day and focuses it: the rules' shield covers it.
    private func limitTheGameToOneSecond(as actor: String) throws {
        let added = try fixture.screenward(
            as: actor, ["limit", "add", "Games", "--app", "wmclass:Game", "--daily", "1s", "--user", desktop.kid])
        XCTAssertEqual(added.status, 0, added.error)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        try desktop.waitFor("the rules' shield over the game", timeout: 20) { desktop.currentAgentCovers(1) }
    }

    /// The child's own session bus, with a real notification server on it (dunst, printing
    /// what it shows): the daemon shows a managed user's notifications through a process of
    /// theirs, as root cannot use a user's session bus.
    private func startTheChildsNotificationServer() throws -> (address: String, dunst: ChildProcess, stop: () -> Void) {
        _ = try requireProgram("dunst", package: "dunst")
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "screenward-kid-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        XCTAssertEqual(chown(folder.path, desktop.uid, gid_t(desktop.uid)), 0)
        let address = "unix:path=\(folder.path)/bus"
        let bus = try desktop.startAsKid([
            "dbus-daemon", "--session", "--nofork", "--address=\(address)", "--print-address",
        ])
        _ = try bus.waitForOutputLines(1, timeout: 10)
        let dunst = try desktop.startAsKid(["dunst", "-print"], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        return (
            address, dunst,
            {
                dunst.stop()
                bus.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        )
    }

    func testAGuardiansLimitShieldsTheChildsGameAndOnlyAGuardianCanChangeIt() throws {
        try desktop.startManagedSession()
        let kid = desktop.kid
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[1]]).status, 0)

        // The guardian, from their own account.
        let added = try fixture.screenward(
            as: guardian, ["limit", "add", "Games", "--app", "wmclass:Game", "--daily", "2s", "--user", kid])
        XCTAssertEqual(added.status, 0, added.error)
        XCTAssertTrue(added.output.contains("Added the limit Games: 2 s a day of Game, every day"), added.output)
        let allowed = try fixture.screenward(as: guardian, ["allow", "wmclass:Notes", "--user", kid])
        XCTAssertEqual(allowed.status, 0, allowed.error)
        let locked = try fixture.screenward(
            as: guardian,
            ["limit", "add", "More", "--app", "wmclass:Game", "--daily", "1h", "--locked-for", "1h", "--user", kid])
        XCTAssertNotEqual(locked.status, 0)
        XCTAssertTrue(locked.error.contains("--locked-for is for a person's own rules"), locked.error)

        // Two seconds of the game: the rules' shield covers it.
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        try desktop.waitFor("the rules' shield over the game", timeout: 20) { desktop.currentAgentCovers(1) }
        let shields = try fixture.screenward(as: guardian, ["shields", "--user", kid])
        XCTAssertTrue(shields.output.contains("org.screenward.rules"), shields.output)
        desktop.screenshot("managed-rules-limit.png")

        // The child reads their own rules and status, and cannot change them.
        let screenward = fixture.program("screenward")
        let list = try desktop.runAsKid([screenward, "limit", "list"])
        XCTAssertEqual(list.status, 0, list.error)
        XCTAssertTrue(list.output.contains("Games: 2 s a day of Game, every day"), list.output)
        let status = try desktop.runAsKid([screenward, "status"])
        XCTAssertTrue(status.output.contains("Games (limit):"), status.output + status.error)
        for attempt in [
            ["limit", "remove", "Games"], ["allow", "wmclass:Game"],
            ["limit", "change", "Games", "--app", "wmclass:Game", "--daily", "5h"],
        ] {
            let result = try desktop.runAsKid([screenward] + attempt)
            XCTAssertNotEqual(result.status, 0, "\(attempt)")
            XCTAssertTrue(result.error.contains("only a guardian can do this"), result.error)
        }
        let other = try desktop.runAsKid([screenward, "limit", "list", "--user", "root"])
        XCTAssertNotEqual(other.status, 0)
        // Their own ledger is out of reach too: the daemon keeps it.
        XCTAssertNotEqual(try desktop.runAsKid(["ls", fixture.state.path]).status, 0)
        XCTAssertTrue(desktop.currentAgentCovers(1), "still shielded")

        // Every change and every refusal is in the guardians' record.
        let events = try fixture.screenward(as: guardian, ["child", "events", kid]).output
        XCTAssertTrue(events.contains("rules-changed"), events)
        XCTAssertTrue(events.contains("Added the limit Games"), events)
        XCTAssertTrue(events.contains("tried `screenward rules remove`"), events)

        // The guardian removes it; the shield lifts.
        XCTAssertEqual(try fixture.screenward(as: guardian, ["limit", "remove", "Games", "--user", kid]).status, 0)
        try desktop.waitFor("the shield lifted", timeout: 20) { desktop.currentAgentCovers(0) }
    }

    /// A managed user's warnings reach the notification server of their own session (a
    /// real one, dunst, on their own session bus), shown by a process of theirs the
    /// daemon starts: root cannot use a user's session bus.
    func testAManagedUsersWarningsReachTheirSessionsNotificationServer() throws {
        let (address, dunst, stop) = try startTheChildsNotificationServer()
        defer { stop() }
        fixture.daemonArguments = ["--rule-warnings", "4,2", "--user-bus", address]
        try desktop.startManagedSession()
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[1]]).status, 0)
        let added = try fixture.screenward(
            as: guardian, ["limit", "add", "Games", "--app", "wmclass:Game", "--daily", "7s", "--user", desktop.kid])
        XCTAssertEqual(added.status, 0, added.error)

        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        func summaries() -> [String] { dunst.outputLines.filter { $0.contains("summary:") } }
        try desktop.waitFor("both warnings in the child's session", timeout: 20) { summaries().count >= 2 }
        try desktop.waitFor("the shield", timeout: 20) { desktop.currentAgentCovers(1) }
        XCTAssertEqual(summaries(), ["\tsummary: '4 s left: Games'", "\tsummary: '2 s left: Games'"])
    }

    /// A managed user's session in Korean: their tray (started with the session's own
    /// environment, as XDG autostart starts it) tells the daemon, and from then on the rules'
    /// notifications reach them in Korean and the agent's shields are titled in Korean, though
    /// the daemon and the agent it starts run in English.
    func testTheDaemonSpeaksToAManagedUserInTheirSessionsLanguage() throws {
        let korean = try TranslationCatalogs.compiled("ko")
        let (address, dunst, stop) = try startTheChildsNotificationServer()
        defer { stop() }
        fixture.daemonArguments = ["--rule-warnings", "4", "--user-bus", address]
        try desktop.startManagedSession()
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[1]]).status, 0)

        let tray = try desktop.startAsKid(
            [fixture.program("screenward-tray"), "--refresh", "1"],
            environment: ["LANG": "ko_KR.UTF-8", "DBUS_SESSION_BUS_ADDRESS": address])
        defer { tray.stop() }
        try desktop.waitFor("the daemon to hear the session's language", timeout: 20) {
            (fixture.daemon?.standardError ?? "").contains("\(desktop.kid)'s session speaks ko")
        }
        let added = try fixture.screenward(
            as: guardian, ["limit", "add", "Games", "--app", "wmclass:Game", "--daily", "6s", "--user", desktop.kid])
        XCTAssertEqual(added.status, 0, added.error)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        func summaries() -> [String] { dunst.outputLines.filter { $0.contains("summary:") } }
        try desktop.waitFor("the warning in the child's session", timeout: 20) { summaries().count >= 1 }
        let warning = korean("{left} left: {rule}", context: "limitWarningTitle", ["left": "", "rule": "Games"])
        XCTAssertNotEqual(warning, " left: Games", "po/ko.po translates the warning")
        XCTAssertTrue(
            summaries().first?.hasSuffix(warning.drop { $0 == " " } + "'") ?? false,
            "\(summaries()) should end with \(warning)")

        try desktop.waitFor("the shield", timeout: 20) { desktop.currentAgentCovers(1) }
        let title = korean("{app} (restricted)", context: "windowTitle", ["app": "Game"])
        XCTAssertNotEqual(title, "Game (restricted)")
        let found = try desktop.runAsKid([
            "xdotool", "search", "--name", "^" + NSRegularExpression.escapedPattern(for: title) + "$",
        ])
        XCTAssertEqual(found.status, 0, "no window is titled \(title) (the agent's shield)")
        desktop.screenshot("managed-shield-ko.png")

        // The child, with a script of their own: a path is no language, and the language
        // changes at most once every few seconds (each change is written and redrawn).
        let script = """
            import json, os, socket
            s = socket.socket(socket.AF_UNIX); s.connect(os.environ["SCREENWARD_DAEMON_SOCKET"]); f = s.makefile()
            for i, language in enumerate(["../../etc", "vi", "ko"]):
                s.sendall((json.dumps({"id": i, "client": "x", "method": "session.language", \
            "body": {"language": language}}) + "\\n").encode())
                print(f.readline().strip())
            """
        let replies = try desktop.runAsKid(["/usr/bin/python3", "-c", script]).output.split(separator: "\n")
        XCTAssertEqual(replies.count, 3, "\(replies)")
        XCTAssertTrue(replies.first?.contains("is not a language") ?? false, "\(replies)")
        XCTAssertFalse(replies.dropFirst().first?.contains("error") ?? true, "\(replies)")
        XCTAssertTrue(replies.last?.contains("try again later") ?? false, "\(replies)")
        // The daemon logs before it answers, but this process reads its log on a thread of its own.
        try desktop.waitFor("the daemon to log the change", timeout: 5) {
            (fixture.daemon?.standardError ?? "").contains("\(desktop.kid)'s session speaks vi")
        }
    }

    /// "Ask for more time" end to end: the child presses it on the rules' shield (real
    /// keys), the shield is redrawn as waiting; a guardian approves from their own account;
    /// the shield lifts at once and comes back when the granted time is used; a second
    /// request denied redraws it "Not approved". Every step is in the guardians' record.
    func testAskForMoreTimeApprovedByAGuardianLiftsTheShieldUntilTheGrantIsUsed() throws {
        try desktop.startManagedSession()
        let kid = desktop.kid
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try limitTheGameToOneSecond(as: guardian)
        let log = { self.fixture.daemon?.standardError ?? "" }
        func lastLook() -> String {
            log().split(separator: "\n").last { $0.contains("look for wmclass:Game") }.map(String.init) ?? ""
        }
        try desktop.waitFor("the ask button") { lastLook().contains("\"Ask for more time\"") }

        // The child asks, with real keys on the shield.
        func press() throws {
            let keys = try desktop.pressSecondButtonOnShield()
            XCTAssertEqual(keys.status, 0, keys.error)
        }
        try press()
        try desktop.waitFor("the shield redrawn as waiting", timeout: 15) {
            lastLook().contains("Waiting for a guardian…")
        }
        desktop.screenshot("managed-rules-waiting.png")

        // The guardian sees it and approves 3 seconds; the shield lifts at once.
        let listed = try fixture.screenward(as: guardian, ["request", "list"])
        XCTAssertTrue(listed.output.contains("\(kid)/1  Game on Games"), listed.output + listed.error)
        XCTAssertTrue(listed.output.contains("pending"), listed.output)
        let uncoveredBefore = desktop.coverReports(0)
        let asked = Date()
        let approved = try fixture.screenward(as: guardian, ["request", "approve", "\(kid)/1", "--seconds", "3"])
        XCTAssertEqual(approved.status, 0, approved.error)
        XCTAssertTrue(approved.output.contains("Approved: 3 s more for Game on Games"), approved.output)
        try desktop.waitFor("the shield lifted", timeout: 10) { desktop.coverReports(0) > uncoveredBefore }
        let lifted = Date().timeIntervalSince(asked)
        print("approval → shield lifted: \(Int(lifted * 1000)) ms (including the command's own start)")
        XCTAssertLessThan(lifted, 2, "target: within 1 s of the approval (screenward-bench approval measures it)")
        XCTAssertTrue(log().contains("rules: notifying \"3 s more: Games\""), "the child is told")

        // The game in focus uses the 3 s; then the shield is back.
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        let back = Date()
        let coveredBefore = desktop.coverReports(1)
        try desktop.waitFor("the shield back once the grant was used", timeout: 20) {
            desktop.coverReports(1) > coveredBefore
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(back), 2.5, "not before the 3 s were used")

        // Asked again and refused: the shield says so.
        try desktop.waitFor("the ask button again") { lastLook().contains("\"Ask for more time\"") }
        try press()
        try desktop.waitFor("the second request") {
            (try? self.fixture.screenward(as: guardian, ["request", "list"]).output.contains("\(kid)/2")) == true
        }
        XCTAssertEqual(try fixture.screenward(as: guardian, ["request", "deny", "2", "--user", kid]).status, 0)
        try desktop.waitFor("the shield redrawn as not approved", timeout: 15) {
            lastLook().contains("\"Not approved\"")
        }
        XCTAssertTrue(desktop.currentAgentCovers(1))
        let again = try fixture.screenward(as: guardian, ["request", "approve", "\(kid)/2"])
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.error.contains("request 2 was already answered (denied by \(guardian))"), again.error)

        // The child cannot answer their own request.
        let own = try desktop.runAsKid([fixture.program("screenward"), "request", "approve", "\(kid)/2"])
        XCTAssertNotEqual(own.status, 0)
        let events = try fixture.screenward(as: guardian, ["child", "events", kid]).output
        for kind in ["time-requested", "time-approved", "time-denied"] { XCTAssertTrue(events.contains(kind), events) }
        XCTAssertTrue(events.contains("\(guardian) gave 3 s more for Game on Games (request 1)"), events)
    }

    /// A guardian answers from the tray of their own desktop (root's, an X server of its
    /// own, a real XEmbed tray): the request shows in the menu, announced by a notification,
    /// and real clicks on "Approve 15 minutes" lift the child's shield.
    func testAGuardianApprovesFromTheirOwnTray() throws {
        try desktop.startManagedSession()
        let kid = desktop.kid
        try limitTheGameToOneSecond(as: "root")
        let log = { self.fixture.daemon?.standardError ?? "" }
        try desktop.waitFor("the ask button") { log().contains("\"Ask for more time\"") }
        XCTAssertEqual(try desktop.pressSecondButtonOnShield().status, 0)

        // The guardian's desktop.
        let desk = try GuardianTrayDesk(for: desktop)
        defer { desk.stop() }
        try desk.waitForNotification("\(kid) asks for more time")
        let approve = try desk.openSubmenu("\(kid) asks: Game on Games", showing: "Approve 15 minutes")
        try desk.screenshot("tray-guardian-menu.png")
        let uncoveredBefore = desktop.coverReports(0)
        try desk.click(at: approve)
        try desktop.waitFor("the child's shield lifted by the guardian's tray", timeout: 15) {
            desktop.coverReports(0) > uncoveredBefore
        }
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        XCTAssertTrue(events.contains("root gave 15 min more for Game on Games"), events)
    }

    /// A guardian's two remedies: pause the child's limits (the shield lifts at once, and
    /// the pause is in the status and the record), and lock the child's session now (logind).
    func testAGuardianPausesTheLimitsAndLocksTheSession() throws {
        try desktop.startManagedSession()
        let kid = desktop.kid
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try limitTheGameToOneSecond(as: guardian)

        // The child cannot pause their own rules.
        let own = try desktop.runAsKid([fixture.program("screenward"), "pause", "--for", "1h"])
        XCTAssertNotEqual(own.status, 0)
        XCTAssertTrue(own.error.contains("only a guardian can do this"), own.error)

        let uncoveredBefore = desktop.coverReports(0)
        let paused = try fixture.screenward(as: guardian, ["pause", "--for", "1h", "--user", kid])
        XCTAssertEqual(paused.status, 0, paused.error)
        XCTAssertTrue(paused.output.contains("Every rule is paused until"), paused.output)
        try desktop.waitFor("the shield lifted by the pause", timeout: 10) { desktop.coverReports(0) > uncoveredBefore }
        let status = try desktop.runAsKid([fixture.program("screenward"), "status"])
        XCTAssertTrue(status.output.contains("Rules: paused until"), status.output + status.error)

        let locked = try fixture.screenward(as: guardian, ["child", "lock", kid])
        XCTAssertEqual(locked.status, 0, locked.error)
        XCTAssertTrue(locked.output.contains("Locked 1 session of \(kid)"), locked.output)
        XCTAssertTrue(try desktop.logindCalls().contains("LockSession c9"))
        XCTAssertNotEqual(
            try desktop.runAsKid([fixture.program("screenward"), "child", "lock", kid]).status, 0,
            "the child cannot lock as a guardian")
        let events = try fixture.screenward(as: guardian, ["child", "events", kid]).output
        XCTAssertTrue(events.contains("\(guardian) paused every rule until"), events)
        XCTAssertTrue(events.contains("\(guardian) locked session c9"), events)
    }

    /// The child's own tray, in the child's session: the time used up on its icon and menu,
    /// and "Guardian… › Add 15 minutes" by real clicks, approved with a one-time code from
    /// the guardian's authenticator in the dialog the daemon puts up there: the shield lifts.
    func testTheChildsTrayAsksAGuardianAtTheDesktopForMoreTime() throws {
        let trayer = try requireProgram("trayer", package: "trayer")
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try desktop.startManagedSession()
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)
        let kid = desktop.kid
        try limitTheGameToOneSecond(as: guardian)

        // From the notes app: a menu's keyboard grab over the shielded game's own shield
        // would have the agent close the game (it cannot tell our menu from a game's grab).
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[1]]).status, 0)
        let host = try desktop.startAsKid([trayer.path] + TrayTrace.trayerArguments)
        defer { host.stop() }
        let tray = try desktop.startAsKid(
            [fixture.program("screenward-tray"), "--refresh", "1"],
            environment: ["SCREENWARD_TRAY_TRACE": "1", "XDG_DATA_DIRS": "/usr/local/share:/usr/share"])
        defer { tray.stop() }
        try desktop.waitFor("the tray", timeout: 15) {
            tray.outputLines.contains("screenward-tray: showing your rules (the system daemon)")
        }
        func place(of label: String) -> (x: Int, y: Int)? { TrayTrace.place(of: label, in: tray.outputLines) }
        var icon = ""
        try desktop.waitFor("the tray's icon") {
            icon =
                try desktop.runAsKid(["xdotool", "search", "--name", "^Screen time$"]).output.split(separator: "\n")
                .first.map(String.init) ?? ""
            return !icon.isEmpty
        }
        try desktop.waitFor("the menu with the limit used up", timeout: 20) {
            _ = try desktop.runAsKid(["xdotool", "mousemove", "--window", icon, "8", "8", "click", "1"])
            Thread.sleep(forTimeInterval: 0.5)
            if place(of: "Games: used up until 00:00") != nil, place(of: "Guardian…") != nil { return true }
            _ = try desktop.runAsKid(["xdotool", "key", "Escape"])
            return false
        }
        let (gx, gy) = try XCTUnwrap(place(of: "Guardian…"))
        _ = try desktop.runAsKid(["xdotool", "mousemove", "\(gx)", "\(gy)", "click", "1"])
        try desktop.waitFor("the guardian's submenu") { place(of: "Add 15 minutes") != nil }
        desktop.screenshot("tray-child-menu.png")
        let (ax, ay) = try XCTUnwrap(place(of: "Add 15 minutes"))
        _ = try desktop.runAsKid(["xdotool", "mousemove", "\(ax)", "\(ay)", "click", "1"])

        var dialog: String?
        try desktop.waitFor("the guardian's dialog in the child's session") {
            dialog = try desktop.guardianDialog()
            return dialog != nil
        }
        // The guardian takes their time: the dialog holds the focus for three seconds.
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", "--sync", try XCTUnwrap(dialog)]).status, 0)
        Thread.sleep(forTimeInterval: 3)
        let uncoveredBefore = desktop.coverReports(0)
        try desktop.approve(with: authenticator, in: try XCTUnwrap(dialog)) {
            desktop.coverReports(0) > uncoveredBefore
        }
        let events = try fixture.screenward(as: guardian, ["child", "events", kid]).output
        XCTAssertTrue(events.contains("\(guardian) gave 15 min more on Games at the child's desktop"), events)
        // The dialog is the agent's window: its time is nobody's usage.
        XCTAssertEqual(
            try desktop.usageSeconds(of: "wmclass:Screenward"), 0, "time in the guardian's dialog was counted")
    }
}
