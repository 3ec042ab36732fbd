import Foundation
import XCTest

/// Whether the tests run under continuous integration: `CI` set to anything but
/// empty, "0", "false" or "no" (any case). CI services set 1, true or yes.
public var runningInCI: Bool {
    guard let value = ProcessInfo.processInfo.environment["CI"] else { return false }
    return !["", "0", "false", "no"].contains(value.trimmingCharacters(in: .whitespaces).lowercased())
}

/// Ends a test that cannot run here (a program, a display or a permission is missing).
/// Outside CI the test is skipped with `reason`. Under CI it fails: a test CI
/// cannot run is a broken CI machine, not a pass.
public func cannotRun(_ reason: String, file: StaticString = #filePath, line: UInt = #line) throws -> Never {
    if runningInCI {
        // One line says it: the failure, at the test's own line. The skip only ends the test
        // (a thrown error would be reported as a second failure).
        XCTFail("CI must run this test: \(reason)", file: file, line: line)
        throw XCTSkip("stopped: \(reason)", file: file, line: line)
    }
    throw XCTSkip(reason, file: file, line: line)
}

/// The program `name` found on `$PATH`; if it is not there, `cannotRun` says which
/// Debian `package` provides it.
public func requireProgram(_ name: String, package: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> URL
{
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    try cannotRun("\(name) is not on PATH (apt-get install \(package))", file: file, line: line)
}
