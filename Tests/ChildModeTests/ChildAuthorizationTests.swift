import Foundation
import Glibc
@_spi(Screenward) import ManagedSettings
import SessionHarness
import TestSupport
import XCTest

@testable import ScreenwardCore

/// `.child` for real: Homework, installed for every user, asks from the child's
/// session; the session agent's dialog takes a one-time code from the guardian's
/// authenticator (set up with `screenward guardian enroll`, computed here by oathtool,
/// typed with xdotool), never their login password; the daemon checks it, takes it once,
/// rate-limits wrong ones, and records what happened. Then the child tries to undo it
/// every way the issue lists, as a real user.
final class ChildAuthorizationTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }
    private let homework = "org.example.homework"
    /// The guardian's login password: never asked for at the child's desk.
    private let guardianPassword = "correct horse battery"

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        // What the child tries: a debugger, a tracer and a script.
        for (program, package) in [("gdb", "gdb"), ("strace", "strace"), ("python3", "python3")] {
            _ = try requireProgram(program, package: package)
        }
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
        try fixture.installApp(homework, name: "Homework", executables: [fixture.program("homework")])
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    private func askingAGuardian(_ arguments: [String]) throws -> (ChildProcess, String) {
        try desktop.askingAGuardian([fixture.program("homework")] + arguments)
    }

    private func type(_ password: String, into window: String) throws {
        try desktop.type(password, into: window)
    }

    private func events() throws -> String {
        try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
    }

    /// A value Homework keeps in its `AppGroupStorage` for the child (in the daemon's state).
    private func homeworkShared(_ key: String) throws -> Data? {
        let home = ChildHomes(stateDirectory: fixture.state).home(for: desktop.uid)
        return try Ledger(url: home.ledgerURL).appGroupValue(client: homework, key: key)
    }

    private func homeworkStore() throws -> StoreContents? {
        let home = ChildHomes(stateDirectory: fixture.state).home(for: desktop.uid)
        return try Ledger(url: home.ledgerURL).storeContents(client: homework, name: "homework")
    }

    /// The child uses `window` (it is given the focus) until their ledger has seen `id` in use:
    /// the picker lists what was seen. By default the game.
    private func use(_ id: String = "wmclass:Game", window: String? = nil) throws {
        let activated = try desktop.runAsKid(["xdotool", "windowactivate", "--sync", window ?? desktop.windows[0]])
        XCTAssertEqual(activated.status, 0, activated.error)
        let home = ChildHomes(stateDirectory: fixture.state).home(for: desktop.uid)
        func seen() throws -> [String] { try Ledger(url: home.ledgerURL).knownApplications().map(\.publicID) }
        do {
            try desktop.waitFor("\(id) seen in use") { try seen().contains(id) }
        } catch {
            throw LocalUsersError(description: "\(id) not seen in use; seen: \(try seen()); \(error)")
        }
    }

    func testAGuardiansOneTimeCodeLetsHomeworkShieldTheGameAndNothingTheChildTriesUndoesIt() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup], password: guardianPassword)
        try desktop.startManagedSession()
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)

        // Homework asks for .child from the child's session and waits for a guardian.
        try use()
        let (setup, dialog) = try askingAGuardian(["shield", "--child"])

        // While it waits, the child cannot trace it: the API made it non-dumpable.
        let attach = try desktop.runAsKid(["gdb", "-batch", "-p", "\(setup.pid)"])
        let traced = try String(contentsOfFile: "/proc/\(setup.pid)/status", encoding: .utf8)
        XCTAssertTrue(traced.contains("TracerPid:\t0"), "gdb as the child attached: \(attach.output) \(attach.error)")

        // The guardian's login password, typed by habit into the code field, goes nowhere:
        // the dialog sends only six digits, and nothing is checked or recorded.
        desktop.screenshot("guardian-dialog.png")
        let checkedBefore = desktop.codesChecked()
        let eventsBefore = try events()
        try type(guardianPassword, into: dialog)
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(desktop.codesChecked(), checkedBefore, "the password reached the daemon")
        XCTAssertEqual(try events(), eventsBefore)
        XCTAssertFalse(
            (fixture.daemon?.standardError ?? "").contains(guardianPassword), "the password is in the daemon's log")
        XCTAssertTrue(setup.isRunning, "Homework must still be waiting")
        desktop.screenshot("guardian-dialog-not-a-code.png")

        // A wrong code keeps the dialog up and is recorded.
        try desktop.submit(try authenticator.wrongCode(), into: dialog)
        try desktop.waitFor("the wrong code recorded", timeout: 15) {
            try events().contains("a wrong code for \(guardian)")
        }
        XCTAssertTrue(setup.isRunning, "Homework must still be waiting")
        desktop.screenshot("guardian-dialog-wrong-code.png")

        // The right one approves; Homework opens the activity picker, which the session's agent
        // shows as its own user: the child's programs cannot trace it or read what it prints.
        let reportsBefore = desktop.coverReports(1)
        let usedCode = try desktop.approve(with: authenticator, in: dialog) { (try? desktop.pickerWindow()) != nil }
        let pickers = try fixture.users.run(as: "root", ["pgrep", "-u", fixture.agentUser, "-f", "screenward-picker"])
        XCTAssertEqual(pickers.status, 0, "the picker must run as the agents' user: \(pickers.output) \(pickers.error)")
        XCTAssertNotEqual(
            try fixture.users.run(as: "root", ["pgrep", "-u", desktop.kid, "-f", "screenward-picker"]).status, 0,
            "no picker runs as the child")
        desktop.screenshot("picker-child.png")
        // The child picks the game; Homework gets its token, and never the id.
        try desktop.pick("wmclass:Game")
        XCTAssertEqual(setup.waitForExit(timeout: 20), 0, setup.standardError)
        let said = setup.outputLines.joined() + setup.standardError
        XCTAssertTrue(said.contains("Homework shields the 1 item(s) picked"), said)
        XCTAssertFalse(said.contains("wmclass:Game"), "Homework learnt what was picked: \(said)")
        // The shield goes over the game.
        try desktop.waitFor("the shield over the game") { desktop.coverReports(1) > reportsBefore }
        desktop.screenshot("homework-child-shield.png")
        let approved = try events()
        XCTAssertTrue(
            approved.contains("\(guardian) allowed Homework (\(homework)) to manage \(desktop.kid)'s screen time"),
            approved)
        XCTAssertEqual(try homeworkStore()?.shield.applications?.count, 1)
        // The child sees what is shielded, and why, from the daemon.
        let shields = try desktop.runAsKid([fixture.program("screenward"), "shields", "--json"])
        XCTAssertEqual(shields.status, 0, shields.error)
        XCTAssertTrue(shields.output.contains("wmclass:Game") && shields.output.contains(homework), shields.output)

        // Asking again is remembered: no dialog. Naming the game itself is refused and recorded: a
        // child's app that turned ids into tokens would build a table of what its tokens stand for.
        let again = try desktop.runAsKid([fixture.program("homework"), "shield", "--child", "--app", "wmclass:Game"])
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.error.contains("activity picker"), again.output + again.error)
        XCTAssertNil(try desktop.guardianDialog())
        try desktop.waitFor("the refused ids recorded", timeout: 15) {
            try events().contains("Homework (\(homework)) tried to turn ids into tokens, or tokens into ids: refused")
        }

        // A script claiming Homework's identifier is refused and recorded.
        let script = """
            import json, os, socket
            s = socket.socket(socket.AF_UNIX); s.connect(os.environ["SCREENWARD_DAEMON_SOCKET"])
            s.sendall((json.dumps({"id": 1, "client": "\(homework)", "method": "store.clear", \
            "body": {"name": "homework"}}) + "\\n").encode())
            print(s.makefile().readline())
            """
        let forged = try desktop.runAsKid(["/usr/bin/python3", "-c", script])
        XCTAssertTrue(forged.output.contains("unauthorized"), forged.output + forged.error)
        XCTAssertTrue(forged.output.contains("python"), "the refusal names what ran: \(forged.output)")

        // The app's own executable, tampered with, is refused too (`stop` would clear its store).
        let stop = [fixture.program("homework"), "stop"]
        let preloaded = try desktop.runAsKid(stop, environment: ["LD_PRELOAD": "/lib/x86_64-linux-gnu/libm.so.6"])
        XCTAssertTrue((preloaded.output + preloaded.error).contains("LD_PRELOAD"), preloaded.output + preloaded.error)
        let libraryPath = try desktop.runAsKid(stop, environment: ["LD_LIBRARY_PATH": "/home/\(desktop.kid)"])
        XCTAssertTrue(
            (libraryPath.output + libraryPath.error).contains("LD_LIBRARY_PATH"), libraryPath.output + libraryPath.error
        )
        let straced = try desktop.runAsKid(["strace", "-f", "-o", "/dev/null"] + stop)
        XCTAssertTrue((straced.output + straced.error).contains("being traced"), straced.output + straced.error)
        let debugged = try desktop.runAsKid(["gdb", "-batch", "-ex", "run", "--args"] + stop)
        XCTAssertTrue((debugged.output + debugged.error).contains("being traced"), debugged.output + debugged.error)
        XCTAssertEqual(try homeworkStore()?.shield.applications?.count, 1, "the store must still shield the game")

        // Revoking needs a guardian too. The code that approved, read off the keyboard by the
        // child and typed again, is refused (still in its window: once is once) and recorded.
        let (revoke, revocationDialog) = try askingAGuardian(["revoke"])
        try desktop.submit(usedCode, into: revocationDialog)
        try desktop.waitFor("the spent code refused", timeout: 15) {
            try events().contains("a code of \(guardian)'s that was already used")
        }
        XCTAssertTrue(revoke.isRunning, "a spent code approves nothing")
        // The child cancels the dialog; nothing changes.
        XCTAssertEqual(
            try desktop.runAsKid(["xdotool", "windowactivate", "--sync", revocationDialog, "key", "Escape"]).status, 0)
        let revoked = revoke.waitForExit(timeout: 20)
        XCTAssertNotNil(revoked, "the cancelled revocation must end")
        XCTAssertNotEqual(revoked, 0)
        XCTAssertTrue(revoke.standardError.contains("declined"), revoke.standardError)
        XCTAssertEqual(try homeworkStore()?.shield.applications?.count, 1)

        let recorded = try events()
        for expected in ["runs /usr/bin/python", "LD_PRELOAD", "being traced", "not allowed to stop managing"] {
            XCTAssertTrue(recorded.contains(expected), "\(expected) not in the events: \(recorded)")
        }
    }

    /// The installed Homework, untampered, run by the child: what shields more goes through,
    /// what shields less is refused and recorded unless a guardian approves it, and
    /// `homework stop` asks for that approval in the child's session.
    func testHomeworksOwnCommandsLoosenNothingWithoutAGuardian() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try desktop.startManagedSession()
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)
        // Another app the child has used, beside the game.
        let other = try desktop.startAsKid([fixture.program("screenward-testwindow"), "--window", "other.Other:Other"])
        defer { other.stop() }
        let otherWindow = try XCTUnwrap(try other.waitForOutputLines(1, timeout: 20).first)
        try use("wmclass:Other", window: otherWindow)
        try use()
        // The guardian sets Homework up at the child's desk: one code approves .child and the setup,
        // and they pick there: the game to discourage, the other app to encourage.
        let (setup, dialog) = try askingAGuardian(["setup", "--child", "--threshold", "30m"])
        try desktop.approve(with: authenticator, in: dialog) { (try? desktop.pickerWindow()) != nil }
        try desktop.pick("wmclass:Game")
        try desktop.pick("wmclass:Other")
        XCTAssertEqual(setup.waitForExit(timeout: 20), 0, setup.standardError)
        XCTAssertNotNil(try homeworkShared("model"), "the guardian's choices are kept")

        // Shielding more needs nobody.
        let shield = try desktop.startAsKid([fixture.program("homework"), "shield", "--child"])
        try desktop.pick("wmclass:Game")
        XCTAssertEqual(shield.waitForExit(timeout: 20), 0, shield.standardError)
        let shielding = try XCTUnwrap(try homeworkStore())
        XCTAssertEqual(shielding.shield.applications?.count, 1)

        // Shielding another app instead of the game lifts the game's shield: refused, recorded.
        let swapping = try desktop.startAsKid([fixture.program("homework"), "shield", "--child"])
        try desktop.pick("wmclass:Other")
        XCTAssertNotNil(swapping.waitForExit(timeout: 20))
        let swapped = (output: swapping.outputLines.joined(separator: "\n"), error: swapping.standardError)
        XCTAssertTrue(swapped.error.contains("asks a guardian first"), swapped.output + swapped.error)
        XCTAssertEqual(try homeworkStore(), shielding, "the game must still be shielded")
        try desktop.waitFor("the refusal recorded", timeout: 15) {
            try events().contains(
                "Homework (\(homework)) tried to lift shield.applications of the settings store homework without "
                    + "a guardian's approval")
        }

        // `homework stop` asks a guardian in the child's session. Every guardian sees the ask from
        // their own account, and says no there: the dialog comes down, nothing changes.
        let (refused, refusedDialog) = try askingAGuardian(["stop"])
        XCTAssertTrue(refused.isRunning, "nothing stops before a guardian approves")
        desktop.screenshot("guardian-dialog-homework-stop.png")
        let listed = try fixture.screenward(as: guardian, ["request", "list"])
        let question = "Homework asks to lift some of \(desktop.kid)'s restrictions: stop Homework's daily schedule"
        XCTAssertTrue(listed.output.contains(question), listed.output + listed.error)
        let ask = try XCTUnwrap(
            listed.output.split(separator: "\n").first { $0.contains(question) }?.split(separator: " ").first)
        let denied = try fixture.screenward(as: guardian, ["request", "deny", String(ask)])
        XCTAssertEqual(denied.status, 0, denied.error)
        XCTAssertNotEqual(refused.waitForExit(timeout: 20), 0)
        XCTAssertTrue(refused.standardError.contains("\(guardian) said no"), refused.standardError)
        try desktop.waitFor("the dialog down") {
            try desktop.runAsKid(["xdotool", "getwindowname", refusedDialog]).status != 0
        }
        XCTAssertEqual(try homeworkStore(), shielding)
        let childRead = try desktop.runAsKid([fixture.program("screenward"), "request", "deny", String(ask)])
        XCTAssertNotEqual(childRead.status, 0, "only a guardian answers")

        // Asked again, a guardian's code at the child's desk lets it stop. (The authenticator's
        // next code: the one that approved the setup is spent.)
        Thread.sleep(forTimeInterval: 30.5 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 30))
        let (stop, stopDialog) = try askingAGuardian(["stop"])
        try desktop.approve(with: authenticator, in: stopDialog) { !stop.isRunning }
        XCTAssertEqual(stop.waitForExit(timeout: 20), 0, stop.standardError)
        XCTAssertEqual(try homeworkStore()?.isEmpty ?? true, true, "the approved stop clears the store")
        let status = try desktop.runAsKid([fixture.program("homework"), "status"])
        XCTAssertTrue(status.output.contains("monitoring: nothing"), status.output + status.error)
        XCTAssertTrue(
            try events().contains(
                "\(guardian) allowed Homework (\(homework)) to lift some of \(desktop.kid)'s restrictions: "
                    + "stop Homework's daily schedule and lift its shields"))
    }

    /// The picker is the session agent's: when that agent ends while it is open (here root
    /// kills it; the child cannot), the app is told why rather than left waiting.
    func testAnAppWhosePickersAgentEndsIsToldWhy() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try desktop.startManagedSession()
        try use()
        let setUp = try fixture.screenward(
            as: guardian,
            [
                "app", "run", "--user", desktop.kid, "--", fixture.program("homework"), "shield", "--child", "--app",
                "wmclass:Game",
            ])
        XCTAssertEqual(setUp.status, 0, setUp.output + setUp.error)
        let shield = try desktop.startAsKid([fixture.program("homework"), "shield", "--child"])
        try desktop.waitFor("the activity picker (Homework: \(shield.standardError))") {
            try desktop.pickerWindow() != nil
        }
        let agent = try XCTUnwrap(desktop.agentPID())
        XCTAssertEqual(kill(agent, SIGKILL), 0)
        XCTAssertNotNil(shield.waitForExit(timeout: 20), "Homework must not wait for a picker nobody shows")
        XCTAssertTrue(
            shield.standardError.contains("the session's agent ended while the picker was open"), shield.standardError)
        XCTAssertEqual(try homeworkStore()?.shield.applications?.count, 1, "nothing changed")
    }

    /// A guardian sets Homework up for the child from their own account, as the talk's parent
    /// does on the child's device: the guardian's own copy of the app, run with `screenward app
    /// run --user`, is served as the child's Homework, with no code. Nobody else may.
    func testAGuardianSetsHomeworkUpForTheChildFromTheirOwnAccount() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let other = try fixture.users.add("other")
        try desktop.startManagedSession()
        let homeworkProgram = fixture.program("homework")
        func forKid(_ user: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
            try fixture.screenward(as: user, ["app", "run", "--user", desktop.kid, "--", homeworkProgram] + arguments)
        }
        let setup = try forKid(
            guardian,
            ["setup", "--child", "--discourage", "wmclass:Game", "--encourage", "wmclass:Reader", "--threshold", "30m"])
        XCTAssertEqual(setup.status, 0, setup.output + setup.error)
        XCTAssertTrue(setup.output.contains("Homework discourages wmclass:Game"), setup.output)
        XCTAssertNil(try desktop.guardianDialog(), "no dialog at the child's desk")
        XCTAssertTrue(
            try events().contains(
                "\(guardian) set Homework (\(homework)) to manage \(desktop.kid)'s screen time, from their own account")
        )
        let status = try desktop.runAsKid([homeworkProgram, "status"])
        XCTAssertTrue(status.output.contains("monitoring: daily, 00:00–23:59"), status.output + status.error)
        XCTAssertTrue(status.output.contains("authorization: approved"), status.output)

        // One app manages a child: another, even the guardian's own, is refused until Homework is revoked.
        try fixture.installApp(
            "org.example.homework-two", name: "Homework Two", executables: [homeworkProgram])
        let second = try fixture.screenward(
            as: guardian,
            [
                "app", "run", "--user", desktop.kid, "--", "/usr/bin/env",
                "SCREENWARD_BUNDLE_ID=org.example.homework-two",
                homeworkProgram, "shield", "--child", "--app", "wmclass:Game",
            ])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(
            second.error.contains("org.example.homework already manages \(desktop.kid)'s screen time"),
            second.output + second.error)

        // Nobody else's copy acts for the child: not another user's, not the child's own.
        let stranger = try forKid(other, ["stop"])
        XCTAssertNotEqual(stranger.status, 0)
        XCTAssertTrue(stranger.error.contains("only a guardian"), stranger.error)
        let direct = try fixture.users.run(
            as: other, [homeworkProgram, "stop"],
            environment: [
                "SCREENWARD_MANAGED_USER": desktop.kid, "SCREENWARD_DAEMON_SOCKET": fixture.socket,
            ])
        XCTAssertTrue((direct.output + direct.error).contains("only a guardian"), direct.output + direct.error)
        let child = try desktop.runAsKid(
            [homeworkProgram, "stop"], environment: ["SCREENWARD_MANAGED_USER": desktop.kid])
        XCTAssertTrue((child.output + child.error).contains("only a guardian"), child.output + child.error)
        XCTAssertTrue(try events().contains("\(desktop.kid) tried `screenward app run --user \(desktop.kid)`"))
        XCTAssertTrue(
            try desktop.runAsKid([homeworkProgram, "status"]).output.contains("monitoring: daily"), "still monitoring")

        // The guardian stops it the same way.
        let stop = try forKid(guardian, ["stop"])
        XCTAssertEqual(stop.status, 0, stop.output + stop.error)
        let stopped = try desktop.runAsKid([homeworkProgram, "status"])
        XCTAssertTrue(stopped.output.contains("monitoring: nothing"), stopped.output + stopped.error)

        // Which apps hold access: the guardian's to see and take away, the child's to see only.
        let listed = try fixture.screenward(as: guardian, ["app", "list", "--user", desktop.kid])
        XCTAssertTrue(listed.output.contains("org.example.homework  child, since"), listed.output + listed.error)
        let own = try desktop.runAsKid([fixture.program("screenward"), "app", "list"])
        XCTAssertTrue(own.output.contains("org.example.homework  child, since"), own.output + own.error)
        let childRevokes = try desktop.runAsKid([fixture.program("screenward"), "app", "revoke", homework])
        XCTAssertNotEqual(childRevokes.status, 0)
        let childNames = try desktop.runAsKid([
            fixture.program("screenward"), "app", "revoke", homework, "--user", desktop.kid,
        ])
        XCTAssertTrue(childNames.error.contains("only a guardian"), childNames.error)
        let revoked = try fixture.screenward(as: guardian, ["app", "revoke", homework, "--user", desktop.kid])
        XCTAssertEqual(revoked.status, 0, revoked.error)
        XCTAssertTrue(
            try desktop.runAsKid([homeworkProgram, "status"]).output.contains("authorization: notDetermined"))
        XCTAssertTrue(
            try events().contains(
                "\(guardian) took \(homework)'s Screen Time access for \(desktop.kid) away, from their own account"))
    }

    /// Homework's own shields (WWDC21) in the child's session: the daemon starts its two
    /// extensions when the agent asks them; the agent reaches them through it. The shield takes
    /// Homework's look, and "Ask for access" defers, redraws it as waiting and asks the guardians.
    /// Homework installed with its shield extensions (the daemon starts them, as the extensions'
    /// own user: what the action delegate keeps is Homework's policy, not the child's to write),
    /// a guardian enrolled, `seen` used by the child, and `homework shield --child` run by the
    /// child and approved with the guardian's code: its picker is up. Returns the guardian and
    /// the waiting `homework shield`.
    private func shieldWithHomework(seen: String) throws -> (guardian: String, setup: ChildProcess) {
        let program = fixture.program("homework")
        try fixture.installApp(
            homework, name: "Homework", executables: [program],
            extensions: ["shield-configuration": [program, "configuration"], "shield-action": [program, "actions"]])
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try desktop.startManagedSession()
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)
        try use(seen)
        let (setup, dialog) = try askingAGuardian(["shield", "--child"])
        try desktop.approve(with: authenticator, in: dialog) { (try? desktop.pickerWindow()) != nil }
        return (guardian, setup)
    }

    func testHomeworksOwnShieldIsDrawnAndItsAskForAccessRedrawsIt() throws {
        let program = fixture.program("homework")
        let (guardian, setup) = try shieldWithHomework(seen: "wmclass:Game")
        try desktop.pick("wmclass:Game")
        XCTAssertEqual(setup.waitForExit(timeout: 20), 0, setup.standardError)
        try desktop.waitFor("the shield over the game") { desktop.coverReports(1) >= 1 }

        let shield = try GameShield(desktop)
        try desktop.waitFor("Homework's green on the shield (the corner is \(shield.corner))") {
            shield.isNear(46, 125, 51)
        }
        desktop.screenshot("homework-child-branded-shield.png")

        try shield.askForAccess()
        try desktop.waitFor("the shield redrawn amber, as waiting (the corner is \(shield.corner))") {
            shield.isNear(250, 168, 38)
        }
        desktop.screenshot("homework-child-asked-for-access.png")
        XCTAssertNotNil(
            try homeworkShared("access-requests"),
            "the action delegate records the request with the daemon, out of the child's reach")
        let stillThere = try desktop.runAsKid(["xdotool", "getwindowname", desktop.windows[0]])
        XCTAssertEqual(stillThere.status, 0, "a deferral keeps the game: \(stillThere.error)")

        // The request reaches the guardians at their own accounts: their command line, and their
        // tray, with a notification; one approves it there, and Homework's action delegate lifts
        // the game's shield (for 15 minutes, its choice).
        XCTAssertTrue(try events().contains("\(desktop.kid) asked the guardians for access to Game"))
        let question = "\(desktop.kid) asks for access to Game (shielded by Homework)"
        let listed = try fixture.screenward(as: guardian, ["request", "list"])
        XCTAssertTrue(listed.output.contains(question), listed.output + listed.error)
        let desk = try GuardianTrayDesk(for: desktop)
        defer { desk.stop() }
        try desk.waitForNotification("\(desktop.kid): Homework asks a guardian")
        let approve = try desk.openSubmenu(question, showing: "Approve")
        try desk.screenshot("tray-guardian-access.png")
        try desk.click(at: approve)
        try desktop.waitFor("Homework lifts the game's shield") {
            (try homeworkStore()?.shield.applications ?? []).isEmpty
        }
        try desktop.waitFor("the game uncovered (the corner is \(shield.corner))") {
            !shield.isNear(250, 168, 38) && !shield.isNear(46, 125, 51)
        }
        desktop.screenshot("homework-child-access-given.png")
        let status = try desktop.runAsKid([program, "status"])
        XCTAssertTrue(status.output.contains("access a guardian gave: until "), status.output + status.error)
        XCTAssertTrue(try events().contains("root gave \(desktop.kid) access to Game (shielded by Homework"))
        XCTAssertTrue(
            try fixture.screenward(as: guardian, ["request", "list"]).output.contains(question) == false,
            "answered once")
    }

    /// The same through a category: Homework shields the Games category, the game is covered as
    /// one of it, and the child's "Ask for access" on it reaches the guardians; one approves on
    /// the command line and Homework's action delegate lifts the category.
    func testAskForAccessOnACategoryShieldReachesTheGuardiansAndHomeworkLiftsIt() throws {
        // The game is the program that shows its window, in the Game category.
        fixture.testApplications = [
            "game.desktop":
                "[Desktop Entry]\nType=Application\nName=Game\nExec=\(fixture.program("screenward-testwindow"))\n"
                + "Categories=Game;\n"
        ]
        let (guardian, setup) = try shieldWithHomework(seen: "game.desktop")
        try desktop.pick("Game", wholeCategory: true)
        XCTAssertEqual(setup.waitForExit(timeout: 20), 0, setup.standardError)
        let store = try XCTUnwrap(try homeworkStore())
        XCTAssertNil(store.shield.applications, "the game is shielded through its category only")
        XCTAssertNotNil(store.shield.applicationCategories, "\(store)")
        try desktop.waitFor("the shield over the game") { desktop.coverReports(1) >= 1 }

        let shield = try GameShield(desktop)
        try desktop.waitFor("Homework's green on the category's shield (\(shield.corner))") {
            shield.isNear(46, 125, 51)
        }
        try shield.askForAccess()
        try desktop.waitFor("the category's shield redrawn amber (\(shield.corner))") { shield.isNear(250, 168, 38) }
        desktop.screenshot("homework-child-category-asked.png")

        // A guardian sees the ask on their command line and approves it there.
        var ask: String?
        try desktop.waitFor("the ask in the guardian's list") {
            let listed = try fixture.screenward(as: guardian, ["request", "list"]).output
            let line = listed.split(separator: "\n").first { $0.contains("(shielded by Homework") }
            ask = line?.split(separator: " ").first { $0.contains("/a") }.map(String.init)
            return ask != nil
        }
        let approved = try fixture.screenward(as: guardian, ["request", "approve", try XCTUnwrap(ask)])
        XCTAssertEqual(approved.status, 0, approved.output + approved.error)
        try desktop.waitFor("Homework lifts the category's shield") {
            try homeworkStore()?.shield.applicationCategories == nil
        }
        try desktop.waitFor("the game uncovered (\(shield.corner))") {
            !shield.isNear(250, 168, 38) && !shield.isNear(46, 125, 51)
        }
        let recorded = try events()
        XCTAssertTrue(recorded.contains("gave \(desktop.kid) access to"), recorded)
    }

    func testAGuardianWithoutAnAuthenticatorIsToldWhatToDoAndGuessedCodesAreSlowedDownAndRecorded() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup], password: guardianPassword)
        try desktop.startManagedSession()
        let (setup, dialog) = try askingAGuardian(["shield", "--child"])

        // Not enrolled yet: any code is answered with what to do instead, and recorded;
        // it costs no try.
        try desktop.submit("123456", into: dialog)
        try desktop.waitFor("the missing authenticator recorded", timeout: 15) {
            try events().contains("\(guardian) has no authenticator set up to approve at \(desktop.kid)'s desk")
        }
        XCTAssertTrue((fixture.daemon?.standardError ?? "").contains("has no authenticator set up"))
        desktop.screenshot("guardian-dialog-not-enrolled.png")

        // The guardian enrolls from their own account; now a child guessing codes is slowed down.
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)
        func wrongAnswers() throws -> Int {
            try events().components(separatedBy: "a wrong code for \(guardian)").count - 1
        }
        for attempt in 1...3 {
            try desktop.submit(try authenticator.wrongCode(), into: dialog)
            try desktop.waitFor("wrong answer \(attempt) recorded", timeout: 15) { try wrongAnswers() == attempt }
        }
        // The third started a 30 s wait: a fourth try is not even checked (Approve is off,
        // and Enter in the field asks nothing), not even the right code.
        desktop.screenshot("guardian-dialog-wait.png")
        let checkedBefore = desktop.codesChecked()
        try type(try authenticator.code(), into: dialog)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(desktop.codesChecked(), checkedBefore)
        XCTAssertEqual(try wrongAnswers(), 3)
        XCTAssertTrue(setup.isRunning, "Homework still waits for a guardian")
        XCTAssertNil(try homeworkStore(), "nothing was approved")
    }
}

/// The shield over the child's game, as the child sees and uses it.
private struct GameShield {
    let desktop: ManagedDesktop
    let game: ScreenRect

    init(_ desktop: ManagedDesktop) throws {
        self.desktop = desktop
        game = try desktop.geometry(of: desktop.windows[0])
    }

    /// The colour at its corner, for messages.
    var corner: String { desktop.pixel(x: game.x + 4, y: game.y + 4).map { "\($0)" } ?? "unreadable" }

    /// Whether its corner is (about) this colour: Homework's green, or its amber while asked.
    func isNear(_ red: Int, _ green: Int, _ blue: Int) -> Bool {
        guard let pixel = desktop.pixel(x: game.x + 4, y: game.y + 4) else { return false }
        return abs(pixel.red - red) + abs(pixel.green - green) + abs(pixel.blue - blue) < 20
    }

    /// "Ask for access", as the child: a click on the shield, Tab to the second button, Enter.
    func askForAccess() throws {
        let click = try desktop.runAsKid([
            "xdotool", "mousemove", "\(game.x + 20)", "\(game.y + 20)", "click", "1", "sleep", "0.3", "key", "Tab",
            "key", "Return",
        ])
        XCTAssertEqual(click.status, 0, click.error)
    }
}
