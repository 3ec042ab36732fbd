// REPORT EXTENSION of the WWDC22 talk: the pie chart of Aniyah's time by category.
// The talk's PieChartReport and makeConfiguration as shown; the SwiftUI view is a
// ReportView that Screenward draws.
import DeviceActivity
import Foundation
import ManagedSettings

extension DeviceActivityReport.Context {
    public static let pieChart = Self("Pie Chart")
}

public struct PieChartView: ReportContent {
    public struct Configuration {
        public let totalUsageByCategory: [ActivityCategory: TimeInterval]
    }

    public let configuration: Configuration

    // A view that renders a pie chart based on Aniyah's usage per category.
    public var body: ReportView {
        .pieChart(
            PieChart(
                title: "Worklog: your time by category",
                slices: configuration.totalUsageByCategory
                    .sorted {
                        $0.value != $1.value
                            ? $0.value > $1.value
                            : ($0.key.localizedDisplayName ?? "") < ($1.key.localizedDisplayName ?? "")
                    }
                    .map { PieChart.Slice(label: $0.key.localizedDisplayName ?? "Other", value: $0.value) }))
    }
}

struct PieChartReport: DeviceActivityReportScene {
    let context: DeviceActivityReport.Context = .pieChart
    let content: (PieChartView.Configuration) -> PieChartView

    func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async
        -> PieChartView.Configuration
    {
        var totalUsageByCategory: [ActivityCategory: TimeInterval] = [:]
        for await day in data {
            for await segment in day.activitySegments {
                for await category in segment.categories {
                    totalUsageByCategory[category.category, default: 0] += category.totalActivityDuration
                }
            }
        }
        return PieChartView.Configuration(totalUsageByCategory: totalUsageByCategory)
    }
}

// REPORT EXTENSION: Draw Custom Device Activity Report (`worklog report-extension`
// calls its main(); Screenward starts it with the data on standard input).
public struct WorklogReportExtension: DeviceActivityReportExtension {
    public init() {}

    public var body: some DeviceActivityReportScene {
        PieChartReport { configuration in
            PieChartView(configuration: configuration)
        }
    }
}

extension Worklog {
    /// The app's report: this week, by day, drawn by the extension.
    public static var thisWeeksReport: DeviceActivityReport {
        var calendar = Calendar.current
        calendar.firstWeekday = 2
        let thisWeek = calendar.dateInterval(of: .weekOfYear, for: Date())!
        return DeviceActivityReport(.pieChart, filter: DeviceActivityFilter(segment: .daily(during: thisWeek)))
    }
}
