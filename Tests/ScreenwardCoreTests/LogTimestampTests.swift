import Foundation
import XCTest

@testable import ScreenwardBasics

final class LogTimestampTests: XCTestCase {
    /// The same text as Foundation's ISO 8601 style (UTC, fractional seconds) over leap
    /// days, century years, the epoch, dates before it and random instants.
    func testItMatchesFoundationsISO8601Style() {
        let style = Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: true)
        var milliseconds: [Int64] = [
            0, -1, -86_400_000, 951_782_400_500, 951_868_799_999, 4_107_542_400_000, 1_795_700_274_756,
            -2_208_988_800_000, 253_402_300_799_999,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            milliseconds.append(Int64.random(in: -5_000_000_000_000...10_000_000_000_000, using: &generator))
        }
        for millisecond in milliseconds {
            // 0.4 ms into the millisecond: a double cannot hold most whole milliseconds, and
            // the two formatters would then truncate its rounding error differently.
            let seconds = Double(millisecond) / 1000 + 0.0004
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(LogTimestamp.string(date), date.formatted(style), "at \(seconds)")
        }
    }

    func testTheCivilDateOfKnownDays() {
        XCTAssertTrue(LogTimestamp.civilDate(daysSinceEpoch: 0) == (1970, 1, 1))
        XCTAssertTrue(LogTimestamp.civilDate(daysSinceEpoch: 11016) == (2000, 2, 29))
        XCTAssertTrue(LogTimestamp.civilDate(daysSinceEpoch: -1) == (1969, 12, 31))
        XCTAssertTrue(LogTimestamp.civilDate(daysSinceEpoch: 20_783) == (2026, 11, 26))
    }
}
