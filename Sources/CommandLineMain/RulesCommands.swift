import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Where a person's rules are kept: their own agent, or the system daemon for a managed
/// user (a guardian names them with `--user`; a managed user reads their own there).
struct RulesConnection {
    private let agent: AgentConnection?
    private let daemon: DaemonConnection?

    /// `daemonOnly`: requests for more time are a managed user's, kept by the daemon.
    init(user: String? = nil, daemonOnly: Bool = false) {
        if daemonOnly || user != nil
            || DaemonAddress.socketManagingThisAccount(environment: ProcessInfo.processInfo.environment) != nil
        {
            daemon = DaemonConnection()
            agent = nil
        } else {
            agent = AgentConnection(bundleIdentifier: RulesApp.bundleIdentifier)
            daemon = nil
        }
    }

    func call<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        defer {
            agent?.close()
            daemon?.close()
        }
        do {
            if let daemon { return try daemon.call(method, request) }
            return try agent!.call(method, request)
        } catch let error as ServiceError {
            throw CLIError(ScreenwardCommand.spoken(error))
        }
    }
}

/// `--user`: what every rules command shares.
struct RulesOptions: ParsableArguments {
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("A managed user's rules, kept by the system daemon (guardians).", context: "help")))
    var user: String?

    /// Sends a change to the owner of these rules and prints what it did.
    func change<Request: RulesRequest>(_ method: ServiceMethod<Request, RuleOutcome>, _ request: Request) throws {
        printOutcome(try RulesConnection(user: user).call(method, request))
    }
}

/// `--days`, `--locked-for`, `--extra-time`: what a limit and a downtime share.
struct RuleTiming: ParsableArguments {
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("The days it applies: mon-fri, sat,sun, mon,wed-fri or every.", context: "help"), valueName: "days"))
    var days = "every"

    // swift-format-ignore
    @Option(
        name: .customLong("locked-for"),
        help: ArgumentHelp(texts("Bind your own rule: relaxing or removing it takes effect only this long after you ask (1h, 2d is 48h).", context: "help"), valueName: "duration"))
    var lockedFor: String?

    // swift-format-ignore
    @Option(
        name: .customLong("extra-time"),
        help: ArgumentHelp(texts("How often a day \"15 more minutes\" may be taken (your own rules).", context: "help"), valueName: "count"))
    var extraTimePerDay = Rule.defaultExtraTimePerDay

    func parsed() throws -> (Weekdays, TimeInterval?) {
        let delay = Phrase("delay", context: "rule.what")  // the error calls it so: "… is not a delay"
        do {
            return (try RuleText.weekdays(days), try lockedFor.map { try RuleText.duration($0, what: delay) })
        } catch let invalid as RuleText.Invalid {
            throw ValidationError(ScreenwardCommand.spoken(invalid))
        }
    }
}

func parseRuleName(_ text: String) throws -> String {
    do { return try RuleText.name(text) } catch let invalid as RuleText.Invalid {
        throw ValidationError(ScreenwardCommand.spoken(invalid))
    }
}

/// What the agent or the daemon did, in the reader's language (from an older one, whose reply
/// has no phrase, in the English it wrote).
func printOutcome(_ outcome: RuleOutcome) {
    print(outcome.phrase.map { texts($0) } ?? outcome.message)
}

// MARK: screenward limit

