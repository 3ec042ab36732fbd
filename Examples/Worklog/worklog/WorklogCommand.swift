import ArgumentParser
import DeviceActivity
// Screenward's SPI for one call: a scripted setup's ids (`FamilyActivitySelection.choosing`).
@_spi(Screenward) import FamilyControls
import Foundation
import ManagedSettings
import WorklogDemo

/// The Worklog demo app of the WWDC22 talk, as a command-line program: what its
/// buttons do, one subcommand each, and its monitor as a long-running process.
@main
struct WorklogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worklog",
        abstract: "The Worklog demo app (WWDC22 \"What's new in Screen Time API\") running on Screenward.",
        discussion:
            """
            Run `worklog install` once (Screenward then starts its monitor when a callback is due), `worklog \
            setup` (`--pick` to choose the two categories in the activity picker), then `worklog allow-evenings`.
            """,
        subcommands: [
            Install.self, Setup.self, AllowEvenings.self, Report.self, Monitor.self, ReportExtension.self, Status.self,
            Stop.self,
        ])

    static let bundleIdentifier = "org.example.worklog"

    /// Where the app keeps the categories picked (its "BarkDatabase").
    static var selectionsURL: URL {
        let env = ProcessInfo.processInfo.environment
        if let home = env["WORKLOG_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent("selections.json")
        }
        let data =
            env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        let base = data.appendingPathComponent("worklog")
        return base.appendingPathComponent("selections.json")
    }

    struct Selections: Codable {
        var social: FamilyActivitySelection
        var gaming: FamilyActivitySelection
    }

    static func prepare() throws {
        ScreenwardApp.bundleIdentifier = bundleIdentifier
        if let data = try? Data(contentsOf: selectionsURL) {
            let saved = try JSONDecoder().decode(Selections.self, from: data)
            BarkDatabase.social.withLock { $0 = saved.social }
            BarkDatabase.gaming.withLock { $0 = saved.gaming }
        }
    }

    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "First launch: authorise, pick the Social and Games categories, shield both (Gaming for good).")

        @Option(
            help: ArgumentHelp(
                "The category Worklog treats as social media (an id of the category table).", valueName: "category"))
        var social = "Social"
        @Option(help: ArgumentHelp("The category Worklog shields for good.", valueName: "category"))
        var gaming = "Game"
        @Flag(
            help:
                """
                Pick the two categories in the activity picker instead (the talk's first launch), starting from \
                --social and --gaming.
                """
        )
        var pick = false

        func run() async throws {
            try WorklogCommand.prepare()
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
            // The activity picker's part: Aniyah picks the Social and Games categories.
            var selections = Selections(
                social: try await FamilyActivitySelection.choosing(categories: [social]),
                gaming: try await FamilyActivitySelection.choosing(categories: [gaming]))
            if pick {
                selections.social = try await Self.pickOneCategory(
                    starting: selections.social, "Worklog: tick the one category of social media")
                selections.gaming = try await Self.pickOneCategory(
                    starting: selections.gaming, "Worklog: tick the one category of games")
            }
            try FileManager.default.createDirectory(
                at: selectionsURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONEncoder().encode(selections).write(to: selectionsURL, options: .atomic)
            try WorklogCommand.prepare()
            Worklog.createStores(database: BarkDatabase())
            print("Worklog is authorised; Social and Games are shielded.")
        }

        /// The talk's code keeps one category token per store: the picker must end with
        /// exactly one whole category ticked.
        static func pickOneCategory(starting: FamilyActivitySelection, _ header: String) async throws
            -> FamilyActivitySelection
        {
            guard let picked = try await FamilyActivityPicker(selection: starting, headerText: header).present() else {
                throw ValidationError("the activity picker was cancelled: Worklog is not set up")
            }
            guard picked.categoryTokens.count == 1, picked.applicationTokens.isEmpty else {
                throw ValidationError(
                    """
                    Worklog shields one whole category per store: tick exactly one category's box and no single \
                    apps (\(picked.categoryTokens.count) categories and \(picked.applicationTokens.count) apps \
                    were ticked)
                    """
                )
            }
            return picked
        }
    }

    struct AllowEvenings: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "allow-evenings", abstract: "Allow social apps between 17:00 and 20:00 every day.")

        @Option(help: "When the evening starts (HH:MM; the talk's is 17:00).")
        var from = "17:00"
        @Option(help: "When it ends (HH:MM; the talk's is 20:00).")
        var until = "20:00"

        func run() throws {
            try WorklogCommand.prepare()
            guard let start = Self.components(from), let end = Self.components(until) else {
                throw ValidationError("times are HH:MM, for example 17:00")
            }
            try Worklog.allowForEvenings(from: start, until: end)
            print(
                """
                Social apps are allowed from \(from) to \(until) (by Worklog's monitor: `worklog install` once, \
                or keep `worklog monitor` running).
                """
            )
        }

        static func components(_ text: String) -> DateComponents? {
            let parts = text.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2, (0...23).contains(parts[0]), (0...59).contains(parts[1]) else { return nil }
            return DateComponents(hour: parts[0], minute: parts[1])
        }
    }

    struct Monitor: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run Worklog's DeviceActivityMonitor extension (Screenward starts it when installed).")

        func run() throws {
            try WorklogCommand.prepare()
            WorklogMonitor.main()
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Show this week's pie chart by category, drawn by Worklog's report extension in Screenward's window \
                (Worklog itself never sees it; `screenward report --app org.example.worklog --context "Pie Chart" \
                --png FILE` draws it into a file for you).
                """)

        func run() async throws {
            try WorklogCommand.prepare()
            try await Worklog.thisWeeksReport.present()
        }
    }

    struct ReportExtension: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report-extension",
            abstract: "Run Worklog's report extension (Screenward starts it, with the data on standard input).")

        func run() async throws {
            await WorklogReportExtension.main()
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show Worklog's authorization and activities.")

        func run() throws {
            try WorklogCommand.prepare()
            print("authorization: \(AuthorizationCenter.shared.authorizationStatus)")
            for name in [ManagedSettingsStore.Name.social, .gaming] {
                let shielded = ManagedSettingsStore(named: name).shield.applicationCategories != nil
                print("\(name.rawValue): \(shielded ? "shielded" : "allowed")")
            }
            func clock(_ time: DateComponents) -> String {
                "\(time.hour ?? 0):\(String(format: "%02d", time.minute ?? 0))"
            }
            let center = DeviceActivityCenter()
            for activity in center.activities {
                let schedule = center.schedule(for: activity)
                let hours = schedule.map { "\(clock($0.intervalStart))–\(clock($0.intervalEnd))" }
                print("activity \(activity.rawValue): \(hours ?? "?")")
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop monitoring the evenings (social apps are shielded again).")

        func run() throws {
            try WorklogCommand.prepare()
            DeviceActivityCenter().stopMonitoring([.evenings])
        }
    }
}
