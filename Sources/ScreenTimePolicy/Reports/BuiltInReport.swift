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
                title: "On the household's other computers", columns: ["Computer", "Most used", "Time"], rows: rows))
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
                    .text("\(rest.count) more"), .text(""), .duration(rest.reduce(0) { $0 + $1.seconds }),
                ]))
        }
        return .table(ReportTable(title: "Websites", columns: ["Website", "Category", "Time"], rows: rows))
    }

    var title: String {
        let formatter = DateFormatter()
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: language)
        let whose = person.map { " of \($0)" } ?? ""
        let lastMoment = report.until.addingTimeInterval(-1)
        if calendar.isDate(report.since, inSameDayAs: lastMoment) {
            formatter.setLocalizedDateFormatFromTemplate("EEEEdMMMMyyyy")
            return "Screen time\(whose): \(formatter.string(from: report.since))"
        }
        formatter.setLocalizedDateFormatFromTemplate("EEEdMMM")
        return "Screen time\(whose): \(formatter.string(from: report.since)) – \(formatter.string(from: lastMoment))"
    }

    var summary: String {
        let pickups = report.segments.reduce(0) { $0 + $1.pickups }
        var parts = ["\(ReportText.duration(report.totalSeconds)) in all"]
        if let elsewhere = report.elsewhere, !elsewhere.isEmpty {
            let there = elsewhere.reduce(0) { $0 + $1.seconds }
            parts[0] = """
                \(ReportText.duration(report.totalSeconds)) on this computer, \
                \(ReportText.duration(report.totalSeconds + there)) on every computer
                """
        }
        let clock = DateFormatter()
        clock.timeZone = calendar.timeZone
        clock.dateFormat = report.segmentation == .hourly ? "HH:mm" : "EEE HH:mm"
        if let first = report.segments.compactMap(\.firstPickup).min() {
            parts.append("\(pickups) pickup\(pickups == 1 ? "" : "s"), the first at \(clock.string(from: first))")
        }
        if let longest = report.segments.compactMap(\.longestActivity).max(by: { $0.duration < $1.duration }) {
            parts.append(
                """
                longest stretch \(ReportText.duration(longest.duration)) \
                (\(clock.string(from: longest.start))–\(clock.string(from: longest.end)))
                """
            )
        }
        return parts.joined(separator: " · ")
    }

    var pieChart: ReportView {
        .pieChart(
            PieChart(
                title: "By category",
                slices: report.secondsByCategory.map {
                    PieChart.Slice(
                        label: categories.displayName(of: $0.category, language: language), value: $0.seconds,
                        color: ReportPalette.color(forCategory: $0.category))
                }))
    }

    var barChart: ReportView {
        let label = DateFormatter()
        label.timeZone = calendar.timeZone
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
        return .barChart(BarChart(title: report.segmentation == .hourly ? "By hour" : "By day", bars: bars))
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
                    .text("\(rest.count) more"), .text(""), .duration(rest.reduce(0) { $0 + $1.seconds }),
                    .number(Double(rest.reduce(0) { $0 + (pickups[$1.application.id] ?? 0) })),
                ]))
        }
        return .table(
            ReportTable(title: "Applications", columns: ["Application", "Category", "Time", "Pickups"], rows: rows))
    }
}

/// How reports write durations: `2h 05m`, `14m`, `45s`.
public enum ReportText {
    public static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 3600 { return String(format: "%dh %02dm", whole / 3600, whole % 3600 / 60) }
        if whole >= 60 { return "\(whole / 60)m" }
        return "\(whole)s"
    }
}