struct LimitCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "limit",
        abstract: texts("Daily limits: the time some applications may be used each day.", context: "help"),
        discussion: texts("When a limit is used up, its applications are shielded until the next day, by a shield that says which limit, how much was used and when it resets. Warnings come 5 minutes and 1 minute before.", context: "help"),
        subcommands: [Add.self, Change.self, List.self, Remove.self, More.self])

    struct More: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Take 15 more minutes on your own limit today (as often a day as the limit allows; recorded).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The limit's name.", context: "help"))) var name: String

        func run() throws {
            printOutcome(
                try RulesConnection(user: nil).call(RulesMethods.extraTime, ExtraTimeRequest(user: nil, rule: name)))
        }
    }

    struct Items: ParsableArguments {
        // swift-format-ignore
        @Option(
            name: .customLong("app"),
            help: ArgumentHelp(texts("An application id, as `screenward usage` shows it (repeatable).", context: "help"), valueName: "id"))
        var applications: [String] = []

        // swift-format-ignore
        @Option(
            name: .customLong("category"),
            help: ArgumentHelp(texts("A category id: Game, Social, AudioVideo, … (repeatable).", context: "help"), valueName: "id"))
        var categories: [String] = []

        // swift-format-ignore
        @Option(
            name: .customLong("site"),
            help: ArgumentHelp(texts("A website: youtube.com (www.youtube.com and m.youtube.com are youtube.com), in Chromium and Firefox with Screenward's extension (repeatable).", context: "help"), valueName: "domain"))
        var websites: [String] = []

        // swift-format-ignore
        @Option(
            help: ArgumentHelp(texts("A FamilyActivitySelection (JSON) of org.screenward.rules's tokens (`screenward select --for org.screenward.rules`).", context: "help"), valueName: "file"))
        var selection: String?

        func items() throws -> RuleItems {
            var seen: Set<String> = []
            var items = RuleItems(
                applications: applications.filter { seen.insert($0).inserted },
                categories: categories.filter { seen.insert($0).inserted })
            for domain in try registrableDomains(websites) where seen.insert(domain).inserted {
                items.websites.append(domain)
            }
            if let selection {
                let data: Data
                do { data = try Data(contentsOf: URL(fileURLWithPath: selection)) } catch {
                    // swift-format-ignore
                    throw ValidationError(texts("cannot read the selection {file}: {reason}", context: "cli", ["file": selection, "reason": error.localizedDescription]))
                }
                let decoded: FamilyActivitySelection
                do { decoded = try JSONDecoder().decode(FamilyActivitySelection.self, from: data) } catch {
                    // swift-format-ignore
                    throw ValidationError(texts("{file} is not a FamilyActivitySelection (JSON): {reason}", context: "cli", ["file": selection, "reason": ScreenwardCommand.spoken(error)]))
                }
                items.applicationTokens = decoded.applicationTokens.map(\.opaqueValue).sorted()
                items.categoryTokens = decoded.categoryTokens.map(\.opaqueValue).sorted()
            }
            guard !items.isEmpty else {
                // swift-format-ignore
                throw ValidationError(texts("name what the limit counts: --app ID, --category ID, --site DOMAIN or --selection FILE", context: "cli"))
            }
            return items
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: texts("Add a daily limit.", context: "help"))

        // swift-format-ignore
        @Argument(help: ArgumentHelp(texts("The limit's name (Games, Social media).", context: "help"))) var name: String
        @OptionGroup var items: Items
        // swift-format-ignore
        @Option(help: ArgumentHelp(texts("The time allowed each day: 1h, 90m, 1h30m.", context: "help"), valueName: "duration")) var daily: String
        @OptionGroup var timing: RuleTiming
        @OptionGroup var options: RulesOptions

        func run() throws {
            let rule = try LimitCommand.rule(name: name, items: items, daily: daily, timing: timing)
            try options.change(RulesMethods.add, RuleEdit(user: options.user, rule: rule))
        }
    }

    struct Change: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Replace a limit's definition.", context: "help"),
            discussion: texts("Tightening takes effect at once; relaxing a locked limit waits for its delay.", context: "help"))

        @Argument(help: ArgumentHelp(texts("The limit's name.", context: "help"))) var name: String
        @OptionGroup var items: Items
        // swift-format-ignore
        @Option(help: ArgumentHelp(texts("The time allowed each day.", context: "help"), valueName: "duration")) var daily: String
        @OptionGroup var timing: RuleTiming
        @OptionGroup var options: RulesOptions

        func run() throws {
            let rule = try LimitCommand.rule(name: name, items: items, daily: daily, timing: timing)
            try options.change(RulesMethods.change, RuleEdit(user: options.user, rule: rule))
        }
    }

    static func rule(name: String, items: Items, daily: String, timing: RuleTiming) throws -> Rule {
        let name = try parseRuleName(name)
        let seconds: TimeInterval
        let dailyLimit = Phrase("daily limit", context: "rule.what")  // the error calls it so: "… is not a daily limit"
        do { seconds = try RuleText.duration(daily, what: dailyLimit) } catch let invalid as RuleText.Invalid {
            throw ValidationError(ScreenwardCommand.spoken(invalid))
        }
        let (days, lock) = try timing.parsed()
        let rule = Rule.limit(
            name, items: try items.items(), daily: seconds, days: days, lockedFor: lock,
            extraTimePerDay: timing.extraTimePerDay)
        if let problem = rule.problem { throw ValidationError(texts(problem)) }
        return rule
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: texts("List the daily limits.", context: "help"))
        @OptionGroup var options: RulesOptions
        @Flag(help: ArgumentHelp(texts("Print JSON.", context: "help"))) var json = false

        func run() throws {
            try listRules(.limit, options: options, json: json)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Remove a daily limit (a locked one after its delay).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The limit's name.", context: "help"))) var name: String
        @OptionGroup var options: RulesOptions

        func run() throws {
            try options.change(RulesMethods.remove, RuleRemoval(user: options.user, name: name, kind: .limit))
        }
    }
}

