import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

struct UsageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show time spent in each application.",
        discussion: """
            Times: now, today, yesterday, an ISO-8601 date (2026-11-21) or date-time \
            (2026-11-21T14:30, 2026-11-21T14:30:00Z). The open interval counts up to now.
            """)

    @Option(help: "Start of the range (default: today).")
    var since: String = "today"

    @Option(help: "End of the range (default: now).")
    var until: String = "now"

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Flag(help: "Print CSV (RFC 4180: a header, then id, name, token, seconds per application) instead of a table.")
    var csv = false

    @Option(help: "A managed user's usage, from the system daemon (guardians).")
    var user: String?

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
    }

    func run() throws {
        // A managed account's usage is the daemon's (its ledger is out of the child's
        // reach), and so is the day: the system's, whatever TZ says.
        let environment = ProcessInfo.processInfo.environment
        if user != nil || DaemonAddress.socketManagingThisAccount(environment: environment) != nil {
            let daemon = DaemonConnection()
            defer { daemon.close() }
            let report = try daemon.call(ChildMethods.usage, UsageQuery(user: user, since: since, until: until))
            try output(report)
            return
        }
        let now = Date()
        let start: Date
        let end: Date
        do {
            start = try TimeArgument(since).resolve(now: now)
            end = try TimeArgument(until).resolve(now: now)
        } catch {
            throw ValidationError("\(error)")
        }
        guard start <= end else { throw ValidationError("--since (\(since)) is after --until (\(until))") }

        let home = ScreenwardHome.fromEnvironment()
        var report = UsageReport(since: start, until: end, apps: [])
        if let ledger = try openLedgerIfPresent(home) {
            let live = try liveSession(ledger, home: home)
            report = try ledger.usage(since: start, until: end, liveSessionID: live?.id, now: now)
        }
        try output(report)
    }

    private func output(_ report: UsageReport) throws {
        if json {
            try printJSON(UsageJSON(report))
        } else if csv {
            print(Self.csv(report), terminator: "")
        } else {
            printTable(report)
        }
    }

    /// RFC 4180: CRLF line ends, fields with a comma, quote or line end in quotes.
    static func csv(_ report: UsageReport) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var lines = ["id,name,token,seconds"]
        for app in report.apps {
            lines.append([field(app.id), field(app.name), field(app.token), String(format: "%.3f", app.seconds)].joined(separator: ","))
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    private func printTable(_ report: UsageReport) {
        let formatter = DateFormatter()
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        print("Usage from \(formatter.string(from: report.since)) to \(formatter.string(from: report.until))")
        guard !report.apps.isEmpty else {
            print("  (nothing recorded)")
            return
        }
        let nameWidth = min(32, max(11, report.apps.map(\.name.count).max() ?? 0))
        let idWidth = min(40, max(2, report.apps.map(\.id.count).max() ?? 0))
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
        }
        for app in report.apps {
            print("  \(pad(app.name, nameWidth))  \(pad(app.id, idWidth))  \(formatDuration(app.seconds))")
        }
        print("  \(pad("Total", nameWidth))  \(pad("", idWidth))  \(formatDuration(report.totalSeconds))")
    }
}

/// The documented JSON shape of `screenward usage --json`.
struct UsageJSON: Encodable {
    struct App: Encodable {
        var id: String
        var name: String
        var token: String
        var seconds: Double
    }

    var since: String
    var until: String
    var totalSeconds: Double
    var apps: [App]

    enum CodingKeys: String, CodingKey {
        case since, until, apps
        case totalSeconds = "total_seconds"
    }

    init(_ report: UsageReport) {
        since = iso8601(report.since)
        until = iso8601(report.until)
        totalSeconds = report.totalSeconds
        apps = report.apps.map { App(id: $0.id, name: $0.name, token: $0.token, seconds: $0.seconds) }
    }
}
