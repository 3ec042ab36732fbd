/// The lines `screenward-picker` writes to standard error with `SCREENWARD_PICKER_TRACE`
/// set, and their reading: where each box is on the screen once drawn (for a test's or a
/// benchmark's real clicks), what a search matched, and when the picker was first ready.
public enum PickerTraceLine {
    /// A rectangle on the screen, in root coordinates.
    public struct Place: Hashable, Sendable {
        public var x, y, width, height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public var centre: (x: Int, y: Int) { (x + width / 2, y + height / 2) }
    }

    /// The first frame with the list is being drawn: the catalog is loaded and every row built.
    public static func ready(applications: Int) -> String { "picker ready: \(applications) applications" }
    public static let readyPrefix = "picker ready: "

    /// Every row of the list is built (the rows past the first screen are built after it is shown).
    public static func complete(rows: Int) -> String { "\(completePrefix)\(rows) rows" }
    public static let completePrefix = "picker complete: "

    /// `what` is `app <id>`, `category <id>`, or `button Done|Cancel|search`.
    public static func place(_ what: String, _ place: Place, ticked: Bool? = nil) -> String {
        let state = ticked.map { $0 ? " ticked" : " unticked" } ?? ""
        return "picker place: \(what) at \(place.x),\(place.y) \(place.width)x\(place.height)\(state)"
    }

    /// Every list row's place is followed by this line, so a reader knows the set is whole.
    public static func shown(rows: Int) -> String { "picker shown: \(rows) rows" }
    public static func searched(_ query: String, applications: Int) -> String {
        "picker search: \"\(query)\" matches \(applications) applications"
    }
    public static func ticked(_ what: String, _ ticked: Bool) -> String {
        "picker tick: \(what) \(ticked ? "on" : "off")"
    }

    /// A text the picker shows (each is traced when the list is whole, and after each search).
    public static func text(_ text: String) -> String {
        "\(textPrefix)\(text.replacingOccurrences(of: "\n", with: " "))"
    }
    public static let textPrefix = "picker text: "

    /// The last place given for `what` (`app game.desktop`), and whether it was ticked.
    public static func lastPlace(of what: String, in lines: [String]) -> (place: Place, ticked: Bool?)? {
        let prefix = "picker place: \(what) at "
        guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
        let parts = line.dropFirst(prefix.count).split(separator: " ")
        guard parts.count >= 2 else { return nil }
        let origin = parts[0].split(separator: ",").compactMap { Int($0) }
        let size = parts[1].split(separator: "x").compactMap { Int($0) }
        guard origin.count == 2, size.count == 2 else { return nil }
        let ticked: Bool? = parts.count > 2 ? parts[2] == "ticked" : nil
        return (Place(x: origin[0], y: origin[1], width: size[0], height: size[1]), ticked)
    }

    /// The rows (`app <id>`, `category <id>`) shown at the last full trace of the list.
    public static func lastShownRows(in lines: [String]) -> [String] {
        guard let end = lines.lastIndex(where: { $0.hasPrefix("picker shown: ") }) else { return [] }
        let start = lines[..<end].lastIndex(where: { $0.hasPrefix("picker shown: ") }).map { $0 + 1 } ?? 0
        return lines[start..<end].compactMap { line in
            guard line.hasPrefix("picker place: "), let at = line.range(of: " at ") else { return nil }
            let what = String(line[line.index(line.startIndex, offsetBy: "picker place: ".count)..<at.lowerBound])
            return what.hasPrefix("button ") ? nil : what
        }
    }
}