// MARK: screenward downtime

struct DowntimeCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "downtime",
        abstract: texts("Downtime: times when only always-allowed applications may be used.", context: "help"),
        discussion: texts("Every application but the always-allowed ones (`screenward allow`) is shielded during downtime; a warning comes 5 minutes and 1 minute before it starts.", context: "help"),
        subcommands: [Add.self, Change.self, List.self, Remove.self, More.self])

    struct More: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Take 15 more minutes of one application in your own downtime (as often as the downtime allows; recorded).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The downtime's name.", context: "help"))) var name: String
        // swift-format-ignore
        @Option(name: .customLong("app"), help: ArgumentHelp(texts("The application the minutes are for.", context: "help"), valueName: "id"))
        var application: String

        func run() throws {
            printOutcome(
                try RulesConnection(user: nil).call(
                    RulesMethods.extraTime, ExtraTimeRequest(user: nil, rule: name, application: application)))
        }
    }

    struct Window: ParsableArguments {
        // swift-format-ignore
        @Option(help: ArgumentHelp(texts("When it starts (24-hour clock).", context: "help"), valueName: "HH:MM")) var from: String
        // swift-format-ignore
        @Option(help: ArgumentHelp(texts("When it ends (the next day when earlier than the start).", context: "help"), valueName: "HH:MM"))
        var to: String

        func rule(name: String, timing: RuleTiming) throws -> Rule {
            let name = try parseRuleName(name)
            let (start, end): (TimeOfDay, TimeOfDay)
            do { (start, end) = (try RuleText.timeOfDay(from), try RuleText.timeOfDay(to)) } catch let invalid
                as RuleText.Invalid
            {
                throw ValidationError(ScreenwardCommand.spoken(invalid))
            }
            let (days, lock) = try timing.parsed()
            let rule = Rule.downtime(
                name, from: start, to: end, days: days, lockedFor: lock, extraTimePerDay: timing.extraTimePerDay)
            if let problem = rule.problem { throw ValidationError(texts(problem)) }
            return rule
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: texts("Add a downtime.", context: "help"))
        @Argument(help: ArgumentHelp(texts("The downtime's name (Bedtime, School).", context: "help"))) var name: String
        @OptionGroup var window: Window
        @OptionGroup var timing: RuleTiming
        @OptionGroup var options: RulesOptions

        func run() throws {
            let rule = try window.rule(name: name, timing: timing)
            try options.change(RulesMethods.add, RuleEdit(user: options.user, rule: rule))
        }
    }

    struct Change: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Replace a downtime's times.", context: "help"),
            discussion: texts("Lengthening takes effect at once; shortening a locked downtime waits for its delay.", context: "help"))
        @Argument(help: ArgumentHelp(texts("The downtime's name.", context: "help"))) var name: String
        @OptionGroup var window: Window
        @OptionGroup var timing: RuleTiming
        @OptionGroup var options: RulesOptions

        func run() throws {
            let rule = try window.rule(name: name, timing: timing)
            try options.change(RulesMethods.change, RuleEdit(user: options.user, rule: rule))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: texts("List the downtimes.", context: "help"))
        @OptionGroup var options: RulesOptions
        @Flag(help: ArgumentHelp(texts("Print JSON.", context: "help"))) var json = false

        func run() throws {
            try listRules(.downtime, options: options, json: json)
        }
    }

    struct Remove: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(abstract: texts("Remove a downtime (a locked one after its delay).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The downtime's name.", context: "help"))) var name: String
        @OptionGroup var options: RulesOptions

        func run() throws {
            try options.change(RulesMethods.remove, RuleRemoval(user: options.user, name: name, kind: .downtime))
        }
    }
}

