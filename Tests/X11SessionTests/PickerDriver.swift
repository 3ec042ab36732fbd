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
    /// Whose standard error carries the picker's trace, and how many of its lines came before.
    private let tracer: ChildProcess?
    private let linesBefore: Int

    /// Starts `program` (`screenward-picker`, or `screenward pick`, which runs it) with the
    /// trace on, and waits until the list is shown. An app's picker (`FamilyActivityPicker`)
    /// is the state owner's: `owner` is that agent, started with `SCREENWARD_PICKER_TRACE`,
    /// whose standard error then carries the trace.
    init(
        _ test: XSessionTestCase, program: String, _ arguments: [String], environment: [String: String],
        shownBy owner: ChildProcess? = nil
    ) throws {
        self.test = test
        display = environment["DISPLAY"] ?? ""
        tracer = owner
        linesBefore = owner?.standardError.split(separator: "\n").count ?? 0
        process = try ChildProcess(
            try ProjectPrograms.url(of: program), arguments,
            environment: environment.merging(["SCREENWARD_PICKER_TRACE": "1"]) { $1 })
        try waitFor("the picker ready", timeout: 20) { lines.contains { $0.hasPrefix(PickerTraceLine.readyPrefix) } }
        try waitForList(after: PickerTraceLine.readyPrefix)
    }

    var lines: [String] {
        (tracer ?? process).standardError.split(separator: "\n").dropFirst(linesBefore).map(String.init)
    }

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

    /// A real click in the middle of `row` (`app chat.desktop`, `category Game`, `button Done`),
    /// which must be on the screen now (`reveal` brings a row there as a person would).
    func click(_ row: String) throws {
        if !row.hasPrefix("button ") {
            XCTAssertTrue(shownRows.contains(row), "\(row) is not on the screen: \(shownRows)")
        }
        let place = try XCTUnwrap(PickerTraceLine.lastPlace(of: row, in: lines), "\(row) is not shown: \(shownRows)")
            .place
        let ticks = lines.filter { $0.hasPrefix("picker tick: ") }.count
        try test.runTool(
            "xdotool", ["mousemove", "\(place.centre.x)", "\(place.centre.y)", "click", "1"], display: display)
        if !row.hasPrefix("button ") {
            try waitFor("\(row) ticked or unticked") { lines.filter { $0.hasPrefix("picker tick: ") }.count > ticks }
        }
    }

    /// Types `text` with real key presses into the focused window (the picker's search).
    func type(_ text: String) throws {
        try test.runTool("xdotool", ["type", "--delay", "40", text], display: display)
        try waitForList(after: "picker search: \"\(text)\"")
    }

    /// Brings `row` onto the screen as a person would: it is there already, or turns of the
    /// mouse wheel over the list scroll it into view (at most `steps` of ten turns; with no
    /// `row`, to the list's end). Returns whether it is shown.
    @discardableResult
    func scroll(to row: String? = nil, steps: Int = 60) throws -> Bool {
        for _ in 0..<steps where row.map({ !shownRows.contains($0) }) ?? true {
            let before = shownRows
            guard let anyRow = before.first, let place = PickerTraceLine.lastPlace(of: anyRow, in: lines)?.place else {
                return false
            }
            try test.runTool(
                "xdotool",
                [
                    "mousemove", "\(place.centre.x)", "\(place.centre.y)", "click", "--repeat", "10", "--delay", "20",
                    "5",
                ], display: display)
            settle()
            // At its end the list no longer moves.
            if shownRows == before { break }
        }
        return row.map { shownRows.contains($0) } ?? true
    }

    /// Waits until the list has been still for a moment: GTK animates a scroll, and each of
    /// its frames is traced; the places that count are the last ones.
    private func settle(quiet: TimeInterval = 0.4, limit: TimeInterval = 5) {
        func traces() -> Int { lines.filter { $0.hasPrefix("picker shown: ") }.count }
        let end = Date().addingTimeInterval(limit)
        var count = traces()
        var quietSince = Date()
        while Date() < end {
            Thread.sleep(forTimeInterval: 0.05)
            let now = traces()
            if now != count {
                count = now
                quietSince = Date()
            } else if Date().timeIntervalSince(quietSince) >= quiet {
                return
            }
        }
    }

    func key(_ name: String) throws {
        try test.runTool("xdotool", ["key", name], display: display)
    }

    /// Waits for the picker to end; returns its exit status.
    func exitStatus() throws -> Int32 {
        guard let status = process.waitForExit(timeout: 15) else {
            throw HarnessError.timedOut("the picker did not end: \(process.standardError.suffix(1500))")
        }
        return status
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                let trace = lines.suffix(20).joined(separator: "\n")
                throw HarnessError.timedOut("\(what); picker's trace: \(trace); \(process.standardError.suffix(1000))")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
