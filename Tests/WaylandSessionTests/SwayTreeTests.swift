import Foundation
import XCTest

@testable import WaylandSession

/// The focused window found in sway's tree (`GET_TREE`), as sway 1.7 writes it.
final class SwayTreeTests: XCTestCase {
    private func tree(_ json: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    func testANativeWindowIsItsAppIDAndProcess() throws {
        let root = try tree(
            """
            {"type": "root", "focused": false, "nodes": [{"type": "output", "focused": false, "nodes": [
              {"type": "workspace", "focused": false, "nodes": [
                {"type": "con", "focused": false, "app_id": "foot", "pid": 41, "name": "~"},
                {"type": "con", "focused": true, "app_id": "org.xfce.mousepad", "pid": 42, "name": "Untitled 1"}
              ], "floating_nodes": []}]}]}
            """)
        XCTAssertEqual(
            SwayWindows.focused(in: root),
            SwayWindows.Focused(pid: 42, appID: "org.xfce.mousepad", wmClass: nil, wmInstance: nil, title: "Untitled 1")
        )
    }

    func testAnXwaylandWindowIsItsClassAndAFloatingOneIsFound() throws {
        let root = try tree(
            """
            {"type": "root", "nodes": [{"type": "workspace", "nodes": [], "floating_nodes": [
              {"type": "floating_con", "focused": true, "app_id": null, "pid": 7, "name": "xterm",
               "window_properties": {"class": "XTerm", "instance": "xterm", "title": "xterm"}}]}]}
            """)
        XCTAssertEqual(
            SwayWindows.focused(in: root),
            SwayWindows.Focused(pid: 7, appID: nil, wmClass: "XTerm", wmInstance: "xterm", title: "xterm"))
    }

    func testAFocusedWorkspaceIsNoWindow() throws {
        let root = try tree(
            """
            {"type": "root", "nodes": [{"type": "workspace", "focused": true, "nodes": [], "floating_nodes": []}]}
            """)
        XCTAssertNil(SwayWindows.focused(in: root))
    }
}
