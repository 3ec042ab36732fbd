import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The agent's own GTK theme is data/gtk-theme compiled into GtkBase as bytes: the bytes
/// committed must be what scripts/generate-agent-theme.sh makes of the folder now.
final class AgentThemeResourceTests: XCTestCase {
    func testTheCompiledThemeIsCurrent() throws {
        _ = try requireProgram("glib-compile-resources", package: "libglib2.0-dev-bin")
        let checkout = try Self.checkout(above: URL(fileURLWithPath: #filePath))
        let generated = FileManager.default.temporaryDirectory.appendingPathComponent(
            "agent-theme-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: generated) }
        let script = try ChildProcess(
            checkout.appendingPathComponent("scripts/generate-agent-theme.sh"), [generated.path])
        XCTAssertEqual(script.waitForExit(timeout: 60), 0, script.standardError)
        let committed = try String(
            contentsOf: checkout.appendingPathComponent("Sources/GtkBase/AgentThemeResource.swift"), encoding: .utf8)
        XCTAssertEqual(
            try String(contentsOf: generated, encoding: .utf8), committed,
            "data/gtk-theme changed: run scripts/generate-agent-theme.sh and commit its output")
    }

    /// The checkout this test file is in.
    private static func checkout(above file: URL) throws -> URL {
        var candidate = file.deletingLastPathComponent()
        while candidate.path != "/" {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("data/gtk-theme").path) {
                return candidate
            }
            candidate.deleteLastPathComponent()
        }
        throw HarnessError.failed("no data/gtk-theme above \(file.path)")
    }
}
