import Foundation
import XCTest

@testable import ScreenwardCore

/// The daemon takes a managed user's browser host only from a browser: its parent must run
/// a browser's executable (root's), as the same user, untraced, without the loader's
/// variables. Read from a /proc of the test's making (the real processes are tried by
/// ManagedWebsiteTests as a real child).
final class BrowserVettingTests: XCTestCase {
    private var proc: URL!
    /// A root-owned program standing for the browser's executable.
    private let browser = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path

    override func setUpWithError() throws {
        proc = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: proc, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: proc)
    }

    private func process(
        _ pid: Int32, parent: Int32, executable: String, uid: UInt32 = 1000, tracer: Int32 = 0,
        environment: [String] = ["HOME=/home/kid"]
    ) throws {
        let folder = proc.appendingPathComponent("\(pid)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "Name:\tx\nPPid:\t\(parent)\nTracerPid:\t\(tracer)\nUid:\t\(uid)\t\(uid)\t\(uid)\t\(uid)\n".write(
            to: folder.appendingPathComponent("status"), atomically: true, encoding: .utf8)
        try Data(environment.joined(separator: "\0").utf8 + [0]).write(to: folder.appendingPathComponent("environ"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("exe").path, withDestinationPath: executable)
    }

    private func vet(host: Int32 = 20) -> Result<Int32, VettingRefusal> {
        ProcessVetting(procRoot: proc.path).browser(startingHost: host, uid: 1000, browsers: [browser])
    }

    private func refusal(_ result: Result<Int32, VettingRefusal>) -> String {
        if case .failure(let refusal) = result { return refusal.description }
        return "(taken)"
    }

    func testAHostStartedByTheBrowserIsTakenWithTheBrowsersProcess() throws {
        try process(10, parent: 1, executable: browser)
        try process(20, parent: 10, executable: "/usr/local/bin/screenward-web-host")
        XCTAssertEqual(try vet().get(), 10)
    }

    func testAHostStartedByAnythingElseIsRefused() throws {
        try process(10, parent: 1, executable: "/usr/bin/python3")
        try process(20, parent: 10, executable: "/usr/local/bin/screenward-web-host")
        XCTAssertTrue(
            refusal(vet()).contains("runs /usr/bin/python3, which is not a browser Screenward supports"), refusal(vet())
        )
        // Orphaned (its browser gone): init is no browser either.
        try process(30, parent: 1, executable: "/usr/local/bin/screenward-web-host")
        XCTAssertTrue(refusal(vet(host: 30)).contains("no parent that could be a browser"), refusal(vet(host: 30)))
        XCTAssertTrue(refusal(vet(host: 99)).contains("no parent"), "a host that is gone")
    }

    func testABrowserTracedStartedWithThePreloaderOrSomeoneElsesIsRefused() throws {
        try process(10, parent: 1, executable: browser, tracer: 7)
        try process(11, parent: 1, executable: browser, environment: ["HOME=/home/kid", "LD_PRELOAD=/home/kid/spy.so"])
        try process(12, parent: 1, executable: browser, uid: 1001)
        for (parent, why) in [
            (10, "is being traced (by pid 7)"), (11, "was started with LD_PRELOAD set"), (12, "runs as uid 1001"),
        ] {
            try process(Int32(20 + parent), parent: Int32(parent), executable: "/usr/local/bin/screenward-web-host")
            XCTAssertTrue(
                refusal(vet(host: Int32(20 + parent))).contains(why),
                "\(why): \(refusal(vet(host: Int32(20 + parent))))")
        }
    }

    func testABrowserProgramAnyoneCouldReplaceIsRefused() throws {
        let writable = proc.appendingPathComponent("browser")
        try Data("#!/bin/sh\n".utf8).write(to: writable)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writable.path)
        try process(10, parent: 1, executable: writable.path)
        try process(20, parent: 10, executable: "/usr/local/bin/screenward-web-host")
        let result = ProcessVetting(procRoot: proc.path).browser(startingHost: 20, uid: 1000, browsers: [writable.path])
        XCTAssertTrue(refusal(result).contains("its parent runs \(writable.path)"), refusal(result))
    }
}
