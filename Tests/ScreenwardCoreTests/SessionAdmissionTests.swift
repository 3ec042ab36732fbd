import ScreenwardCore
import XCTest

/// Which of a managed user's logind sessions the daemon enforces, ends or leaves, from what
/// logind says of real sessions (docs/architecture.md, "The doors"; the values are those a
/// booted Debian 12 showed, DESIGN.md).
final class SessionAdmissionTests: XCTestCase {
    private func decide(
        _ type: String, _ sessionClass: String, service: String, remote: Bool = false, consoleAllowed: Bool = false
    ) -> SessionAdmission {
        SessionAdmission.decide(
            SessionAdmission.Session(type: type, sessionClass: sessionClass, service: service, isRemote: remote),
            consoleAllowed: consoleAllowed)
    }

    func testADisplayManagersX11SessionIsEnforced() {
        XCTAssertEqual(decide("x11", "user", service: "lightdm"), .enforce)
        XCTAssertEqual(decide("x11", "user", service: "gdm-password"), .enforce)
    }

    func testAWaylandSessionIsEnforcedAndAMirSessionEnded() {
        XCTAssertEqual(decide("wayland", "user", service: "lightdm"), .enforce)
        XCTAssertEqual(decide("wayland", "user", service: "gdm-password"), .enforce)
        XCTAssertEqual(decide("mir", "user", service: "lightdm"), .end(.wayland))
    }

    func testEveryTextLoginIsEnded() {
        XCTAssertEqual(decide("tty", "user", service: "login"), .end(.console))
        XCTAssertEqual(decide("tty", "user", service: "sshd", remote: true), .end(.console))
        // `ssh -T host command`: no terminal, so logind makes it a background session.
        XCTAssertEqual(decide("unspecified", "background", service: "sshd", remote: true), .end(.console))
        XCTAssertEqual(decide("unspecified", "background", service: "dropbear"), .end(.console))
        // A remote background session whatever its service is called.
        XCTAssertEqual(decide("unspecified", "background", service: "someday-sshd", remote: true), .end(.console))
        XCTAssertEqual(decide("web", "user", service: "cockpit", remote: true), .end(.console))
        XCTAssertEqual(decide("unspecified", "user", service: "login"), .end(.console))
    }

    func testATypeOrClassNotKnownYetIsADoorUntilShownOtherwise() {
        XCTAssertEqual(decide("holo", "user", service: "lightdm"), .end(.console))
        XCTAssertEqual(decide("wayland", "user-early", service: "gdm-password"), .enforce)
        XCTAssertEqual(decide("x11", "user-incomplete", service: "lightdm"), .enforce)
        XCTAssertEqual(decide("tty", "someday", service: "login"), .end(.console))
    }

    func testRootsSessionsTheGreeterAndTheLockerAreLeftAlone() {
        XCTAssertEqual(decide("unspecified", "background", service: "su"), .leave)
        XCTAssertEqual(decide("unspecified", "background", service: "runuser-l"), .leave)
        XCTAssertEqual(decide("unspecified", "background", service: "cron"), .leave)
        XCTAssertEqual(decide("x11", "greeter", service: "lightdm-greeter"), .leave)
        XCTAssertEqual(decide("x11", "lock-screen", service: "lightdm"), .leave)
        XCTAssertEqual(decide("unspecified", "manager", service: "systemd-user"), .leave)
    }

    func testAllowedConsolesAreCountedAndNothingElseChanges() {
        func allowed(_ type: String, _ sessionClass: String, service: String, remote: Bool = false) -> SessionAdmission
        {
            decide(type, sessionClass, service: service, remote: remote, consoleAllowed: true)
        }
        XCTAssertEqual(allowed("tty", "user", service: "login"), .countAsConsole)
        XCTAssertEqual(allowed("tty", "user", service: "sshd", remote: true), .countAsConsole)
        XCTAssertEqual(allowed("unspecified", "background", service: "sshd", remote: true), .countAsConsole)
        XCTAssertEqual(allowed("holo", "user", service: "lightdm"), .countAsConsole)
        // Not consoles: as without the allowance.
        XCTAssertEqual(allowed("x11", "user", service: "lightdm"), .enforce)
        XCTAssertEqual(allowed("wayland", "user", service: "gdm-password"), .enforce)
        XCTAssertEqual(allowed("unspecified", "background", service: "su"), .leave)
        XCTAssertEqual(allowed("x11", "greeter", service: "lightdm-greeter"), .leave)
    }
}
