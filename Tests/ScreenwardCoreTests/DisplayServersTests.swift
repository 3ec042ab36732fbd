import ChildModeCore
import ScreenwardBasics
import XCTest

/// Which display servers of a managed child's are closed: the policy alone (ProgramHoldTests
/// has the child start a real Xvfb).
final class DisplayServersTests: XCTestCase {
    private func candidate(
        _ executable: String, parent: String = "/usr/bin/bash", installed: Bool = true,
        connectedToSessionCompositor: Bool = false
    ) -> DisplayServers.Candidate {
        DisplayServers.Candidate(
            program: ProgramFacts(pid: 7, executable: executable, installed: installed, applications: []),
            parentExecutable: parent, connectedToSessionCompositor: connectedToSessionCompositor)
    }

    private func closes(_ candidate: DisplayServers.Candidate, allowed: Set<String> = []) -> Bool {
        DisplayServers.toClose([candidate], allowed: allowed) == [candidate]
    }

    func testTheChildsOwnServersAreClosed() {
        XCTAssertTrue(closes(candidate("/usr/bin/Xvfb")))
        XCTAssertTrue(closes(candidate("/usr/lib/xorg/Xorg", parent: "/usr/bin/xinit")))
        XCTAssertTrue(closes(candidate("/usr/bin/Xtigervnc")))
        XCTAssertTrue(closes(candidate("/usr/bin/sway")))
        XCTAssertTrue(closes(candidate("/usr/bin/weston (deleted)")), "a server upgraded while it runs is one still")
    }

    func testNestedServersAndOtherProgramsAreLeftAlone() {
        XCTAssertFalse(closes(candidate("/usr/bin/Xephyr")), "its window is an app of the child's display")
        XCTAssertFalse(closes(candidate("/usr/bin/Xnest")))
        XCTAssertFalse(closes(candidate("/usr/bin/gnome-shell")), "an X11 session's window manager too")
        XCTAssertFalse(closes(candidate("/usr/bin/xterm")))
        XCTAssertFalse(closes(candidate("/usr/bin/Xvfb-run")))
    }

    func testADisplayManagersServerForTheSessionIsLeftAlone() {
        XCTAssertFalse(closes(candidate("/usr/lib/xorg/Xorg", parent: "/usr/libexec/gdm-x-session")))
        XCTAssertFalse(
            closes(candidate("/usr/lib/xorg/Xorg", parent: "/usr/lib/x86_64-linux-gnu/sddm/sddm-helper-start-x11user")))
        // The same helper's name anywhere the child can write is not the display manager's.
        XCTAssertTrue(closes(candidate("/usr/lib/xorg/Xorg", parent: "/home/sam/gdm-x-session")))
        XCTAssertTrue(closes(candidate("/usr/lib/xorg/Xorg", parent: "")), "a parent gone is not a display manager")
    }

    func testAnXwaylandDrawingThroughTheSessionsCompositorIsLeftAlone() {
        XCTAssertFalse(closes(candidate("/usr/bin/Xwayland", parent: "/sbin/init", connectedToSessionCompositor: true)))
        XCTAssertTrue(
            closes(candidate("/usr/bin/Xwayland", parent: "/sbin/init")), "one drawing nowhere the agent sees")
        XCTAssertTrue(
            closes(candidate("/usr/bin/sway", connectedToSessionCompositor: true)), "a nested compositor is the child's"
        )
        XCTAssertTrue(closes(candidate("/usr/bin/Xvfb", connectedToSessionCompositor: true)))
    }

    func testAGuardianAllowsOneByItsExecutable() {
        XCTAssertFalse(closes(candidate("/usr/bin/Xvfb"), allowed: ["/usr/bin/Xvfb"]))
        XCTAssertTrue(closes(candidate("/usr/bin/Xvnc"), allowed: ["/usr/bin/Xvfb"]))
    }
}
