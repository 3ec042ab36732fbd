import ArgumentParser
import CommandLineSupport
@_spi(Screenward) import DeviceActivity
import Foundation
import ReportUI
import ScreenwardCore
import ScreenwardIPC

/// The program's texts (its help, its errors), in the session's language.
let texts = Translations.session

/// `screenward report`: where the time went, as charts, in a window or a PNG file.
public struct ReportCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        runSpeaking(texts)
    }

    public init() {}

    // swift-format-ignore
    public static let configuration = CommandConfiguration(
        commandName: "screenward-report",
        abstract: texts("Show where the time went: a pie by category, bars by hour or day, and the applications.", context: "help"),
        discussion: texts("Without --png, a window with two pages: today (by hour) and this week (by day). With --png, the same charts in a PNG file (no display needed): today's, or this week's with --week. --since and --until take the times `screenward usage` takes. With --app and --context, the report is drawn by that app's report extension (its `device-activity-report`), run with no network.", context: "help"))

    // swift-format-ignore
    @Flag(help: ArgumentHelp(texts("The week (by day) instead of the day (by hour), for --png or a --since/--until range.", context: "help")))
    var week = false
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("Start of the range (default: the start of today, or of this week with --week).", context: "help")))
    var since: String?
    @Option(help: ArgumentHelp(texts("End of the range (default: now).", context: "help")))
    var until: String?
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("Draw into this PNG file instead of a window.", context: "help"), valueName: "file"))
    var png: String?
    @Option(help: ArgumentHelp(texts("The PNG's width in pixels.", context: "help")))
    var width = 960
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("A managed user's report, from the system daemon (guardians).", context: "help")))
    var user: String?
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("Draw with this app's report extension (its bundle identifier).", context: "help"), valueName: "bundle-id"))
    var app: String?
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("The report extension's context (its scene), with --app.", context: "help")))
    var context: String?
    // swift-format-ignore
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("How often the open window draws the report again, in seconds (0: never).", context: "help")))
    var refresh: UInt32 = 60

    @Option(
        name: .customLong("filter-json"),
        help: ArgumentHelp(
            texts("A DeviceActivityFilter as JSON, with --app (default: today by hour).", context: "help"),
            valueName: "json"))
    var filterJSON: String?

    public func validate() throws {
        guard (100...8000).contains(width) else {
            throw ValidationError(texts("--width is between 100 and 8000 pixels", context: "cli"))
        }
        if app == nil, context != nil || filterJSON != nil {
            throw ValidationError(texts("--context and --filter-json go with --app", context: "cli"))
        }
        if app != nil, context == nil {
            throw ValidationError(
                texts("--app needs --context: the name of the report extension's scene", context: "cli"))
        }
        if app != nil, week || since != nil || until != nil {
            throw ValidationError(texts("with --app the range is the filter's (--filter-json)", context: "cli"))
        }
    }

    public func run() throws {
        let trace: ((String) -> Void)? =
            ProcessInfo.processInfo.environment["SCREENWARD_REPORT_TRACE"].map { _ in
                { line in FileHandle.standardOutput.write(Data("\(line)\n".utf8)) }
            }
        if let app, let context {
            let rendering = try ReportSource(user: user).extensionReport(
                app: app, context: context, filterJSON: filterJSON)
            let title = "\(rendering.appName): \(rendering.context.rawValue)"
            if let png {
                try ReportImageFile.write(rendering.view, width: width, to: URL(fileURLWithPath: png), trace: trace)
            } else {
                let window = try ReportWindow(
                    title: title, pages: [.init(label: title, view: rendering.view)], trace: trace)
                let source = ReportSource(user: user)
                window.refresh(every: refresh) { [app, filterJSON] in
                    (try? source.extensionReport(app: app, context: context, filterJSON: filterJSON)).map { [$0.view] }
                }
                window.run()
            }
            return
        }
        let source = ReportSource(user: user)
        let categories = try DataDirectory.categoryTable()
        let language = ShieldDefaults.language()
        func view(_ period: ReportQuery.Period) throws -> ReportView {
            let report = try source.builtInReport(ReportQuery(user: user, period: period, since: since, until: until))
            return BuiltInReport(report: report, categories: categories, language: language, person: user).view
        }
        if let png {
            try ReportImageFile.write(
                try view(week ? .week : .day), width: width, to: URL(fileURLWithPath: png), trace: trace)
            return
        }
        let texts = Translations.forLanguage(language)
        let periods: [ReportQuery.Period] = since != nil || until != nil ? [week ? .week : .day] : [.day, .week]
        let pages: [ReportWindow.Page] =
            if since != nil || until != nil {
                [
                    .init(
                        label: week ? texts("By day", context: "report") : texts("By hour", context: "report"),
                        view: try view(week ? .week : .day))
                ]
            } else {
                [
                    .init(label: texts("Today", context: "report"), view: try view(.day)),
                    .init(label: texts("This week", context: "report"), view: try view(.week)),
                ]
            }
        let title =
            user.map { texts("Screen time of {person}", context: "report", ["person": $0]) }
            ?? texts("Screen time", context: "report")
        let window = try ReportWindow(title: title, pages: pages, trace: trace)
        window.refresh(every: refresh) { try? periods.map(view) }
        window.run()
    }
}
