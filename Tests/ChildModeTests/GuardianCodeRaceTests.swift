import Foundation
import SessionHarness
import TestSupport
import XCTest

/// A guardian types their one-time code into the dialog at the child's desk; the child's own
/// program reads every key as it is typed (XRecord: any X client may), tries to take the
/// keyboard before the last digit, and makes a request of its own to type the code into first.
/// The code must approve what the guardian's dialog showed, or nothing: the dialog holds the
/// keyboard (the child's grab fails; before the dialog it succeeds, the control), a second
/// request while it is open is refused and voids it, and no dialog comes up again until the
/// code is stale. All as the real child, against the real daemon and agent.
final class GuardianCodeRaceTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        _ = try requireProgram("gcc", package: "gcc")
        _ = try requireProgram("oathtool", package: "oathtool")
        guard FileManager.default.fileExists(atPath: "/usr/include/X11/extensions/record.h") else {
            try cannotRun("the child's key reader is built with XRecord's headers (libxtst-dev)")
        }
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    func testACodeTheChildsProgramReadsApprovesNothingButTheGuardiansDialog() throws {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        try desktop.startManagedSession()
        let authenticator = try TestAuthenticator.enroll(guardian, with: fixture)
        let reader = try buildKeyReader()
        let request = try writeRequestScript()

        // The control: with no dialog up, the child's program takes the keyboard.
        let probe = try desktop.runAsKid([reader, "--probe"])
        XCTAssertEqual(probe.output.trimmingCharacters(in: .whitespacesAndNewlines), "grab 0", probe.error)

        // The child asks for 15 more minutes at the desk: the guardian's dialog comes up.
        let asked = try desktop.startAsKid(["python3", request, "add15Minutes"])
        var dialog: String?
        try desktop.waitFor("the guardian's dialog") {
            dialog = try desktop.guardianDialog()
            return dialog != nil
        }
        let listening = try desktop.startAsKid([reader])
        try desktop.waitFor("the key reader ready") { listening.outputLines.contains("ready") }

        // The guardian types their code, not yet Enter.
        let code = try authenticator.freshCode(margin: 20)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", "--sync", try XCTUnwrap(dialog)]).status, 0)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "type", "--delay", "150", code]).status, 0)
        try desktop.waitFor("the child's program to have read the code") {
            listening.outputLines.contains("code \(code)")
        }
        XCTAssertTrue(
            listening.outputLines.contains("grab 1"),
            "the child's program must not take the keyboard while the dialog holds it: \(listening.outputLines)")

        // The child's program makes its own request, to type the code there first: refused, and
        // the guardian's dialog is voided; nor can a request made right after take it.
        let second = try desktop.runAsKid(["python3", request, "addRestOfDay"])
        XCTAssertTrue(second.output.contains("no other request may be made meanwhile"), second.output + second.error)
        let third = try desktop.runAsKid(["python3", request, "addRestOfDay"])
        XCTAssertTrue(third.output.contains("ended without an approval a moment ago"), third.output + third.error)
        try desktop.waitFor("the guardian's dialog voided") { try desktop.guardianDialog() == nil }
        try desktop.waitFor("the first request's answer") { !asked.outputLines.isEmpty }
        XCTAssertTrue(asked.outputLines.joined().contains("was voided"), asked.outputLines.joined())

        // The guardian presses Enter: nothing is there to take the code. No code was checked,
        // nothing approved, and the guardians' record says what happened.
        _ = try desktop.runAsKid(["xdotool", "key", "Return"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(desktop.codesChecked(), 0)
        let events = try fixture.screenward(as: guardian, ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("while the guardian's dialog was open: the dialog was voided"), events)
        XCTAssertFalse(events.contains("more on"), "nothing may have been given: \(events)")
    }

    /// The child's key reader, built from C as a child would: XRecord for every key, and a
    /// keyboard grab at the fifth digit (kept, as the attack keeps it, when it is had).
    private func buildKeyReader() throws -> String {
        let source = fixture.work.appendingPathComponent("key-reader.c")
        try Self.keyReader.write(to: source, atomically: true, encoding: .utf8)
        let binary = fixture.work.appendingPathComponent("key-reader").path
        let built = try LocalUsers.capture("/usr/bin/gcc", ["-O1", "-o", binary, source.path, "-lX11", "-lXtst"])
        guard built.status == 0 else { throw HarnessError.failed("gcc: \(built.output) \(built.error)") }
        chmod(binary, 0o755)
        return binary
    }

    /// What the child's tray sends for a guardian's action at the desk, sent by the child's
    /// own script: one line of JSON on the daemon's socket; prints the answer's line.
    private func writeRequestScript() throws -> String {
        let script = fixture.work.appendingPathComponent("ask-a-guardian.py")
        try """
        import json, os, socket, sys
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(os.environ["SCREENWARD_DAEMON_SOCKET"])
        request = {"id": 1, "client": "org.example.racer", "method": "rules.guardian-action",
                   "body": {"action": sys.argv[1]}}
        connection.sendall((json.dumps(request) + "\\n").encode())
        print(connection.makefile().readline().strip(), flush=True)
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o644)
        return script.path
    }

    private static let keyReader = #"""
        #include <X11/XKBlib.h>
        #include <X11/Xlib.h>
        #include <X11/extensions/record.h>
        #include <X11/keysym.h>
        #include <stdio.h>
        #include <string.h>

        static Display *control;
        static char digits[7];
        static int count;

        static void keyPressed(XPointer closure, XRecordInterceptData *data) {
            if (data->category == XRecordFromServer && data->data_len > 0 && (data->data[0] & 0x7f) == KeyPress) {
                KeySym symbol = XkbKeycodeToKeysym(control, data->data[1], 0, 0);
                if (symbol >= XK_0 && symbol <= XK_9 && count < 6) {
                    digits[count++] = (char)('0' + (symbol - XK_0));
                    if (count == 5) {
                        int status = XGrabKeyboard(control, DefaultRootWindow(control), False, GrabModeAsync,
                                                   GrabModeAsync, CurrentTime);
                        XFlush(control);
                        printf("grab %d\n", status);
                    }
                    if (count == 6) printf("code %s\n", digits);
                    fflush(stdout);
                }
            }
            XRecordFreeData(data);
        }

        int main(int argc, char **argv) {
            control = XOpenDisplay(NULL);
            if (!control) return 2;
            if (argc > 1 && strcmp(argv[1], "--probe") == 0) {
                int status = XGrabKeyboard(control, DefaultRootWindow(control), False, GrabModeAsync, GrabModeAsync,
                                           CurrentTime);
                printf("grab %d\n", status);
                XUngrabKeyboard(control, CurrentTime);
                XCloseDisplay(control);
                return 0;
            }
            Display *data = XOpenDisplay(NULL);
            if (!data) return 2;
            XRecordClientSpec clients = XRecordAllClients;
            XRecordRange *range = XRecordAllocRange();
            range->device_events.first = KeyPress;
            range->device_events.last = KeyPress;
            XRecordContext context = XRecordCreateContext(control, 0, &clients, 1, &range, 1);
            XSync(control, False);
            printf("ready\n");
            fflush(stdout);
            XRecordEnableContext(data, context, keyPressed, NULL);
            return 0;
        }
        """#
}
