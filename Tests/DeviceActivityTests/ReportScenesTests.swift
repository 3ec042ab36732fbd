import DeviceActivity
import XCTest

/// A report extension with several scenes (Apple's `DeviceActivityReportSceneBuilder`): each
/// context is drawn by its scene, and a context none draws is nobody's.
final class ReportScenesTests: XCTestCase {
    struct Titled: DeviceActivityReportScene {
        let context: DeviceActivityReport.Context
        let content: (String) -> ReportView

        func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> String {
            "\(context.rawValue) of \(data.elements.count) day(s)"
        }
    }

    struct TwoScenes: DeviceActivityReportExtension {
        var body: some DeviceActivityReportScene {
            Titled(context: .init("Total")) { .text($0) }
            Titled(context: .init("Pie Chart")) { .text("pie: " + $0) }
        }
    }

    struct OneScene: DeviceActivityReportExtension {
        var body: some DeviceActivityReportScene {
            Titled(context: .init("Total")) { .text($0) }
        }
    }

    func testEachContextIsDrawnByItsScene() async {
        let body = TwoScenes().body
        XCTAssertEqual(body.contexts, [.init("Total"), .init("Pie Chart")])
        let total = await body.view(for: .init("Total"), data: [])
        XCTAssertEqual(total, .text("Total of 0 day(s)"))
        let pie = await body.view(for: .init("Pie Chart"), data: [])
        XCTAssertEqual(pie, .text("pie: Pie Chart of 0 day(s)"))
        let none = await body.view(for: .init("Other"), data: [])
        XCTAssertNil(none)
        XCTAssertEqual(OneScene().body.contexts, [.init("Total")])
    }
}
