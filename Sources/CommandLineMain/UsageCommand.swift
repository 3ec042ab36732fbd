import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

struct UsageCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: texts("Show time spent in each application, and on each website under its browser.", context: "help"),
        discussion: texts("Times: now, today, yesterday, an ISO-8601 date (2026-11-21) or date-time (2026-11-21T14:30, 2026-11-21T14:30:00Z). The open interval counts up to now. A website is its registrable domain (www.youtube.com and m.youtube.com are youtube.com); its time is part of its browser's. Websites are counted in Chromium and Firefox ESR with Screenward's extension (`sudo screenward browsers install`).", context: "help"))

    @Option(help: ArgumentHelp(texts("Start of the range (default: today).", context: "help")))
    var since: String = "today"

    @Option(help: ArgumentHelp(texts("End of the range (default: now).", context: "help")))
    var until: String = "now"

    @Flag(help: ArgumentHelp(texts("Print one JSON object instead of a table.", context: "help")))
    var json = false

    // swift-format-ignore
    @Flag(help: ArgumentHelp(texts("Print CSV (RFC 4180: a header, then id, name, token, seconds, website, computer: a row per application, then one per website it showed; computer names another computer of a household) instead of a table.", context: "help")))
    var csv = false

    // swift-format-ignore
    @Flag(help: ArgumentHelp(texts("Websites on their own, whichever browser showed them (with --csv: website, seconds).", context: "help")))
    var web = false

    @Option(help: ArgumentHelp(texts("A managed user's usage, from the system daemon (guardians).", context: "help")))
    var user: String?

    func validate() throws {
        if json && csv { throw ValidationError(texts("choose one of --json and --csv", context: "cli")) }
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
            throw ValidationError(ScreenwardCommand.spoken(error))
        }
        guard start <= end else {
            // swift-format-ignore
            throw ValidationError(texts("--since ({since}) is after --until ({until})", context: "cli", ["since": since, "until": until]))
        }

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
            if web { return try printJSON(WebUsageJSON(report)) }
            try printJSON(UsageJSON(report))
        } else if csv {
            print(web ? Self.webCSV(report) : Self.csv(report), terminator: "")
        } else if web {
            printWebTable(report)
        } else {
            printTable(report)
        }
    }

    private static func field(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func webCSV(_ report: UsageReport) -> String {
        var lines = ["website,seconds"]
        for site in report.websites {
            lines.append([field(site.readableDomain), String(format: "%.3f", site.seconds)].joined(separator: ","))
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// The range's ends as the table's first line shows them (`{since}`, `{until}`): dates and times.
    private static func rangeValues(_ report: UsageReport) -> [String: String] {
        func formatter(_ template: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = writtenLocale
            formatter.setLocalizedDateFormatFromTemplate(template)
            return formatter
        }
        // The date and the time apart, with a comma between: ICU's pattern for both puts a
        // word between them ("at") that would be English in the pseudo-locale.
        let (day, clock) = (formatter("yMMMd"), formatter("jm"))
        let written = { (date: Date) in "\(day.string(from: date)), \(clock.string(from: date))" }
        return ["since": written(report.since), "until": written(report.until)]
    }

    /// `On laptop:`, above another computer of the household's rows.
    private static func computerHeading(_ computer: String) -> String {
        texts("On {computer}:", context: "cli", ["computer": computer])
    }

    private func printWebTable(_ report: UsageReport) {
        print(texts("Websites from {since} to {until}", context: "cli", Self.rangeValues(report)))
        let sites = report.websites
        guard !sites.isEmpty else {
            // swift-format-ignore
            print("  " + texts("(no website recorded: is Screenward's extension in the browser? `screenward browsers install`)", context: "cli"))
            return
        }
        let width = min(40, max(7, sites.map(\.readableDomain.count).max() ?? 0))
        for site in sites { print("  \(Self.pad(site.readableDomain, width))  \(formatDuration(site.seconds))") }
        let label = Self.padLabel(texts("Total", context: "cli"), width)
        print("  \(label)  \(formatDuration(sites.reduce(0) { $0 + $1.seconds }))")
        for computer in report.elsewhere {
            let sites = UsageReport(since: report.since, until: report.until, apps: computer.apps).websites
            guard !sites.isEmpty else { continue }
            print(Self.computerHeading(computer.name))
            for site in sites { print("  \(Self.pad(site.readableDomain, width))  \(formatDuration(site.seconds))") }
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }

    /// A label of the table's own (`Total`), padded as `pad` pads but never cut short: a
    /// translation may be longer than the English the columns were made for.
    private static func padLabel(_ label: String, _ width: Int) -> String {
        pad(label, max(width, label.count))
    }

    /// RFC 4180: CRLF line ends, fields with a comma, quote or line end in quotes.
    /// A row per application and one per website it showed, this computer's first, then the
    /// household's other computers' (named in the last column; empty: this computer).
    static func csv(_ report: UsageReport) -> String {
        var lines = ["id,name,token,seconds,website,computer"]
        let computers = [(name: "", apps: report.apps)] + report.elsewhere.map { ($0.name, $0.apps) }
        for (computer, apps) in computers {
            for app in apps {
                lines.append(
                    [
                        field(app.id), field(app.name), field(app.token), String(format: "%.3f", app.seconds), "",
                        field(computer),
                    ].joined(separator: ","))
                for site in app.websites {
                    lines.append(
                        [
                            field(app.id), field(app.name), field(app.token), String(format: "%.3f", site.seconds),
                            field(site.readableDomain), field(computer),
                        ].joined(separator: ","))
                }
            }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    private func printTable(_ report: UsageReport) {
        print(texts("Usage from {since} to {until}", context: "cli", Self.rangeValues(report)))
        let everyApp = report.apps + report.elsewhere.flatMap(\.apps)
        let nameWidth = min(32, max(17, everyApp.map(\.name.count).max() ?? 0))
        let idWidth = min(40, max(2, everyApp.map(\.id.count).max() ?? 0))
        printApps(report.apps, total: report.totalSeconds, nameWidth: nameWidth, idWidth: idWidth)
        // A household's other computers, as this one last read them (docs/household.md).
        for computer in report.elsewhere {
            print(Self.computerHeading(computer.name))
            printApps(computer.apps, total: computer.totalSeconds, nameWidth: nameWidth, idWidth: idWidth)
        }
        if !report.elsewhere.isEmpty {
            let label = Self.padLabel(texts("On every computer", context: "cli"), nameWidth + 2)
            print("\(label)  \(Self.pad("", idWidth))  \(formatDuration(report.householdSeconds))")
        }
    }

    private func printApps(_ apps: [UsageReport.AppUsage], total: Double, nameWidth: Int, idWidth: Int) {
        guard !apps.isEmpty else {
            print("  " + texts("(nothing recorded)", context: "cli"))
            return
        }
        let pad = Self.pad
        for app in apps {
            print("  \(pad(app.name, nameWidth))  \(pad(app.id, idWidth))  \(formatDuration(app.seconds))")
            for site in app.websites.prefix(10) {
                print(
                    "    \(pad(site.readableDomain, nameWidth - 2))  \(pad("", idWidth))"
                        + "  \(formatDuration(site.seconds))"
                )
            }
            let unlisted = app.websites.count - 10
            if unlisted == 1 {
                print("    " + texts("… and 1 more website (--web lists them all)", context: "cli"))
            } else if unlisted > 1 {
                // swift-format-ignore
                print("    " + texts("… and {count} more websites (--web lists them all)", context: "cli", ["count": String(unlisted)]))
            }
        }
        let label = Self.padLabel(texts("Total", context: "cli"), nameWidth)
        print("  \(label)  \(pad("", idWidth))  \(formatDuration(total))")
    }
}

/// The documented JSON shape of `screenward usage --json`.
struct UsageJSON: Encodable {
    struct App: Encodable {
        var id: String
        var name: String
        var token: String
        var seconds: Double
        var websites: [WebUsageJSON.Site]
    }

    /// Another computer of the household's, as this one last read it (its apps have no token).
    struct Computer: Encodable {
        var name: String
        var totalSeconds: Double
        var apps: [App]

        enum CodingKeys: String, CodingKey {
            case name, apps
            case totalSeconds = "total_seconds"
        }
    }

    var since: String
    var until: String
    /// This computer's.
    var totalSeconds: Double
    var apps: [App]
    /// The household's other computers (empty on a computer in no household).
    var computers: [Computer]
    var householdTotalSeconds: Double

    enum CodingKeys: String, CodingKey {
        case since, until, apps, computers
        case totalSeconds = "total_seconds"
        case householdTotalSeconds = "household_total_seconds"
    }

    init(_ report: UsageReport) {
        since = iso8601(report.since)
        until = iso8601(report.until)
        totalSeconds = report.totalSeconds
        apps = report.apps.map(Self.app)
        computers = report.elsewhere.map {
            Computer(name: $0.name, totalSeconds: $0.totalSeconds, apps: $0.apps.map(Self.app))
        }
        householdTotalSeconds = report.householdSeconds
    }

    private static func app(_ app: UsageReport.AppUsage) -> App {
        App(
            id: app.id, name: app.name, token: app.token, seconds: app.seconds,
            websites: app.websites.map(WebUsageJSON.Site.init))
    }
}

/// The JSON shape of `screenward usage --web --json`, and of each browser's `websites`.
struct WebUsageJSON: Encodable {
    struct Site: Encodable {
        /// As a person reads it (`bücher.de`), and in ASCII as browsers write it.
        var name: String
        var domain: String
        var seconds: Double
        var hosts: [UsageReport.HostUsage]

        init(_ site: UsageReport.SiteUsage) {
            name = site.readableDomain
            domain = site.domain
            seconds = site.seconds
            hosts = site.hosts
        }
    }

    var since: String
    var until: String
    var totalSeconds: Double
    var websites: [Site]

    enum CodingKeys: String, CodingKey {
        case since, until, websites
        case totalSeconds = "total_seconds"
    }

    init(_ report: UsageReport) {
        since = iso8601(report.since)
        until = iso8601(report.until)
        let sites = report.websites
        totalSeconds = sites.reduce(0) { $0 + $1.seconds }
        websites = sites.map(Site.init)
    }
}
