import Foundation
import ScreenwardBasics

/// A console login a guardian allowed (`screenward child console allow CHILD`) is one
/// application, Console, under the child's limits and downtime like any other: its id is
/// `console` (`screenward limit add … --app console`, `screenward allow console`).
public enum ConsoleApplication {
    public static let id = "console"
    public static let identity = AppIdentity(
        key: .desktopEntry(id), displayName: "Console", iconName: "utilities-terminal",
        categories: ["System", "TerminalEmulator"])
}

/// When one allowed console login counts, as a value: while its terminal has had input or
/// output within the idle threshold, as an X11 session counts while its keyboard and mouse
/// have (a console has no screen that plays a video by itself). The terminal's times are the
/// kernel's (its access time moves on input, its modification time on output), to 8 s: a
/// terminal's times tell no more, so that one user cannot time another's keys.
///
/// A login with no terminal (`ssh host command`) counts for as long as it is open: nothing
/// tells whether it is in use.
public struct ConsoleUse: Sendable, Equatable {
    /// What to write to the child's usage.
    public enum Step: Sendable, Equatable {
        case open(at: Date)
        case checkpoint(seconds: TimeInterval)
        case close(seconds: TimeInterval)
    }

    public let idleThreshold: TimeInterval
    /// When the daemon saw the login open: nothing before counts.
    public let since: Date
    /// When the open interval started, while one is.
    public private(set) var countingSince: Date?

    public init(since: Date, idleThreshold: TimeInterval) {
        self.since = since
        self.idleThreshold = idleThreshold
    }

    /// The terminal's last input or output was at `lastActivity` (nil: the login has no
    /// terminal); it is `now`.
    public mutating func observe(lastActivity: Date?, now: Date) -> [Step] {
        let activity = lastActivity.map { max($0, since) } ?? now
        let active = now.timeIntervalSince(activity) < idleThreshold
        switch (countingSince, active) {
        case (nil, true):
            countingSince = min(activity, now)
            return [.open(at: countingSince!), .checkpoint(seconds: now.timeIntervalSince(countingSince!))]
        case (let start?, true):
            return [.checkpoint(seconds: max(0, now.timeIntervalSince(start)))]
        case (let start?, false):
            // Idle: the time since the last input or output never counted.
            countingSince = nil
            return [.close(seconds: max(0, activity.timeIntervalSince(start)))]
        case (nil, false):
            return []
        }
    }

    /// The login ended (or the daemon stops) at `now`.
    public mutating func end(lastActivity: Date?, now: Date) -> [Step] {
        guard let start = countingSince else { return [] }
        countingSince = nil
        let activity = lastActivity.map { max($0, since) } ?? now
        let last = now.timeIntervalSince(activity) < idleThreshold ? now : activity
        return [.close(seconds: max(0, last.timeIntervalSince(start)))]
    }
}
