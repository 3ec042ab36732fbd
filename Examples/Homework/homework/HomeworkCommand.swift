import ArgumentParser
import DeviceActivity
// Screenward's SPI for one call: a scripted setup's ids (`FamilyActivitySelection.choosing`).
@_spi(Screenward) import FamilyControls
import Foundation
import HomeworkKit
import ManagedSettings

/// The Homework demo app of the WWDC21 talk ("Meet the Screen Time API") as a program:
/// a command line stands in for its screens, and its three extensions are subcommands
/// that Screenward starts when it needs them.
@main
struct HomeworkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homework",
        abstract: "The Homework demo app (WWDC21 \"Meet the Screen Time API\") on Screenward.",
        discussion: """
            Once: `homework install` (its extensions, which Screenward starts on demand). Then a guardian runs \
            `homework setup --threshold 30m` and picks the apps in the activity picker (add --child in an account a \
            guardian manages, at the child's desk), or names them with `--discourage ID --encourage ID` in a \
            person's own account or from the guardian's own account (`screenward app run --user CHILD -- homework \
            setup --child …`): a child's own apps never turn ids into tokens. Every day \
            the discouraged apps are shielded until the encouraged apps have been used for the threshold. There, \
            what shields less (`stop`, other choices) waits for a guardian, and "Ask for access" on the shield \
            reaches them. Nothing of Homework needs to keep running.
            """,
        subcommands: [
            Install.self, Setup.self, Status.self, Shield.self, Stop.self, Revoke.self, Report.self,
            Monitor.self, Configuration.self, Actions.self,
        ])

    static let bundleIdentifier = "org.example.homework"

    /// Homework's identifier, unless `SCREENWARD_BUNDLE_ID` names another an administrator
    /// installed it under (the daemon checks the manifest names this executable).
    static func prepare() {
        if ProcessInfo.processInfo.environment["SCREENWARD_BUNDLE_ID"]?.isEmpty ?? true {
            ScreenwardApp.bundleIdentifier = bundleIdentifier
        }
    }

    /// The applications named (ids as `screenward usage --json` prints them) as tokens:
    /// the activity picker's part.
    static func select(_ applications: [String]) async throws -> FamilyActivitySelection {
        try await FamilyActivitySelection.choosing(applications: applications)
    }

    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Authorise Homework and start its daily schedule (what the guardian does in the app's screens).")

        @Option(
            name: .customLong("discourage"),
            help:
                """
                An application to shield until the threshold is reached; repeatable. None: chosen in the activity \
                picker.
                """
        )
        var discouraged: [String] = []
        @Option(
            name: .customLong("encourage"),
            help: "An application whose use lifts the shield; repeatable. None: chosen in the activity picker.")
        var encouraged: [String] = []
        @Option(help: "How long the encouraged apps must be used each day: 30m, 1h30m, 45s.")
        var threshold: String
        @Option(help: "When the daily interval starts (HH:MM).")
        var from = "00:00"
        @Option(help: "When it ends (HH:MM).")
        var until = "23:59"
        @Flag(
            help:
                """
                Ask for .child, as Homework does on iOS: in an account a guardian manages, a guardian approves \
                with a one-time code from their authenticator app.
                """
        )
        var child = false

        func validate() throws {
            guard HomeworkCommand.duration(threshold) != nil else {
                throw ValidationError("the threshold is a span of time such as 30m, 1h30m or 45s, not \"\(threshold)\"")
            }
            guard HomeworkCommand.clock(from) != nil, HomeworkCommand.clock(until) != nil else {
                throw ValidationError("times are HH:MM, for example 00:00")
            }
        }

        func run() async throws {
            HomeworkCommand.prepare()
            try await AuthorizationCenter.shared.requestAuthorization(for: child ? .child : .individual)
            // In an account a guardian manages, new choices may shield less: a guardian approves them
            // (at once when they just approved .child; in a person's own account nobody is asked).
            try await AuthorizationCenter.shared.requestGuardianApproval(
                reason: "set up which apps Homework shields, and when")
            let discourage = try await Self.choose(discouraged, "Homework: the apps to shield until homework is done")
            let encourage = try await Self.choose(encouraged, "Homework: the apps whose use lifts the shield")
            let model = HomeworkModel(
                selectionToDiscourage: discourage.selection, selectionToEncourage: encourage.selection,
                threshold: HomeworkCommand.duration(threshold)!,
                intervalStart: HomeworkCommand.clock(from)!, intervalEnd: HomeworkCommand.clock(until)!)
            try Homework.start(model)
            print(
                """
                Homework discourages \(discourage.named) every day from \(from) to \(until) until \
                \(encourage.named) has been used for \(threshold).
                """
            )
        }

        /// The applications named on the command line, or, with none named, the ones the
        /// guardian picks in the activity picker (as the talk's app does in its setup screen).
        static func choose(_ named: [String], _ header: String) async throws -> (
            selection: FamilyActivitySelection, named: String
        ) {
            if !named.isEmpty { return (try await HomeworkCommand.select(named), named.joined(separator: ", ")) }
            guard let picked = try await FamilyActivityPicker(headerText: header).present() else {
                throw ValidationError("the activity picker was cancelled: nothing is set up")
            }
            let count = picked.applicationTokens.count + picked.categoryTokens.count + picked.webDomainTokens.count
            guard count > 0 else {
                throw ValidationError("nothing was picked for \"\(header)\": nothing is set up")
            }
            return (picked, "the \(count) item(s) picked")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether Homework is authorised, shielding, and monitoring.")

        func run() throws {
            HomeworkCommand.prepare()
            print("authorization: \(AuthorizationCenter.shared.authorizationStatus)")
            let shield = ManagedSettingsStore(named: .homework).shield
            let applications = shield.applications?.count ?? 0
            let categories: Int =
                switch shield.applicationCategories {
                case .specific(let categories, _): categories.count
                case .all: -1
                case .some(.none), nil: 0
                }
            var shielded: [String] = []
            if applications > 0 { shielded.append("\(applications) app(s)") }
            if categories > 0 { shielded.append("\(categories) categories") }
            if categories < 0 { shielded.append("every category") }
            if let websites = shield.webDomains?.count, websites > 0 { shielded.append("\(websites) website(s)") }
            print("shield: \(shielded.isEmpty ? "none" : shielded.joined(separator: ", "))")
            let daily = DeviceActivityCenter().schedule(for: .daily).map {
                "daily, \(Self.clock($0.intervalStart))–\(Self.clock($0.intervalEnd))"
            }
            print("monitoring: \(daily ?? "nothing")")
            if let access = DeviceActivityCenter().schedule(for: .access) {
                print("access a guardian gave: until \(Self.clock(access.intervalEnd))")
            }
        }

        static func clock(_ components: DateComponents) -> String {
            String(format: "%02d:%02d", components.hour ?? 0, components.minute ?? 0)
        }
    }

    struct Shield: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shield the applications given or picked now, without the schedule (to try the custom shields).")

        @Option(
            name: .customLong("app"),
            help: "An application to shield; repeatable. None: picked in the activity picker.")
        var applications: [String] = []
        @Flag(help: "Ask for .child authorization.")
        var child = false

        func run() async throws {
            HomeworkCommand.prepare()
            try await AuthorizationCenter.shared.requestAuthorization(for: child ? .child : .individual)
            let (selection, named) = try await Setup.choose(applications, "Homework: the apps to shield now")
            let store = ManagedSettingsStore(named: .homework)
            store.shield.applications = selection.applicationTokens.isEmpty ? nil : selection.applicationTokens
            store.shield.applicationCategories =
                selection.categoryTokens.isEmpty ? nil : .specific(selection.categoryTokens)
            store.shield.webDomains = selection.webDomainTokens.isEmpty ? nil : selection.webDomainTokens
            print("Homework shields \(named).")
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Stop the daily schedule, remove Homework's shields and forget the requests for access (in an \
                account a guardian manages, a guardian approves).
                """
        )

        func run() async throws {
            HomeworkCommand.prepare()
            try await AuthorizationCenter.shared.requestGuardianApproval(
                reason: "stop Homework's daily schedule and lift its shields")
            DeviceActivityCenter().stopMonitoring([.daily])
            ManagedSettingsStore(named: .homework).clearAllSettings()
            try HomeworkStorage.standard.requests.clear()
            print("Homework shields nothing.")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Give up Homework's authorization (its shields and schedule go with it); under .child a guardian \
                approves.
                """
        )

        func run() async throws {
            HomeworkCommand.prepare()
            try await AuthorizationCenter.shared.revokeAuthorization()
            print("Homework is no longer authorised.")
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Show today's report in Screenward's window, drawn by a report extension Homework's installation \
                names (Homework itself never sees it).
                """
        )

        @Option(help: "The report extension's scene.")
        var context = "homework"

        func run() async throws {
            HomeworkCommand.prepare()
            try await DeviceActivityReport(.init(context)).present()
        }
    }

    // MARK: The three extensions (Screenward starts them; they leave when idle)

    struct Monitor: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the DeviceActivityMonitor extension.")

        func run() throws {
            HomeworkCommand.prepare()
            HomeworkMonitor.main()
        }
    }

    struct Configuration: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the shield configuration extension.")

        func run() throws {
            HomeworkCommand.prepare()
            HomeworkShieldConfiguration.main()
        }
    }

    struct Actions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the shield action extension.")

        func run() throws {
            HomeworkCommand.prepare()
            HomeworkShieldActions.main()
        }
    }

    // MARK: Reading the command line

    /// "30m", "1h30m", "45s", "2h": a span of time as the event's threshold.
    static func duration(_ text: String) -> DateComponents? {
        var parts = DateComponents()
        var number = ""
        var seen = false
        for character in text.lowercased() {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            switch character {
            case "h" where parts.hour == nil: parts.hour = value
            case "m" where parts.minute == nil: parts.minute = value
            case "s" where parts.second == nil: parts.second = value
            default: return nil
            }
            number = ""
            seen = true
        }
        let total = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
        guard number.isEmpty, seen, total > 0 else { return nil }
        return parts
    }

    /// "HH:MM" as an hour and minute.
    static func clock(_ text: String) -> DateComponents? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0...23).contains(hour),
            (0...59).contains(minute)
        else {
            return nil
        }
        return DateComponents(hour: hour, minute: minute)
    }
}
