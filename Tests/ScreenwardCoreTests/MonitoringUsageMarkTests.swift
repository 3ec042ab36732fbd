import Foundation
import XCTest

@testable import ScreenwardCore
@testable import UsageLedger

/// What one usage measurement lets the engine skip: only what usage growing a second
/// per second, plus a margin for focus credited late, cannot reach.
final class MonitoringUsageMarkTests: XCTestCase {
    let measuredAt = Date(timeIntervalSince1970: 1_800_000_000)

    func testAMeasurementProvesOnlyWhatTheRateAllows() {
        let mark = UsageMark(at: measuredAt, used: 100)
        XCTAssertTrue(mark.staysBelow(200, upTo: measuredAt.addingTimeInterval(90)))
        XCTAssertFalse(mark.staysBelow(200, upTo: measuredAt.addingTimeInterval(100)), "reachable by now")
        XCTAssertFalse(
            mark.staysBelow(200, upTo: measuredAt.addingTimeInterval(100 - UsageMark.margin / 2)), "within the margin")
        XCTAssertFalse(mark.staysBelow(200, upTo: measuredAt.addingTimeInterval(-1)), "a clock set back proves nothing")
        XCTAssertFalse(mark.staysBelow(101, upTo: measuredAt), "the margin applies at once")
    }
}
