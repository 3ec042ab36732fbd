import ArgumentParser
import CommandLineSupport
import Foundation
import ScreenwardCore
import ScreenwardIPC

public struct ScreenwardCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line,
    /// its errors in the reader's language.
    public static func main() {
        ProgramStart.prepare()
        runSpeaking(texts)
    }

    public init() {}

    // swift-format-ignore
    public static let configuration = CommandConfiguration(
        commandName: "screenward",
        abstract: texts("Screen time for X11 desktops: usage, rules, shields, children, guardians and households.", context: "help"),
        discussion: texts("A person's own usage and rules are read from their ledger in $SCREENWARD_HOME (default $XDG_DATA_HOME/screenward), whether or not their agent runs; what changes them, and `select` and `pick`, go through the agent. With --user CHILD, and for `child`, `guardian`, `request` and `household`, the system daemon answers, which keeps managed users' state (guardians and root). screenward(7) is the overview: the modes, the files, the daemon, what child mode protects against.", context: "help"),
        subcommands: [
            UsageCommand.self, ReportCommand.self, StatusCommand.self, ShieldsCommand.self, ShieldCommand.self,
            BlockCommand.self, SelectCommand.self, PickCommand.self,
            LimitCommand.self, DowntimeCommand.self, AllowCommand.self, PauseCommand.self, RequestCommand.self,
            ChildCommand.self, GuardianCommand.self, ExtensionsCommand.self, NotifyCommand.self,
            BrowsersCommand.self, HouseholdCommand.self, AppCommand.self,
        ])
}

/// Opens the ledger for reading, or says there is none yet.
func openLedgerIfPresent(_ home: ScreenwardHome) throws -> Ledger? {
    guard FileManager.default.fileExists(atPath: home.ledgerURL.path) else { return nil }
    return try Ledger(url: home.ledgerURL)
}

/// The running agent's session, if an agent holds the home's lock.
func liveSession(_ ledger: Ledger, home: ScreenwardHome) throws -> (id: Int64, pid: Int32)? {
    guard AgentLock.isHeld(in: home) else { return nil }
    return try ledger.unfinishedAgentSession()
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// ISO-8601 with milliseconds and the local offset, as scripts expect.
func iso8601(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = .current
    return formatter.string(from: date)
}

/// `1h 02m 05s`, `4m 10s`, `12.3s`: short enough for a table, exact enough to compare. The
/// units are the reader's language's; the numbers are formatted here, so that the minutes and
/// seconds keep their two digits (the columns line up) whatever the translation.
func formatDuration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.down))
    let hours = whole / 3600
    let minutes = whole % 3600 / 60
    let rest = whole % 60
    let twoDigitMinutes = String(format: "%02d", minutes)
    let twoDigitSeconds = String(format: "%02d", rest)
    if hours > 0 {
        // swift-format-ignore
        return texts("{hours}h {minutes}m {seconds}s", context: "cli.duration", ["hours": String(hours), "minutes": twoDigitMinutes, "seconds": twoDigitSeconds])
    }
    if minutes > 0 {
        // swift-format-ignore
        return texts("{minutes}m {seconds}s", context: "cli.duration", ["minutes": String(minutes), "seconds": twoDigitSeconds])
    }
    return texts("{seconds}s", context: "cli.duration", ["seconds": String(format: "%.1f", seconds)])
}
