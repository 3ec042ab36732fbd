import Foundation
import ScreenwardCore

/// Writes the picker's trace (`PickerTraceLine`) to standard error as it happens.
final class PickerTrace {
    private var announcedReady = false
    private let applications: Int
    typealias Place = PickerTraceLine.Place

    init(applications: Int) {
        self.applications = applications
    }

    func shown(rows: [(row: PickerRow, place: Place)], done: Place?, cancel: Place?, search: Place?) {
        var lines: [String] = []
        for (name, place) in [("button Done", done), ("button Cancel", cancel), ("button search", search)] {
            if let place { lines.append(PickerTraceLine.place(name, place)) }
        }
        for (row, place) in rows {
            lines.append(PickerTraceLine.place(row.traceName, place, ticked: row.hasBox ? row.isTicked : nil))
        }
        lines.append(PickerTraceLine.shown(rows: rows.count))
        if !announcedReady {
            announcedReady = true
            lines.insert(PickerTraceLine.ready(applications: applications), at: 0)
        }
        write(lines)
    }

    func complete(rows: Int) {
        write([PickerTraceLine.complete(rows: rows)])
    }

    func visibleTexts(_ texts: [String]) {
        write(texts.map(PickerTraceLine.text))
    }

    func searched(_ query: String, applications: Int) {
        write([PickerTraceLine.searched(query, applications: applications)])
    }

    func ticked(_ id: String, _ ticked: Bool) {
        write([PickerTraceLine.ticked(id, ticked)])
    }

    private func write(_ lines: [String]) {
        FileHandle.standardError.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }
}
