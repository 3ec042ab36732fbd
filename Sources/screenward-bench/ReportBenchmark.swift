import ArgumentParser
import Foundation
import GRDB
import ScreenwardCore
import SessionHarness

/// Reports on a year of heavy use: a ledger of a million intervals (200 applications in
/// every category, 16 hours a day of short stints with idle breaks and nights), then the
/// built-in report's data and view for random days (by hour) and weeks (by day), each
/// timed from the query to the finished view.
struct ReportBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "A million intervals: a day's report (by hour) and a week's (by day), from the ledger to the view.")

    enum Targets {
        static let day = Target(figure: "day report (by hour), p99", limit: 50, unit: "ms", digits: 1)
        static let week = Target(figure: "week report (by day), p99", limit: 200, unit: "ms", digits: 1)
    }

    @Option(help: "Intervals in the ledger.")
    var intervals = 1_000_000
    @Option(help: "Days and weeks measured.")
    var samples = 100
    @Option(help: "Keep the ledger in this folder (a Screenward home: SCREENWARD_HOME=… screenward report shows it).")
    var keep: String?
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func run() throws {
        let folder =
            keep.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "screenward-report-bench-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(at: folder) } }
        let url = folder.appendingPathComponent("ledger.sqlite")
        try? FileManager.default.removeItem(at: url)
        _ = try Ledger(url: url)  // the schema
        let calendar = Calendar.current
        let end = calendar.startOfDay(for: Date()).addingTimeInterval(20 * 3600)
        let building = ContinuousClock.now
        let start = try YearOfUse(intervals: intervals).write(into: try DatabaseQueue(path: url.path), endingAt: end)
        let ledger = try Ledger(url: url)
        print(
            """
            ledger: \(intervals) intervals from \(start) to \(end), written in \(building.duration(to: .now)) \
            (\(url.path))
            """
        )

        let categories = try DataDirectory.categoryTable()
        var generator = SplitMix(seed: 13)
        // Days (and the weeks that end on them) inside the year written.
        let span = Int(end.timeIntervalSince(start) / 86_400) - 8
        func measure(_ period: ReportQuery.Period) throws -> [Double] {
            var samples: [Double] = []
            for _ in 0..<self.samples {
                let daysBack = Int(generator.next() % UInt64(max(1, span))) + 1
                let day = calendar.date(byAdding: .day, value: -daysBack, to: calendar.startOfDay(for: end))!
                let query = ReportQuery(user: nil, period: period, since: nil, until: nil)
                let clock = ContinuousClock.now
                let report = try ledger.activityReport(
                    query, calendar: calendar, categories: categories, liveSessionID: nil,
                    now: day.addingTimeInterval(86_399))
                _ = BuiltInReport(report: report, categories: categories, language: "en").view
                samples.append(clock.duration(to: .now).milliseconds)
                guard report.totalSeconds > 0 else {
                    throw ValidationError("a day without use on \(day): the ledger is not what the benchmark meant")
                }
            }
            return samples.sorted()
        }
        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date()), "intervals": intervals]
        var verdicts = Verdicts()
        for (period, target) in [(ReportQuery.Period.day, Targets.day), (.week, Targets.week)] {
            let sorted = try measure(period)
            let line =
                """
                p50 \(format(percentile(0.5, of: sorted), 1)) ms, p90 \(format(percentile(0.9, of: sorted), 1)) \
                ms, p99 \(format(percentile(0.99, of: sorted), 1)) ms, max \(format(sorted.last!, 1)) ms
                """
            print("\(period == .day ? "day (by hour)" : "week (by day)"), \(sorted.count) samples: \(line)")
            figures[period.rawValue] = [
                "p50_ms": percentile(0.5, of: sorted), "p90_ms": percentile(0.9, of: sorted),
                "p99_ms": percentile(0.99, of: sorted), "max_ms": sorted.last!,
            ]
            verdicts.check(target, percentile(0.99, of: sorted))
        }
        verdicts.printLines()
        verdicts.record(in: &figures)
        print("Figures written to \(try writeFigures(figures, name: "report", to: output).path)")
        try verdicts.exitIfMissed()
    }
}

/// A year of heavy use written straight into a ledger: stints of a few seconds to a few
/// minutes, most after a change of focus, some after idleness, and a night's rest.
struct YearOfUse {
    var intervals: Int

    static let applications: [(id: String, name: String, icon: String, categories: String)] = {
        let kinds: [(String, String, String)] = [
            ("Game", "applications-games", "Game"), ("Chat", "internet-chat", "Network;InstantMessaging"),
            ("Browser", "web-browser", "Network;WebBrowser"), ("Editor", "accessories-text-editor", "Development"),
            ("Player", "multimedia-video-player", "AudioVideo;Video"), ("Office", "x-office-document", "Office"),
            ("Paint", "applications-graphics", "Graphics"), ("Terminal", "utilities-terminal", "System"),
        ]
        return (0..<200).map { index in
            let (kind, icon, categories) = kinds[index % kinds.count]
            return (
                "bench-\(kind.lowercased())-\(index).desktop", "\(kind) \(index / kinds.count + 1)", icon, categories
            )
        }
    }()

    /// Writes the intervals into the ledger's database, ending at `end`; returns when the first starts.
    func write(into database: DatabaseQueue, endingAt end: Date) throws -> Date {
        var generator = SplitMix(seed: 2026)
        // Back from the end: 16 waking hours a day hold the year's intervals.
        let perDay = 2740.0
        let days = (Double(intervals) / perDay).rounded(.up)
        let first = end.addingTimeInterval(-days * 86_400)
        try database.write { db in
            let session = try Int64.fetchOne(
                db, sql: "INSERT INTO agentSession (pid, display, startedAt) VALUES (1, ':1', ?) RETURNING id",
                arguments: [first.timeIntervalSince1970])!
            for app in Self.applications {
                try db.execute(
                    sql:
                        """
                        INSERT INTO application (token, publicID, displayName, iconName, categories, firstSeen, \
                        lastSeen) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        "bench-token-\(app.id)", app.id, app.name, app.icon, app.categories,
                        first.timeIntervalSince1970, end.timeIntervalSince1970,
                    ])
            }
            let insert = try db.makeStatement(
                sql:
                    """
                    INSERT INTO usageInterval (token, sessionID, startedAt, endedAt, duration, isOpen, endReason) \
                    VALUES (?, ?, ?, ?, ?, 0, ?)
                    """
            )
            var cursor = first.addingTimeInterval(7 * 3600)
            var dayEnd = cursor.addingTimeInterval(16 * 3600)
            // Favourites: a few applications take most of the time.
            for _ in 0..<intervals {
                let favourite = generator.next() % 4 != 0
                let app = Self.applications[Int(generator.next() % (favourite ? 12 : 200))]
                let length = Double(generator.next() % 30_000) / 1000 + 0.5
                let idle = generator.next() % 20 == 0
                try insert.execute(arguments: [
                    "bench-token-\(app.id)", session, cursor.timeIntervalSince1970,
                    cursor.timeIntervalSince1970 + length, length, idle ? "idle" : "focus-change",
                ])
                cursor = cursor.addingTimeInterval(length + (idle ? Double(generator.next() % 600) + 60 : 0.01))
                if cursor > dayEnd {
                    cursor = dayEnd.addingTimeInterval(8 * 3600)
                    dayEnd = cursor.addingTimeInterval(16 * 3600)
                }
            }
        }
        return first
    }
}
