import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Guardians manage children's accounts through the system daemon, which checks who
/// is asking by the socket's peer credentials (root, or the group screenward-guardians).
struct ChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child",
        abstract: "Manage children's accounts (guardians: root or the group screenward-guardians).",
        discussion: """
            A managed user's usage, limits and shields are kept by the system daemon, screenward-daemon, \
            where they cannot change them. Guardians cannot be managed users, nor can administrators \
            (members of sudo or wheel).
            """,
        subcommands: [Add.self, Remove.self, List.self, Events.self, Lock.self])

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock a managed user's sessions now (guardians).")
        @Argument(help: "The user's login name.") var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let locked = try connection.call(ChildMethods.lock, UserName(user))
            print(
                locked == 0
                    ? "\(user) has no session to lock."
                    : "Locked \(locked) session\(locked == 1 ? "" : "s") of \(user).")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a user a managed user (a child).")
        @Argument(help: "The user's login name.") var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let added = try connection.call(ChildMethods.add, UserName(user))
            print("\(added.name) (uid \(added.uid)) is now a managed user.")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop managing a user.", discussion: "Their recorded usage and events are kept.")
        @Argument(help: "The user's login name.") var user: String

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            _ = try connection.call(ChildMethods.remove, UserName(user))
            print("\(user) is no longer a managed user.")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the managed users.")
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let users = try connection.call(ChildMethods.list, Empty())
            if json {
                try printJSON(users.map(ManagedUserJSON.init))
                return
            }
            guard !users.isEmpty else {
                print("No managed users. Add one with `screenward child add USER`.")
                return
            }
            let width = max(4, users.map(\.name.count).max() ?? 0)
            print(
                "User".padding(toLength: width, withPad: " ", startingAt: 0) + "  uid    managed since              by")
            for user in users {
                let uid = String(user.uid).padding(toLength: 5, withPad: " ", startingAt: 0)
                print(
                    "\(user.name.padding(toLength: width, withPad: " ", startingAt: 0))"
                        + "  \(uid)  \(iso8601(user.since))  \(user.addedBy)"
                )
            }
        }
    }

    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What happened to a managed user's limits: changes, refused attempts, enforcement.")
        @Argument(help: "The user's login name.") var user: String
        @Flag(help: "Print JSON instead of lines.") var json = false

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let events = try connection.call(ChildMethods.events, UserName(user))
            if json {
                try printJSON(events.map(ChildEventJSON.init))
                return
            }
            if events.isEmpty { print("No events for \(user).") }
            // One column for the kinds, as wide as the longest (never cut: "shield-tampered").
            let width = max(14, events.map(\.kind.rawValue.count).max() ?? 0)
            for event in events {
                // Another computer of the household's: its name first.
                let place = event.computer.map { "on \($0): " } ?? ""
                print(
                    "\(iso8601(event.at))  \(event.kind.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))"
                        + "  \(place)\(event.detail)"
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
