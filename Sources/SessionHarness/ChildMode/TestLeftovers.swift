import Foundation
import Synchronization

/// What tests make on the machine (users, groups, a PAM service file, folders) is theirs and
/// goes when the test ends. A run that was killed leaves it behind, so each `LocalUsers` notes
/// what it makes in a record under /run/screenward-tests, with the test process's pid and
/// start time; the first rig of the next run removes what a run that is no longer running
/// left (never what a live run holds), and says what it removed.
public enum TestLeftovers {
    public static let folder = URL(fileURLWithPath: "/run/screenward-tests", isDirectory: true)
    private static let swept = Mutex(false)

    /// This process, as a record names it: its pid and its start time (pids are reused).
    static var thisProcess: String { "\(getpid()) \(startTime(of: getpid()) ?? "?")" }

    /// Appends `line` ("user NAME", "group NAME", "file PATH", "folder PATH") to `prefix`'s record.
    static func note(_ line: String, for prefix: String) {
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let record = folder.appendingPathComponent(prefix)
        if !FileManager.default.fileExists(atPath: record.path) {
            // Not made: the open below fails, and nothing is recorded.
            _ = FileManager.default.createFile(
                atPath: record.path, contents: Data("\(thisProcess)\n".utf8), attributes: [.posixPermissions: 0o600])
        }
        guard let handle = try? FileHandle(forWritingTo: record) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data("\(line)\n".utf8))
    }

    /// `prefix` cleaned up after itself: its record goes.
    static func forget(_ prefix: String) {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(prefix))
    }

    /// Removes, once per process, what runs no longer running left; returns what it removed.
    @discardableResult
    public static func sweep() -> [String] {
        let first = swept.withLock { done in
            defer { done = true }
            return !done
        }
        return first ? removeWhatEndedRunsLeft() : []
    }

    /// Removes what runs no longer running left (every time it is called); returns what.
    @discardableResult
    public static func removeWhatEndedRunsLeft() -> [String] {
        var removed: [String] = []
        for prefix in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let record = folder.appendingPathComponent(prefix)
            guard let text = try? String(contentsOf: record, encoding: .utf8) else { continue }
            var lines = text.split(separator: "\n").map(String.init)
            guard !lines.isEmpty, !isAlive(lines.removeFirst()) else { continue }
            // The users first (their groups may be their primary ones), then the rest.
            for line in lines.reversed() {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "user": _ = try? LocalUsers.capture("/usr/sbin/userdel", ["--force", "--remove", parts[1]])
                case "group": _ = try? LocalUsers.capture("/usr/sbin/groupdel", [parts[1]])
                case "file", "folder": try? FileManager.default.removeItem(atPath: parts[1])
                case "netns": _ = try? LocalUsers.capture("/usr/sbin/ip", ["netns", "del", parts[1]])
                default: continue
                }
                removed.append(line)
            }
            try? FileManager.default.removeItem(at: record)
        }
        if !removed.isEmpty {
            FileHandle.standardError.write(
                Data(
                    """
                    screenward harness: removed what a run no longer running left: \
                    \(removed.joined(separator: ", "))\n
                    """
                    .utf8))
        }
        return removed
    }

    /// Whether the process a record's first line names still runs.
    private static func isAlive(_ owner: String) -> Bool {
        let parts = owner.split(separator: " ").map(String.init)
        guard parts.count == 2, let pid = Int32(parts[0]) else { return false }
        return startTime(of: pid) == parts[1]
    }

    /// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
    private static func startTime(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return nil }
        let fields = stat[afterName.upperBound...].split(separator: " ")
        // After the name come the state (field 3) and the rest: field 22 is index 19 here.
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
