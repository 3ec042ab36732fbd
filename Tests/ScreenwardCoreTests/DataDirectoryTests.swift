import Foundation
import XCTest

@testable import ScreenwardCore

/// Where a program finds its data: beside the program running, however it was started.
final class DataDirectoryTests: XCTestCase {
    /// Run by its bare name (through PATH: the package's scripts run `screenward` so, from /),
    /// the program is the one the kernel ran, not a file of that name in the current folder.
    func testAProgramRunByNameIsTheOneTheKernelRan() throws {
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        XCTAssertNotEqual(running.path, "/proc/self/exe", "/proc/self/exe names the running program")
        XCTAssertEqual(DataDirectory.runningExecutable(argument0: "screenward").path, running.path)
        XCTAssertEqual(DataDirectory.runningExecutable(argument0: nil).path, running.path)
        // A path is taken as it is, its links resolved.
        XCTAssertEqual(DataDirectory.runningExecutable(argument0: "/usr/bin/env").path, "/usr/bin/env")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("datadir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("screenward").path, withDestinationPath: "/usr/bin/env")
        XCTAssertEqual(
            DataDirectory.runningExecutable(argument0: folder.appendingPathComponent("screenward").path).path,
            "/usr/bin/env")
    }
}
