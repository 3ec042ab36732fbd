import Foundation
import SessionHarness
import XCTest

/// The layering, as the dynamic linker sees it: the system daemon and the command line take
/// GLib's runtime without the X11 module, so neither links Xlib nor GTK (the daemon runs
/// where no display is, the command line on a server over ssh).
final class ProgramLinkageTests: XCTestCase {
    static let desktopLibraries = [
        "libX11.", "libXss.", "libXext.", "libXRes.", "libXdamage.", "libXfixes.", "libXtst.", "libxcb.", "libgtk-",
        "libgdk-",
    ]

    /// The libraries `program` (as built) loads, by their file names.
    func libraries(of program: String) throws -> [String] {
        let ldd = try ChildProcess(URL(fileURLWithPath: "/usr/bin/ldd"), [try ProjectPrograms.url(of: program).path])
        ldd.closeInput()
        XCTAssertEqual(ldd.waitForExit(timeout: 30), 0, ldd.standardError)
        return ldd.outputLines.compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
    }

    func testTheDaemonAndTheCommandLineLinkNoXlibAndNoGTK() throws {
        for program in ["screenward-daemon", "screenward"] {
            let linked = try libraries(of: program)
            XCTAssertTrue(linked.contains { $0.hasPrefix("libglib-2.0.") }, "\(program) runs on GLib's loop: \(linked)")
            let desktop = linked.filter { library in Self.desktopLibraries.contains { library.hasPrefix($0) } }
            XCTAssertEqual(desktop, [], "\(program) links the desktop's libraries")
        }
        // What the check looks for is there when it should be.
        let agent = try libraries(of: "screenward-agent")
        XCTAssertTrue(
            agent.contains { $0.hasPrefix("libX11.") } && agent.contains { $0.hasPrefix("libgtk-3.") }
                && agent.contains { $0.hasPrefix("libXdamage.") } && agent.contains { $0.hasPrefix("libXtst.") },
            "\(agent)")
    }
}
