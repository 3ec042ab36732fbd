import Foundation
import ScreenwardCore
import XCTest

final class ProcfsInspectorTests: XCTestCase {
    private let ownPID = ProcessInfo.processInfo.processIdentifier

    // MARK: The real /proc, on this test process

    func testExecutablePathOfThisProcess() throws {
        let binary = try XCTUnwrap(Bundle.main.executableURL).resolvingSymlinksInPath().path
        XCTAssertEqual(ProcfsInspector().executablePath(pid: ownPID), binary)
    }

    func testEnvironmentOfThisProcess() throws {
        // /proc/PID/environ is the environment at exec time, so a variable set now
        // would not show; PATH is always inherited from `swift test`.
        let environment = try XCTUnwrap(ProcfsInspector().environment(pid: ownPID))
        let path = try XCTUnwrap(environment["PATH"])
        XCTAssertFalse(path.isEmpty)
        XCTAssertEqual(path, ProcessInfo.processInfo.environment["PATH"])
    }

    func testCommandLineOfThisProcess() {
        XCTAssertEqual(ProcfsInspector().commandLine(pid: ownPID), CommandLine.arguments)
    }

    func testThisProcessIsNotAFlatpak() {
        XCTAssertNil(ProcfsInspector().flatpakApplicationID(pid: ownPID))
    }

    func testProcessesThatDoNotExistGiveNil() {
        let inspector = ProcfsInspector()
        for pid: Int32 in [Int32.max, 0, -1] {
            XCTAssertNil(inspector.executablePath(pid: pid), "pid \(pid)")
            XCTAssertNil(inspector.environment(pid: pid), "pid \(pid)")
            XCTAssertNil(inspector.flatpakApplicationID(pid: pid), "pid \(pid)")
            XCTAssertNil(inspector.commandLine(pid: pid), "pid \(pid)")
        }
    }

    // MARK: A /proc of our own making

    private func fakeProc() throws -> (root: URL, inspector: ProcfsInspector) {
        let root = try makeTemporaryDirectory()
        return (root, ProcfsInspector(procRoot: root.path))
    }

    func testCommandLinesKeepEmptyArgumentsAndAreBounded() throws {
        let (root, inspector) = try fakeProc()
        try write(Data("java\0-jar\0\0/opt/a b.jar\0".utf8), "8/cmdline", in: root)
        XCTAssertEqual(inspector.commandLine(pid: 8), ["java", "-jar", "", "/opt/a b.jar"])
        try write(Data("C:\\windows\\notepad.exe    ".utf8), "9/cmdline", in: root)
        XCTAssertEqual(
            inspector.commandLine(pid: 9), [#"C:\windows\notepad.exe    "#], "rewritten in place, as Wine does")
        try write(Data(), "10/cmdline", in: root)
        XCTAssertNil(inspector.commandLine(pid: 10), "a kernel thread has none")
        try write(Data(repeating: 0x61, count: 200 * 1024), "11/cmdline", in: root)
        XCTAssertEqual(inspector.commandLine(pid: 11)?.first?.utf8.count, 64 * 1024)
    }

    func testDeletedExecutablesKeepTheirPath() throws {
        let (root, inspector) = try fakeProc()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("7"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("7/exe").path, withDestinationPath: "/usr/lib/app/app (deleted)")
        XCTAssertEqual(inspector.executablePath(pid: 7), "/usr/lib/app/app")
    }

    func testFlatpakInfo() throws {
        let (root, inspector) = try fakeProc()
        try write(
            """
            [Instance]
            name=wrong-group
            [Application]
            # The sandbox's app:
            name = org.example.App
            runtime=runtime/org.gnome.Platform/x86_64/46
            """, "7/root/.flatpak-info", in: root)
        XCTAssertEqual(inspector.flatpakApplicationID(pid: 7), "org.example.App")

        try write("[Runtime]\nname=org.gnome.Platform\n", "8/root/.flatpak-info", in: root)
        XCTAssertNil(inspector.flatpakApplicationID(pid: 8), "only the [Application] group names an app")
        try write("[Application]\nname=../../etc/passwd\n", "9/root/.flatpak-info", in: root)
        XCTAssertNil(inspector.flatpakApplicationID(pid: 9), "an id is never a path")
    }

    func testEnvironmentRecords() throws {
        let (root, inspector) = try fakeProc()
        try write("A=1\u{0}B=x=y\u{0}A=2\u{0}NO_EQUALS\u{0}=no-name\u{0}EMPTY=\u{0}\u{0}", "7/environ", in: root)
        XCTAssertEqual(inspector.environment(pid: 7), ["A": "1", "B": "x=y", "EMPTY": ""])
        try write("", "8/environ", in: root)
        XCTAssertEqual(inspector.environment(pid: 8), [:], "kernel threads have an empty environment")
    }

    func testEnvironmentIsCappedWithoutKeepingACutValue() throws {
        let (root, _) = try fakeProc()
        try write("AAAA=1\u{0}BBBBBBB=2222222\u{0}", "7/environ", in: root)
        // 18 bytes end inside the second value: "AAAA=1\0BBBBBBB=222".
        XCTAssertEqual(
            ProcfsInspector(procRoot: root.path, environmentByteLimit: 18).environment(pid: 7), ["AAAA": "1"])
        XCTAssertEqual(
            ProcfsInspector(procRoot: root.path, environmentByteLimit: 23).environment(pid: 7),
            ["AAAA": "1", "BBBBBBB": "2222222"], "a limit the environment fits in loses nothing")
    }
}