/// Each `--site` as its registrable domain (`https://www.youtube.com/x` is `youtube.com`).
func registrableDomains(_ names: [String]) throws -> [String] {
    guard !names.isEmpty else { return [] }
    let addresses: WebAddresses
    do { addresses = WebAddresses(suffixes: try PublicSuffixList.load()) } catch {
        throw ValidationError(ScreenwardCommand.spoken(error))
    }
    return try names.map { name in
        do { return try addresses.website(named: name).domain } catch {
            // swift-format-ignore
            throw ValidationError(texts("--site {site}: {reason}", context: "cli", ["site": name, "reason": ScreenwardCommand.spoken(error)]))
        }
    }
}

// MARK: screenward allow

struct AllowCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "allow",
        abstract: texts("Always-allowed applications and websites: never shielded by limits or downtime.", context: "help"),
        discussion: texts("A website allowed (--site wikipedia.org) stays open in Chromium and Firefox during a downtime, and the browsers with it, for that website only: every other website shows the downtime's shield. Listed as site:DOMAIN.", context: "help"),
        subcommands: [Add.self, List.self, Remove.self], defaultSubcommand: Add.self)

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Always allow applications (while a rule is locked, after its delay).", context: "help"))
        // swift-format-ignore
        @Argument(help: ArgumentHelp(texts("Application ids, as `screenward usage` shows them.", context: "help"))) var applications: [String] = []
        // swift-format-ignore
        @Option(
            name: .customLong("site"),
            help: ArgumentHelp(texts("A website (its registrable domain counts: repeatable).", context: "help"), valueName: "domain"))
        var websites: [String] = []
        @OptionGroup var options: RulesOptions

        func validate() throws {
            guard !applications.isEmpty || !websites.isEmpty else {
                throw ValidationError(texts("name at least one application id or --site", context: "cli"))
            }
        }

        func run() throws {
            let sites = try registrableDomains(websites).map { AllowedApplication.sitePrefix + $0 }
            try options.change(
                RulesMethods.allow, AllowanceEdit(user: options.user, applications: applications + sites))
        }
    }

    struct List: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(abstract: texts("List the always-allowed applications.", context: "help"))
        @OptionGroup var options: RulesOptions
        @Flag(help: ArgumentHelp(texts("Print JSON.", context: "help"))) var json = false

        func run() throws {
            let listing = try RulesConnection(user: options.user).call(
                RulesMethods.list, RulesQuery(user: options.user, language: ShieldDefaults.language()))
            if json { return try printJSON(listing.allowed) }
            guard !listing.allowed.isEmpty else {
                return print(texts("No application or website is always allowed.", context: "cli"))
            }
            for allowed in listing.allowed {
                // The id and the name are columns; the wait, a note of its own after them.
                var line = "\(allowed.id)  \(listing.allowedNames[allowed.id] ?? "")"
                if allowed.effectiveAt > Date() {
                    let time = iso8601(allowed.effectiveAt)
                    line += "  " + texts("(from {time}: a rule is locked)", context: "cli", ["time": time])
                }
                print(line)
            }
        }
    }

    struct Remove: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(abstract: texts("Stop always allowing applications (at once).", context: "help"))
        // swift-format-ignore
        @Argument(help: ArgumentHelp(texts("Application ids (and site:DOMAIN).", context: "help"))) var applications: [String] = []
        // swift-format-ignore
        @Option(name: .customLong("site"), help: ArgumentHelp(texts("A website (repeatable).", context: "help"), valueName: "domain"))
        var websites: [String] = []
        @OptionGroup var options: RulesOptions

        func validate() throws {
            guard !applications.isEmpty || !websites.isEmpty else {
                throw ValidationError(texts("name at least one application id or --site", context: "cli"))
            }
        }

        func run() throws {
            let sites = try registrableDomains(websites).map { AllowedApplication.sitePrefix + $0 }
            try options.change(
                RulesMethods.disallow, AllowanceEdit(user: options.user, applications: applications + sites))
        }
    }
}

