import ScreenwardCore
import XCTest

/// Which processes of shielded apps are held though no shield covers them, decided from
/// values: the daemon's table, what is shielded, the display's clients, and the time.
final class ShieldedElsewhereTests: XCTestCase {
    private let start = ContinuousClock.now
    private let xterm = ProgramFacts(
        pid: 10, executable: "/usr/bin/xterm", installed: true, applications: ["debian-xterm.desktop"])
    private let editor = ProgramFacts(
        pid: 20, executable: "/usr/bin/mousepad", installed: true, applications: ["org.xfce.mousepad.desktop"])

    private func held(
        _ policy: inout ShieldedElsewhere, _ programs: [ProgramFacts], clients: Set<Int32> = [], after seconds: Double
    ) -> [Int32]? {
        policy.held(
            programs: programs, isShielded: { $0.executable == "/usr/bin/xterm" }, displayClients: { clients },
            now: start + .milliseconds(Int64(seconds * 1000)))
    }

    func testAShieldedProcessDrawingOnNoWindowHereIsHeldOnceItHadTimeToOpenOne() {
        var policy = ShieldedElsewhere()
        XCTAssertNil(held(&policy, [xterm, editor], after: 0), "a new process has time to open its window here")
        XCTAssertNil(held(&policy, [xterm, editor], after: 1.9))
        XCTAssertEqual(held(&policy, [xterm, editor], after: 2), [10])
        XCTAssertNil(held(&policy, [xterm, editor], after: 3), "unchanged: nothing to tell")
        XCTAssertEqual(held(&policy, [editor], after: 4), [], "gone: let go")
    }

    func testAClientOfTheSessionsDisplayIsLeftToItsShield() {
        var policy = ShieldedElsewhere()
        XCTAssertNil(held(&policy, [xterm], clients: [10], after: 0))
        XCTAssertNil(held(&policy, [xterm], clients: [10], after: 5), "its windows here are covered, or will be")
    }

    func testAWindowTakenFromItsShieldKeepsItsProcessHeld() {
        var policy = ShieldedElsewhere()
        policy.covered([10])
        XCTAssertNil(held(&policy, [xterm], clients: [10], after: 0), "covered now: held as covered")
        policy.covered([])
        XCTAssertEqual(
            held(&policy, [xterm], clients: [10], after: 0.1), [10], "its window was taken: held all the same")
    }

    func testAProcessThatExecsAnotherProgramStartsItsPatienceAgain() {
        var policy = ShieldedElsewhere()
        var before = xterm
        before.executable = "/usr/bin/sh"
        XCTAssertNil(held(&policy, [before], after: 0))
        XCTAssertNil(held(&policy, [xterm], after: 3), "the same pid as xterm only now")
        XCTAssertEqual(held(&policy, [xterm], after: 5), [10])
    }

    func testOnlyAProgramTheSystemDidNotInstallThatMayDrawHasAnIdentityWithoutAWindow() {
        let catalog = ApplicationCatalog(entries: [])
        let drawing = ProgramFacts(
            pid: 1, executable: "/home/kid/myterm", installed: false, applications: [], usesDisplay: true)
        let quiet = ProgramFacts(pid: 2, executable: "/home/kid/mysleep", installed: false, applications: [])
        let unlisted = ProgramFacts(pid: 3, executable: "/usr/bin/sleep", installed: true, applications: [])
        XCTAssertEqual(ProgramNarrowing.identity(of: drawing, catalog: catalog)?.key, .executable("/home/kid/myterm"))
        XCTAssertNil(ProgramNarrowing.identity(of: quiet, catalog: catalog))
        XCTAssertNil(ProgramNarrowing.identity(of: unlisted, catalog: catalog))
    }
}
