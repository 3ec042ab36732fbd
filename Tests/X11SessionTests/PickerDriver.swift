import Foundation
import ScreenwardCore
import SessionHarness
import XCTest

/// The activity picker on a test's display, driven as a person would: real clicks at the
/// places its trace gives (`SCREENWARD_PICKER_TRACE`), real keys on the focused window.
final class PickerDriver {
    let process: ChildProcess
    let display: String
    private let test: XSessionTestCase

    /// Starts `program` (`screenward-picker`, or `screenward pick`, which runs it) with the
    /// trace on, and waits until the list is shown.
    init(_ test: XSessionTestCase, program: String, _ arguments: [String], environment: [String: String]) throws {
        self.test = test
        display = environment["DISPLAY"] ?? ""
        process = try ChildProcess(
            try ProjectPrograms.url(of: program), arguments, environment: environment.merging(["SCREENWARD_PICKER_TRACE": "1"]) { $1 })
        try process.waitForStandardError(containing: PickerTraceLine.readyPrefix, timeout: 20)
        try waitForList(after: PickerTraceLine.readyPrefix)
    }

    var lines: [String] { process.standardError.split(separator: "\n").map(String.init) }

    /// The rows shown (`app ID`, `category ID`) at the last trace of the list.
    var shownRows: [String] { PickerTraceLine.lastShownRows(in: lines) }

    func isTicked(_ row: String) -> Bool? { PickerTraceLine.lastPlace(of: row, in: lines)?.ticked }

    /// Waits until the list has been traced again after the last line starting with `marker`.
    func waitForList(after marker: String) throws {
        try waitFor("the list shown after \(marker)") {
            let lines = lines
            guard let mark = lines.lastIndex(where: { $0.hasPrefix(marker) }) else { return false }
            return lines[mark...].contains { $0.hasPrefix("picker shown: ") }
        }
    }

    /// A real click in the middle of `row` (`app chat.desktop`, `category Game`, `button Done`).
    func click(_ row: String) throws {
        let place = try XCTUnwrap(PickerTraceLine.lastPlace(of: row, in: lines), "\(row) is not shown: \(shownRows)").place
        let ticks = lines.filter { $0.hasPrefix("picker tick: ") }.count
        try test.runTool("xdotool", ["mousemove", "\(place.centre.x)", "\(place.centre.y)", "click", "1"], display: display)
        if !row.hasPrefix("button ") {
            try waitFor("\(row) ticked or unticked") { lines.filter { $0.hasPrefix("picker tick: ") }.count > ticks }
        }
    }

    /// Types `text` with real key presses into the focused window (the picker's search).
    func type(_ text: String) throws {
        try test.runTool("xdotool", ["type", "--delay", "40", text], display: display)
        try waitForList(after: "picker search: \"\(text)\"")
    }

    func key(_ name: String) throws {
        try test.runTool("xdotool", ["key", name], display: display)
    }

    /// Waits for the picker to end; returns its exit status.
    func exitStatus() throws -> Int32 {
        guard let status = process.waitForExit(timeout: 15) else { throw HarnessError.timedOut("the picker did not end: \(process.standardError.suffix(1500))") }
        return status
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut("\(what); picker's trace: \(process.standardError.suffix(2000))") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
