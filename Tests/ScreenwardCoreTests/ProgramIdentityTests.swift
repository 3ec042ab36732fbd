import Foundation
import XCTest

@testable import ScreenwardCore

/// What a managed session's window is, from what its process is (`ProgramNarrowing`), and
/// whether a user could have put or changed an executable (`ProgramOrigins`), on file
/// statuses given by the test.
final class ProgramIdentityTests: XCTestCase {
    private let catalog = ApplicationCatalog(entries: [
        DesktopEntry(
            id: "debian-xterm.desktop", name: "XTerm", exec: "xterm",
            path: URL(fileURLWithPath: "/usr/share/applications/debian-xterm.desktop")),
        DesktopEntry(
            id: "org.xfce.mousepad.desktop", name: "Mousepad", exec: "mousepad %U",
            path: URL(fileURLWithPath: "/usr/share/applications/m.desktop")),
    ])
    private let mousepad = AppIdentity(key: .desktopEntry("org.xfce.mousepad.desktop"), displayName: "Mousepad")

    func testAWindowClaimingAnotherAppIsItsProcesssApp() {
        let xterm = ProgramFacts(
            pid: 7, executable: "/usr/bin/xterm", installed: true, applications: ["debian-xterm.desktop"])
        let narrowed = ProgramNarrowing.identity(claimed: mousepad, program: xterm, catalog: catalog)
        XCTAssertEqual(narrowed.publicID, "debian-xterm.desktop")
        XCTAssertEqual(narrowed.displayName, "XTerm")
    }

    func testAClaimTheProcessBearsOutStands() {
        let real = ProgramFacts(
            pid: 7, executable: "/usr/bin/mousepad", installed: true, applications: ["org.xfce.mousepad.desktop"])
        XCTAssertEqual(ProgramNarrowing.identity(claimed: mousepad, program: real, catalog: catalog), mousepad)
    }

    func testAnInstalledProgramNoEntryIsForCannotBeAnEntrysApp() {
        let python = ProgramFacts(pid: 7, executable: "/usr/bin/python3.11", installed: true, applications: [])
        XCTAssertEqual(
            ProgramNarrowing.identity(claimed: mousepad, program: python, catalog: catalog).publicID,
            "exe:/usr/bin/python3.11")
        // A class of its own, naming no installed app, it keeps.
        let own = AppIdentity(key: .windowClass("Tk"), displayName: "Tk")
        XCTAssertEqual(ProgramNarrowing.identity(claimed: own, program: python, catalog: catalog), own)
    }

    func testAProgramNotInstalledIsItselfWhateverItClaims() {
        let copy = ProgramFacts(pid: 7, executable: "/home/sam/xterm", installed: false, applications: [])
        XCTAssertEqual(
            ProgramNarrowing.identity(claimed: mousepad, program: copy, catalog: catalog).publicID,
            "exe:/home/sam/xterm")
    }

    func testAWindowWhoseProcessIsNotKnownKeepsItsClaim() {
        XCTAssertEqual(ProgramNarrowing.identity(claimed: mousepad, program: nil, catalog: catalog), mousepad)
    }

    // MARK: Origins

    private let sam: UInt32 = 1001
    private let samGroup: UInt32 = 1001
    private let users: UInt32 = 100

    private func origins(_ files: [String: ProgramOrigins.FileStatus]) -> ProgramOrigins {
        ProgramOrigins(uid: sam, groups: [samGroup, users]) { files[$0] }
    }

    private let root = ProgramOrigins.FileStatus(owner: 0, group: 0, mode: 0o755)
    private func file(_ owner: UInt32, _ mode: Int, group: UInt32 = 0) -> ProgramOrigins.FileStatus {
        ProgramOrigins.FileStatus(owner: owner, group: group, mode: mode)
    }

    func testTheSystemsProgramsAreInstalled() {
        let files = ["/": root, "/usr": root, "/usr/bin": root, "/usr/bin/xterm": file(0, 0o2755)]
        XCTAssertFalse(origins(files).userControls(executable: "/usr/bin/xterm"))
    }

    func testTheirOwnFileOrFolderOrOneTheyMayWriteIsNot() {
        var files = ["/": root, "/home": root, "/home/sam": file(sam, 0o755), "/home/sam/game": file(sam, 0o755)]
        XCTAssertTrue(origins(files).userControls(executable: "/home/sam/game"))
        // Root's file in their folder: they may replace it.
        files["/home/sam/game"] = file(0, 0o755)
        XCTAssertTrue(origins(files).userControls(executable: "/home/sam/game"))
        // A file their group may write.
        let shared = ["/": root, "/opt": root, "/opt/game": file(0, 0o775, group: users)]
        XCTAssertTrue(origins(shared).userControls(executable: "/opt/game"))
        // A folder anyone may write, not sticky.
        let open = ["/": root, "/srv": file(0, 0o777), "/srv/game": file(0, 0o755)]
        XCTAssertTrue(origins(open).userControls(executable: "/srv/game"))
    }

    func testInStickyTmpOnlyWhatIsTheirsIsTheirs() {
        let tmp = file(0, 0o1777)
        let rigs = ["/": root, "/tmp": tmp, "/tmp/rig": root, "/tmp/rig/program": file(0, 0o755)]
        XCTAssertFalse(
            origins(rigs).userControls(executable: "/tmp/rig/program"), "root's folder in /tmp is not theirs to change")
        let theirs = ["/": root, "/tmp": tmp, "/tmp/game": file(sam, 0o755)]
        XCTAssertTrue(origins(theirs).userControls(executable: "/tmp/game"))
    }

    func testDeletedInMemoryOrUnreadableFilesAreNotInstalled() {
        let files = ["/": root, "/usr": root, "/usr/bin": root, "/usr/bin/xterm": file(0, 0o755)]
        XCTAssertTrue(origins(files).userControls(executable: "/usr/bin/xterm (deleted)"))
        XCTAssertTrue(origins(files).userControls(executable: "/memfd:x (deleted)"))
        XCTAssertTrue(origins(files).userControls(executable: "/usr/bin/missing"))
        XCTAssertTrue(origins(files).userControls(executable: "relative"))
    }
}
