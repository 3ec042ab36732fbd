import DeviceActivity
import Foundation
import ScreenwardBasics

/// Screenward's own report, as a view for the renderer: a pie of the time by category
/// (the Worklog chart), bars by hour (a day) or by day (a week) stacked by category, and
/// a table of the applications with their icons.
public struct BuiltInReport {
    public var report: ActivityReport
    public var categories: CategoryTable
    public var language: String
    /// Whose report, for the title ("Screen time of sam").
    public var person: String?

    public init(report: ActivityReport, categories: CategoryTable, language: String, person: String? = nil) {
        self.report = report
        self.categories = categories
        self.language = language
        self.person = person
    }

    /// The report's texts in its language (po/, context "report").
    private var texts: Translations { Translations.forLanguage(language) }

    private func duration(_ seconds: Double) -> String { ReportText.duration(seconds, language: language) }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: report.timeZone) ?? .current
        return calendar
    }

    /// The table's rows: the most used applications, then the rest summed up.
    public static let tableRows = 15

    /// The websites' table's rows.
    public static let websiteRows = 10

    public var view: ReportView {
        var parts: [ReportView] = [.title(title), .text(summary), .row([pieChart, barChart]), table]
        if let websites { parts.append(websites) }
        if let otherComputers { parts.append(otherComputers) }
        return .column(parts)
    }

    /// The household's other computers, when the person used any in the range: the charts and
    /// tables above are this computer's.
    var otherComputers: ReportView? {
        guard let elsewhere = report.elsewhere, !elsewhere.isEmpty else { return nil }
        let rows = elsewhere.map { computer in
            ReportTable.Row(cells: [
                .text(computer.name), .text(computer.mostUsed.prefix(3).joined(separator: ", ")),
                .duration(computer.seconds),
            ])
        }
        return .table(
            ReportTable(
                title: texts("On the household's other computers", context: "report"),
                columns: [
                    texts("Computer", context: "report"), texts("Most used", context: "report"),
                    texts("Time", context: "report"),
                ],
                rows: rows))
    }

    /// The most used websites (their time is part of their browsers'), when any was recorded.
    var websites: ReportView? {
        let sites = report.secondsByWebsite
        guard !sites.isEmpty else { return nil }
        var rows = sites.prefix(Self.websiteRows).map { site, seconds in
            let category = categories.category(ofWebsite: site)
            return ReportTable.Row(
                swatch: category.map(ReportPalette.color(forCategory:)),
                cells: [
                    .text(HostName.readable(site)),
                    .text(category.map { categories.displayName(of: $0, language: language) } ?? ""),
                    .duration(seconds),
                ])
        }
        if sites.count > Self.websiteRows {
            let rest = sites.dropFirst(Self.websiteRows)
            rows.append(
                ReportTable.Row(cells: [
                    .text(texts("{count} more", context: "report", ["count": "\(rest.count)"])), .text(""),
                    .duration(rest.reduce(0) { $0 + $1.seconds }),
                ]))
        }
        return .table(
            ReportTable(
                title: texts("Websites", context: "report"),
                columns: [
                    texts("Website", context: "report"), texts("Category", context: "report"),
                    texts("Time", context: "report"),
                ],
                rows: rows))
    }

    var title: String {
        let formatter = DateFormatter()
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: language)
        let lastMoment = report.until.addingTimeInterval(-1)
        let dates: String
        if calendar.isDate(report.since, inSameDayAs: lastMoment) {
            formatter.setLocalizedDateFormatFromTemplate("EEEEdMMMMyyyy")
            dates = formatter.string(from: report.since)
        } else {
            formatter.setLocalizedDateFormatFromTemplate("EEEdMMM")
            dates = "\(formatter.string(from: report.since)) – \(formatter.string(from: lastMoment))"
        }
        guard let person else { return texts("Screen time: {dates}", context: "report", ["dates": dates]) }
        return texts("Screen time of {person}: {dates}", context: "report", ["person": person, "dates": dates])
    }

    var summary: String {
        let pickups = report.segments.reduce(0) { $0 + $1.pickups }
        var parts = [texts("{duration} in all", context: "report", ["duration": duration(report.totalSeconds)])]
        if let elsewhere = report.elsewhere, !elsewhere.isEmpty {
            let there = elsewhere.reduce(0) { $0 + $1.seconds }
            parts[0] = texts(
                "{here} on this computer, {everywhere} on every computer", context: "report",
                ["here": duration(report.totalSeconds), "everywhere": duration(report.totalSeconds + there)])
        }
        let clock = DateFormatter()
        clock.timeZone = calendar.timeZone
        clock.locale = Locale(identifier: language)
        clock.dateFormat = report.segmentation == .hourly ? "HH:mm" : "EEE HH:mm"
        if let first = report.segments.compactMap(\.firstPickup).min() {
            let time = clock.string(from: first)
            parts.append(
                pickups == 1
                    ? texts("1 pickup, the first at {time}", context: "report", ["time": time])
                    : texts(
                        "{count} pickups, the first at {time}", context: "report",
                        ["count": "\(pickups)", "time": time]))
        }
        if let longest = report.segments.compactMap(\.longestActivity).max(by: { $0.duration < $1.duration }) {
            parts.append(
                texts(
                    "longest stretch {duration} ({start}–{end})", context: "report",
                    [
                        "duration": duration(longest.duration), "start": clock.string(from: longest.start),
                        "end": clock.string(from: longest.end),
                    ]))
        }
        return parts.joined(separator: " · ")
    }

    var pieChart: ReportView {
        .pieChart(
            PieChart(
                title: texts("By category", context: "report"),
                slices: report.secondsByCategory.map {
                    PieChart.Slice(
                        label: categories.displayName(of: $0.category, language: language), value: $0.seconds,
                        color: ReportPalette.color(forCategory: $0.category))
                }))
    }

    var barChart: ReportView {
        let label = DateFormatter()
        label.timeZone = calendar.timeZone
        label.locale = Locale(identifier: language)
        label.dateFormat = report.segmentation == .hourly ? "H" : "EEE d"
        let order = report.secondsByCategory.map(\.category)
        let bars = report.segments.map { segment in
            var byCategory: [String: Double] = [:]
            for use in segment.applications {
                byCategory[report.application(use.application)?.category ?? CategoryTable.other, default: 0] +=
                    use.seconds
            }
            return BarChart.Bar(
                label: label.string(from: segment.start),
                parts: order.compactMap { id in
                    byCategory[id].map { BarChart.Part(value: $0, color: ReportPalette.color(forCategory: id)) }
                })
        }
        return .barChart(
            BarChart(
                title: report.segmentation == .hourly
                    ? texts("By hour", context: "report") : texts("By day", context: "report"),
                bars: bars))
    }

    var table: ReportView {
        var pickups: [String: Int] = [:]
        for segment in report.segments {
            for use in segment.applications { pickups[use.application, default: 0] += use.pickups }
        }
        let applications = report.secondsByApplication
        var rows = applications.prefix(Self.tableRows).map { app, seconds in
            ReportTable.Row(
                icon: app.iconName, swatch: ReportPalette.color(forCategory: app.category),
                cells: [
                    .text(app.name), .text(categories.displayName(of: app.category, language: language)),
                    .duration(seconds),
                    .number(Double(pickups[app.id] ?? 0)),
                ])
        }
        if applications.count > Self.tableRows {
            let rest = applications.dropFirst(Self.tableRows)
            rows.append(
                ReportTable.Row(cells: [
                    .text(texts("{count} more", context: "report", ["count": "\(rest.count)"])), .text(""),
                    .duration(rest.reduce(0) { $0 + $1.seconds }),
                    .number(Double(rest.reduce(0) { $0 + (pickups[$1.application.id] ?? 0) })),
                ]))
        }
        return .table(
            ReportTable(
                title: texts("Applications", context: "report"),
                columns: [
                    texts("Application", context: "report"), texts("Category", context: "report"),
                    texts("Time", context: "report"), texts("Pickups", context: "report"),
                ],
                rows: rows))
    }
}

/// How reports write durations: `2h 05m`, `14m`, `45s` (in English; po/ has the others,
/// context "duration").
public enum ReportText {
    public static func duration(_ seconds: Double, language: String = "en") -> String {
        let texts = Translations.forLanguage(language)
        let whole = Int(seconds.rounded())
        if whole >= 3600 {
            let minutes = whole % 3600 / 60
            return texts(
                "{hours}h {minutes}m", context: "duration",
                ["hours": "\(whole / 3600)", "minutes": minutes < 10 ? "0\(minutes)" : "\(minutes)"])
        }
        if whole >= 60 { return texts("{minutes}m", context: "duration", ["minutes": "\(whole / 60)"]) }
        return texts("{seconds}s", context: "duration", ["seconds": "\(whole)"])
    }
}
