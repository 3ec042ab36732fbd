import Foundation
import ScreenwardCore
import XCTest

/// A repeated attempt is recorded once a minute per user and kind, and how many more came
/// is told when the minute is over, even when they stopped within it.
final class AttemptRecorderTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    func testALoopIsOneEventAndItsCountIsToldWhenTheMinuteIsOver() {
        var recorder = AttemptRecorder()
        XCTAssertTrue(recorder.shouldRecord("program-held xterm", uid: 1001, at: at(0)))
        // A window re-mapped every 10 ms for 8 s: 800 more, none recorded.
        for step in 1...800 {
            XCTAssertFalse(recorder.shouldRecord("program-held xterm", uid: 1001, at: at(Double(step) / 100)))
        }
        // Another user's and another kind's are their own.
        XCTAssertTrue(recorder.shouldRecord("program-held xterm", uid: 1002, at: at(1)))
        XCTAssertTrue(recorder.shouldRecord("shield-tampered", uid: 1001, at: at(1)))
        XCTAssertEqual(recorder.nextDue, at(60))
        XCTAssertTrue(recorder.due(at: at(59.9)).isEmpty)
        let due = recorder.due(at: at(60))
        XCTAssertEqual(due.map(\.count), [800])
        XCTAssertEqual(due.first?.key, AttemptRecorder.Key(uid: 1001, kind: "program-held xterm"))
        XCTAssertNil(recorder.nextDue, "nothing counted is left to tell")
        // The next attempt starts afresh.
        XCTAssertTrue(recorder.shouldRecord("program-held xterm", uid: 1001, at: at(61)))
        XCTAssertTrue(recorder.due(at: at(200)).isEmpty, "one recorded and none after: nothing to tell")
    }

    func testAClockSetBackStartsAfresh() {
        var recorder = AttemptRecorder()
        XCTAssertTrue(recorder.shouldRecord("refused", uid: 1001, at: at(100)))
        XCTAssertFalse(recorder.shouldRecord("refused", uid: 1001, at: at(110)))
        XCTAssertEqual(recorder.due(at: at(50)).map(\.count), [1])
        XCTAssertTrue(recorder.shouldRecord("refused", uid: 1001, at: at(51)))
    }
}