// MARK: Listing

func listRules(_ kind: Rule.Kind, options: RulesOptions, json: Bool) throws {
    let listing = try RulesConnection(user: options.user).call(
        RulesMethods.list, RulesQuery(user: options.user, language: ShieldDefaults.language()))
    let entries = listing.rules.filter { $0.rule.kind == kind }
    if json { return try printJSON(entries) }
    guard !entries.isEmpty else {
        return print(kind == .limit ? texts("No daily limits.", context: "cli") : texts("No downtime.", context: "cli"))
    }
    for entry in entries {
        var line = describeRule(entry.rule, itemNames: entry.itemNames)
        // The change it waits for is a note on the whole line, which fills it in.
        if let pending = entry.pending {
            let values = ["rule": line, "time": iso8601(pending.effectiveAt)]
            line =
                pending.rule == nil
                ? texts("{rule} (removed at {time})", context: "cli", values)
                : texts("{rule} (relaxed at {time})", context: "cli", values)
        }
        print(line)
    }
}

/// `Games: 1 h a day of Game, every day, locked for 6 s`: a whole text for each kind of rule, on
/// every day or some, locked or not, with its days and spans in the reader's language (the
/// times of day as the command line takes them: `21:00`).
private func describeRule(_ rule: Rule, itemNames: [String]) -> String {
    var values = ["name": rule.name, "days": texts(rule.days.phrase)]
    if let lock = rule.lockedFor { values["lock"] = texts(RuleTexts.spanPhrase(lock)) }
    let everyDay = rule.days.isEvery
    let locked = rule.lockedFor != nil
    switch rule.kind {
    case .limit:
        values["daily"] = texts(RuleTexts.spanPhrase(rule.daily ?? 0))
        values["items"] = itemNames.joined(separator: ", ")
        switch (everyDay, locked) {
        case (true, false):
            return texts("{name}: {daily} a day of {items}, every day", context: "cli", values)
        case (false, false):
            return texts("{name}: {daily} a day of {items}, {days}", context: "cli", values)
        case (true, true):
            return texts("{name}: {daily} a day of {items}, every day, locked for {lock}", context: "cli", values)
        case (false, true):
            return texts("{name}: {daily} a day of {items}, {days}, locked for {lock}", context: "cli", values)
        }
    case .downtime:
        values["from"] = rule.from?.description ?? "?"
        values["to"] = rule.to?.description ?? "?"
        switch (everyDay, locked) {
        case (true, false):
            return texts("{name}: {from} to {to}, every day", context: "cli", values)
        case (false, false):
            return texts("{name}: {from} to {to}, {days}", context: "cli", values)
        case (true, true):
            return texts("{name}: {from} to {to}, every day, locked for {lock}", context: "cli", values)
        case (false, true):
            return texts("{name}: {from} to {to}, {days}, locked for {lock}", context: "cli", values)
        }
    }
}
