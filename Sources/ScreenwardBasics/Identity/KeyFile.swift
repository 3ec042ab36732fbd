/// A reader for the freedesktop "key file" format shared by desktop entries and
/// `.flatpak-info`: `[Group]` headers, `Key=Value` and `Key[locale]=Value` lines.
///
/// It only reads one group, because that is all either caller needs, and it is
/// lenient about lines it does not understand: one stray line should not cost the
/// user an application that every desktop still shows.
struct KeyFileGroup {
    /// The 1-based line of the group's first header.
    var headerLine: Int
    /// Raw (still escaped) values keyed as written, `Name` or `Name[de]`.
    /// The first occurrence of a key wins.
    var values: [String: String]
}

enum KeyFile {
    /// The group called `name` (repeated headers are merged), and the first line that
    /// holds anything but comments, so a missing group can be reported where a
    /// reader would look for it.
    static func group(_ name: String, in contents: String) -> (group: KeyFileGroup?, firstContentLine: Int) {
        var group: KeyFileGroup?
        var inGroup = false
        var firstContentLine = 0
        var lineNumber = 0
        // Splitting on Characters keeps "\r\n" as one separator, so CRLF files work.
        for rawLine in contents.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        {
            lineNumber += 1
            let line = rawLine.drop(while: { $0 == " " || $0 == "\t" })
            if line.isEmpty || line.hasPrefix("#") { continue }
            if firstContentLine == 0 { firstContentLine = lineNumber }

            if line.hasPrefix("[") {
                inGroup = line.trimmingSpaces() == "[\(name)]"
                if inGroup && group == nil { group = KeyFileGroup(headerLine: lineNumber, values: [:]) }
                continue
            }
            guard inGroup, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals].trimmingSpaces())
            guard !key.isEmpty, group?.values[key] == nil else { continue }
            // Surrounding blanks are layout; a value that needs them writes `\s`.
            group?.values[key] = String(line[line.index(after: equals)...].trimmingSpaces())
        }
        return (group, firstContentLine == 0 ? 1 : firstContentLine)
    }
}

extension Substring {
    /// Drops spaces and tabs at both ends (not newlines: lines are already split).
    func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
