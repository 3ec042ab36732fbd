import Foundation
import Synchronization

/// The computer's time zone as the system sets it (`/etc/localtime`), whatever `TZ`
/// says: a managed user's day, schedules and limits follow the system's clock, not a
/// zone the child picks for their own processes. Read again at most once a minute, so
/// a change of zone by an administrator counts without a restart.
public final class SystemTimeZone: Sendable {
    private let localtime: String
    private let state = Mutex<(zone: TimeZone, readAt: Date)?>(nil)

    public init(localtime: String = "/etc/localtime") {
        self.localtime = localtime
    }

    /// A Gregorian calendar in the system's zone.
    public func calendar() -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone()
        return calendar
    }

    public func zone() -> TimeZone {
        state.withLock { cached in
            if let cached, Date().timeIntervalSince(cached.readAt) < 60 { return cached.zone }
            let zone = Self.read(localtime)
            cached = (zone, Date())
            return zone
        }
    }

    /// The zone /etc/localtime names (Debian makes it a link into /usr/share/zoneinfo),
    /// else /etc/timezone's, else UTC (what the C library assumes without either).
    static func read(_ localtime: String) -> TimeZone {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            let range = target.range(of: "zoneinfo/"),
            let zone = TimeZone(identifier: String(target[range.upperBound...]))
        {
            return zone
        }
        let named = URL(fileURLWithPath: localtime).deletingLastPathComponent().appendingPathComponent("timezone")
        if let text = try? String(contentsOf: named, encoding: .utf8),
            let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return zone
        }
        return TimeZone(identifier: "UTC") ?? .gmt
    }
}
