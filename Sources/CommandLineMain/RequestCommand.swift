import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// `screenward request list|approve|deny`: a guardian answers a managed user's "Ask for
/// more time" from the command line (as from the tray), and what an app waits for a
/// guardian's approval for (`sam/a3`: the dialog at the child's desk, answered here instead).
struct RequestCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: texts("Managed users' requests for more time, and what their apps ask a guardian (USER/aN): list, approve, deny (guardians).", context: "help"),
        subcommands: [List.self, Approve.self, Deny.self])

    /// `sam/3`, `3` with `--user sam`, or `sam/3@laptop` for one asked on another computer of
    /// the household.
    struct Reference: ParsableArguments {
        // swift-format-ignore
        @Argument(help: ArgumentHelp(texts("The request, as `screenward request list` shows it (USER/N, USER/N@COMPUTER, or an app's ask USER/aN).", context: "help")))
        var id: String
        @Option(help: ArgumentHelp(texts("The managed user, when the id is a bare number.", context: "help")))
        var user: String?

        /// The waiting ask `USER/aN` names, if it names one.
        func ask() -> UInt64? {
            let last = id.split(separator: "/").last.map(String.init) ?? id
            guard last.hasPrefix("a"), !id.contains("@") else { return nil }
            return UInt64(last.dropFirst())
        }

        func resolved() throws -> (user: String, number: Int64, computer: String?) {
            let (local, computer) = Self.splitComputer(id)
            let parts = local.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2, let number = Int64(parts[1]), !parts[0].isEmpty {
                if let user, user != parts[0] {
                    throw ValidationError(
                        texts(
                            "{id} is {owner}'s request, not {user}'s", context: "cli",
                            ["id": id, "owner": String(parts[0]), "user": user]))
                }
                return (String(parts[0]), number, computer)
            }
            guard let number = Int64(local), let user else {
                // swift-format-ignore
                throw ValidationError(texts("write the request as USER/N (from `screenward request list`), or N with --user USER", context: "cli"))
            }
            return (user, number, computer)
        }

        private static func splitComputer(_ text: String) -> (String, String?) {
            guard let at = text.lastIndex(of: "@") else { return (text, nil) }
            let computer = String(text[text.index(after: at)...])
            return (String(text[..<at]), computer.isEmpty ? nil : computer)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "List pending requests and today's answers (every managed user's, or one's).", context: "help"))
        @Option(help: ArgumentHelp(texts("One managed user's.", context: "help"))) var user: String?
        @Flag(help: ArgumentHelp(texts("Print JSON.", context: "help"))) var json = false

        /// `--json`'s shape.
        struct Listing: Encodable {
            var asks: [WaitingAsk]
            var requests: [TimeRequest]
        }

        func run() throws {
            let query = RulesQuery(user: user, language: ShieldDefaults.language())
            let requests = try RulesConnection(daemonOnly: true).call(RulesMethods.requests, query)
            let asks = try RulesConnection(daemonOnly: true).call(ChildMethods.waitingAsks, query)
            if json { return try printJSON(Listing(asks: asks, requests: requests)) }
            guard !requests.isEmpty || !asks.isEmpty else {
                return print(texts("No requests today.", context: "cli"))
            }
            for ask in asks {
                let values = [
                    "request": "\(ask.user)/a\(ask.id)", "question": ask.question, "time": iso8601(ask.askedAt),
                ]
                print(texts("{request}  {question}, asked {time}: waiting for a guardian", context: "cli", values))
            }
            for request in requests {
                // In the place of a login name, for a managed user's own requests.
                let who = request.user ?? user ?? texts("you", context: "cli")
                let values = [
                    "request": "\(who)/\(request.id)\(request.computer.map { "@\($0)" } ?? "")",
                    "application": request.applicationName, "rule": request.rule, "time": iso8601(request.askedAt),
                    "answer": Self.answer(request),
                ]
                print(texts("{request}  {application} on {rule}, asked {time}: {answer}", context: "cli", values))
            }
        }

        /// Where a request stands, and who said so: a whole text for each (the JSON keeps the
        /// state's raw value, for scripts).
        private static func answer(_ request: TimeRequest) -> String {
            let minutes = request.grantedSeconds.map { String(Int($0 / 60)) } ?? ""
            let values = ["guardian": request.answeredBy ?? "", "minutes": minutes]
            switch (request.state, request.answeredBy != nil, request.grantedSeconds != nil) {
            case (.pending, _, _): return texts("pending", context: "cli")
            case (.denied, false, _): return texts("denied", context: "cli")
            case (.denied, true, _): return texts("denied by {guardian}", context: "cli", values)
            case (.expired, false, _): return texts("expired", context: "cli")
            case (.expired, true, _): return texts("expired by {guardian}", context: "cli", values)
            case (.approved, false, true): return texts("approved ({minutes} min)", context: "cli", values)
            case (.approved, true, true): return texts("approved by {guardian} ({minutes} min)", context: "cli", values)
            case (.approved, false, false): return texts("approved (rest of the day)", context: "cli", values)
            case (.approved, true, false):
                return texts("approved by {guardian} (rest of the day)", context: "cli", values)
            }
        }
    }

    struct Approve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Give more time for the rest of today's limit (or downtime).", context: "help"))
        @OptionGroup var reference: Reference
        @Option(help: ArgumentHelp(texts("Minutes to give (default 15).", context: "help"))) var minutes: Int?
        @Flag(
            name: .customLong("rest-of-day"),
            help: ArgumentHelp(texts("No limit for the rest of the day (or of the downtime).", context: "help")))
        var restOfDay = false
        /// Tests and demonstrations give seconds.
        @Option(help: ArgumentHelp("Seconds to give.", visibility: .hidden)) var seconds: Int?

        func validate() throws {
            if [restOfDay, minutes != nil, seconds != nil].filter({ $0 }).count > 1 {
                throw ValidationError(texts("give one of --minutes and --rest-of-day", context: "cli"))
            }
            if let seconds, !(1...86_400).contains(seconds) {
                throw ValidationError(texts("--seconds must be 1 to 86400", context: "cli"))
            }
            if let minutes, !(1...1440).contains(minutes) {
                throw ValidationError(texts("--minutes must be 1 to 1440", context: "cli"))
            }
        }

        func run() throws {
            if let ask = reference.ask() {
                guard minutes == nil, seconds == nil, !restOfDay else {
                    throw ValidationError(texts("an app's ask is approved as it is: no --minutes", context: "cli"))
                }
                return try RequestCommand.answer(ask, approve: true)
            }
            let (user, number, computer) = try reference.resolved()
            let seconds: TimeInterval? = restOfDay ? nil : TimeInterval(self.seconds ?? (minutes ?? 15) * 60)
            printOutcome(
                try RulesConnection(daemonOnly: true).call(
                    RulesMethods.answer,
                    RequestAnswer(user: user, id: number, approve: true, seconds: seconds, computer: computer)))
        }
    }

    struct Deny: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Say no: the shield stays, and says so.", context: "help"))
        @OptionGroup var reference: Reference

        func run() throws {
            if let ask = reference.ask() { return try RequestCommand.answer(ask, approve: false) }
            let (user, number, computer) = try reference.resolved()
            printOutcome(
                try RulesConnection(daemonOnly: true).call(
                    RulesMethods.answer,
                    RequestAnswer(user: user, id: number, approve: false, seconds: nil, computer: computer)))
        }
    }

    /// A guardian's answer to an app's waiting ask, from their own account.
    static func answer(_ ask: UInt64, approve: Bool) throws {
        _ = try RulesConnection(daemonOnly: true).call(
            ChildMethods.answerAsk, WaitingAskAnswer(id: ask, approve: approve))
        print(
            approve
                ? texts("Approved a{id}.", context: "cli", ["id": String(ask)])
                : texts("Not approved: a{id}.", context: "cli", ["id": String(ask)]))
    }
}
