import ChildModeCore
import Foundation
import SessionHarness
import TestSupport
import XCTest

/// How the daemon finds and vets a managed child's compositor, against real sway run as a real
/// account: the session leader's outermost compositor and its sockets, a sway nested in it
/// passed over, and a sway started with the loader's variables refused.
final class SessionCompositorTests: AccountSessionTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSway()
        try makeWork("compositor")
    }

    func testTheSessionsOwnSwayIsFoundWithItsSocketsAndANestedOneIsNot() throws {
        let user = try makeAccount("cam")
        let sway = try PrivateWaylandSession(user: user, in: work)
        session = sway
        let uid = try XCTUnwrap(UInt32(try LocalUsers.capture("/usr/bin/id", ["-u", user]).output.trimmed))

        let found = try SessionCompositor.find(leader: sway.leaderPID, uid: uid).get()
        XCTAssertEqual(found.executable, "/usr/bin/sway")
        XCTAssertEqual(found.family, .sway)
        XCTAssertEqual(found.waylandSocket, sway.runtimeDirectory.appendingPathComponent(sway.display).path)
        XCTAssertEqual(found.swaySocket, sway.swaySocket)
        XCTAssertNil(ProcessVetting().compositor(found, uid: uid))
        // Another account's session is not this one's.
        XCTAssertEqual(
            SessionCompositor.find(leader: sway.leaderPID, uid: uid + 1),
            .failure(.noCompositor(leader: sway.leaderPID)))

        // A sway the child runs inside their session (a window of the first) is not the session's.
        let nested = try sway.start(
            ["/usr/bin/sway", "--config", "/dev/null"],
            environment: ["WLR_BACKENDS": "wayland", "WLR_RENDERER": "pixman"])
        clients.append(nested)
        try waitFor("the nested sway's window") { try sway.windows().count == 1 }
        XCTAssertEqual(try SessionCompositor.find(leader: sway.leaderPID, uid: uid).get(), found)
    }

    func testASwayStartedWithTheLoadersVariablesIsRefused() throws {
        let user = try makeAccount("cal")
        let sway = try PrivateWaylandSession(
            user: user, in: work, extraEnvironment: ["LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6"])
        session = sway
        let uid = try XCTUnwrap(UInt32(try LocalUsers.capture("/usr/bin/id", ["-u", user]).output.trimmed))
        let found = try SessionCompositor.find(leader: sway.leaderPID, uid: uid).get()
        let refusal = try XCTUnwrap(ProcessVetting().compositor(found, uid: uid))
        XCTAssertTrue(refusal.description.contains("was started with LD_PRELOAD set"), refusal.description)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
