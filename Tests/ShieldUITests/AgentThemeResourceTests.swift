import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The agent's own GTK theme is data/gtk-theme compiled into GtkBase as bytes: the bytes
/// committed must be what scripts/generate-agent-theme.sh makes of the folder now.
final class AgentThemeResourceTests: XCTestCase {
    func testTheCompiledThemeIsCurrent() throws {
        _ = try requireProgram("glib-compile-resources", package: "libglib2.0-dev-bin")
        // Tests/ShieldUITests/this file: the checkout is two folders up.
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
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
}
