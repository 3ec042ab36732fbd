import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Guardians manage children's accounts through the system daemon, which checks who
/// is asking by the socket's peer credentials (root, or the group screenward-guardians).
struct ChildCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "child",
        abstract: texts("Manage children's accounts (guardians: root or the group screenward-guardians).", context: "help"),
        discussion: texts("A managed user's usage, limits and shields are kept by the system daemon, screenward-daemon, where they cannot change them. Guardians cannot be managed users, nor can administrators (members of sudo or wheel).", context: "help"),
        subcommands: [Add.self, Remove.self, List.self, Events.self, Lock.self, Console.self])

    struct Console: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Allow a managed user's console logins, or end them at once (the default).", context: "help"),
            discussion: texts("A console login is a text login: on a virtual terminal, or over SSH. Allowed, each counts as the application Console (id: console) under the user's limits and downtime, while its terminal is used, and ends, after a line on its terminal, as soon as Console is shielded. Not allowed, each is ended at once.", context: "help"),
            subcommands: [Show.self, Allow.self, Deny.self], defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: texts("Say whether a managed user's console logins are allowed.", context: "help"))
            @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String
            func run() throws { try Console.change(user, allowed: nil) }
        }

        struct Allow: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: texts("Allow a managed user's console logins, counted as Console.", context: "help"))
            @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String
            func run() throws { try Console.change(user, allowed: true) }
        }

        struct Deny: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: texts("End a managed user's console logins at once (the default).", context: "help"))
            @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String
            func run() throws { try Console.change(user, allowed: false) }
        }

        static func change(_ user: String, allowed: Bool?) throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let now = try connection.call(ChildMethods.console, ConsoleAccess(user: user, allowed: allowed))
            // swift-format-ignore
            let open = texts("{user}'s console logins are allowed: each counts as the application Console (id: console) under their limits and downtime.", context: "cli", ["user": user])
            // swift-format-ignore
            let closed = texts("{user}'s console logins are ended at once.", context: "cli", ["user": user])
            print(now ? open : closed)
        }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Lock a managed user's sessions now (guardians).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let locked = try connection.call(ChildMethods.lock, UserName(user))
            let values = ["user": user, "count": String(locked)]
            switch locked {
            case 0: print(texts("{user} has no session to lock.", context: "cli", values))
            case 1: print(texts("Locked 1 session of {user}.", context: "cli", values))
            default: print(texts("Locked {count} sessions of {user}.", context: "cli", values))
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Make a user a managed user (a child).", context: "help"))
        @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let added = try connection.call(ChildMethods.add, UserName(user))
            print(
                texts(
                    "{user} (uid {uid}) is now a managed user.", context: "cli",
                    ["user": added.name, "uid": String(added.uid)]))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Stop managing a user.", context: "help"),
            discussion: texts("Their recorded usage and events are kept.", context: "help"))
        @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            _ = try connection.call(ChildMethods.remove, UserName(user))
            print(texts("{user} is no longer a managed user.", context: "cli", ["user": user]))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: texts("List the managed users.", context: "help"))
        @Flag(help: ArgumentHelp(texts("Print JSON instead of a table.", context: "help"))) var json = false

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let users = try connection.call(ChildMethods.list, Empty())
            if json {
                try printJSON(users.map(ManagedUserJSON.init))
                return
            }
            guard !users.isEmpty else {
                print(texts("No managed users. Add one with `screenward child add USER`.", context: "cli"))
                return
            }
            let header = [
                texts("User", context: "cli"), texts("uid", context: "cli"), texts("managed since", context: "cli"),
                texts("by", context: "cli"),
            ]
            let rows = users.map { [$0.name, String($0.uid), iso8601($0.since), $0.addedBy] }
            // Each column as wide as its widest cell, the header's (in the reader's language)
            // too; the last one is not filled out.
            let widths = header.indices.dropLast().map { column in
                ([header] + rows).map { terminalColumns($0[column]) }.max() ?? 0
            }
            for row in [header] + rows {
                print(
                    (zip(row, widths).map { padded($0, toColumns: $1) } + [row[widths.count]]).joined(separator: "  "))
            }
        }
    }

    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "What happened to a managed user's limits: changes, refused attempts, enforcement.", context: "help"))
        @Argument(help: ArgumentHelp(texts("The user's login name.", context: "help"))) var user: String
        @Flag(help: ArgumentHelp(texts("Print JSON instead of lines.", context: "help"))) var json = false

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let events = try connection.call(ChildMethods.events, UserName(user))
            if json {
                try printJSON(events.map(ChildEventJSON.init))
                return
            }
            if events.isEmpty { print(texts("No events for {user}.", context: "cli", ["user": user])) }
            // One column for the kinds, as wide as the longest (never cut: "shield-tampered"). The
            // kinds are the records' own words, as scripts read them: not translated.
            let width = max(14, events.map(\.kind.rawValue.count).max() ?? 0)
            for event in events {
                // In the reader's language when it was recorded as a phrase.
                let detail = event.phrase.map { texts($0) } ?? event.detail
                // Another computer of the household's: its name first.
                let what =
                    event.computer.map {
                        texts("on {computer}: {detail}", context: "cli", ["computer": $0, "detail": detail])
                    } ?? detail
                print(
                    "\(iso8601(event.at))  \(event.kind.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))"
                        + "  \(what)"
                )
            }
        }
    }
}

/// The documented JSON shape of `screenward child list --json`.
struct ManagedUserJSON: Encodable {
    var user: String
    var uid: UInt32
    var since: String
    var addedBy: String

    enum CodingKeys: String, CodingKey {
        case user, uid, since
        case addedBy = "added_by"
    }

    init(_ user: ManagedUser) {
        self.user = user.name
        uid = user.uid
        since = iso8601(user.since)
        addedBy = user.addedBy
    }
}

/// The documented JSON shape of `screenward child events USER --json`.
struct ChildEventJSON: Encodable {
    var at: String
    var kind: String
    var actor: String
    var detail: String
    /// Another computer of the household's name; absent: this computer.
    var computer: String?

    init(_ event: ChildEvent) {
        at = iso8601(event.at)
        kind = event.kind.rawValue
        actor = event.actor
        detail = event.detail
        computer = event.computer
    }
}

/// `text` and spaces to fill `width` terminal columns, so that the cells of a table's column
/// line up whatever the language of its header.
func padded(_ text: String, toColumns width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - terminalColumns(text)))
}

/// The terminal columns `text` takes: East Asian wide characters (Hangul, CJK, full-width
/// forms) take two, as a Korean header's do.
func terminalColumns(_ text: String) -> Int {
    text.reduce(0) { width, character in
        let wide =
            character.unicodeScalars.first.map { scalar in
                switch scalar.value {
                case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x20000...0x3FFFD:
                    true
                default: false
                }
            } ?? false
        return width + (wide ? 2 : 1)
    }
}
