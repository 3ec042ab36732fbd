import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// A household's computers share one child's limits through a PostgreSQL database
/// (docs/household.md). The daemon does the work: it keeps the database's credentials,
/// root's alone.
struct HouseholdCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: texts("Share managed people's limits with the household's other computers.", context: "help"),
        discussion: texts("One computer holds the household's database (PostgreSQL): `household create` there, as root. Each other computer joins with a code: `household join HOST CODE`, as root. A managed person is the same person on every computer where their account has the same name, and their usage on each counts toward their limits on all.", context: "help"),
        subcommands: [Create.self, Invite.self, Join.self, Status.self, Leave.self])

    struct Create: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Make the household's database on this computer's PostgreSQL server (root).", context: "help"),
            discussion: texts("Needs a running PostgreSQL server here (apt-get install postgresql) whose owner may log in over its socket by peer authentication, as Debian's does. Makes the database and its roles; sets the server up for the other computers (TLS with its own certificate, or the one it has; logins to the household's database from the network by password over TLS only; listening on every address, once restarted); joins this computer and prints a code for the next one, which names the server's certificate.", context: "help"))
        @Option(
            help: ArgumentHelp(
                texts("The system user that owns the PostgreSQL server.", context: "help"), valueName: "user"))
        var serverOwner = "postgres"
        @Option(
            help: ArgumentHelp(texts("The folder of the server's Unix socket.", context: "help"), valueName: "folder"))
        var socketDirectory = "/var/run/postgresql"
        @Option(help: ArgumentHelp(texts("The server's port.", context: "help"))) var port = 5432
        @Option(
            help: ArgumentHelp(
                texts("The address this computer reaches the server at.", context: "help"), valueName: "address"))
        var localAddress = "127.0.0.1"
        @Option(help: ArgumentHelp(texts("The household's database (and its owner role).", context: "help")))
        var database = "screenward_household"
        @Option(
            help: ArgumentHelp(
                texts("The name the household knows this computer by (default: its host name).", context: "help"),
                valueName: "name"))
        var name: String?

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let created = try connection.call(
                HouseholdMethods.create,
                HouseholdCreateRequest(
                    serverOwner: serverOwner, socketDirectory: socketDirectory, port: port,
                    localAddress: localAddress, database: database, computerName: name))
            let status = created.status
            print(
                texts(
                    "Made the household's database {place}; this computer is {computer}.", context: "cli",
                    ["place": status.place, "computer": status.computerName]))
            print(
                texts(
                    "Its connections are encrypted (TLS); the server's certificate: {certificate}", context: "cli",
                    ["certificate": created.certificate]))
            // The daemon's account of what it changed, as it wrote it.
            for change in created.serverChangePhrases?.map({ texts($0) }) ?? created.serverChanges {
                print("- \(change)")
            }
            printInvitation(created.invitation, port: port, database: database)
        }
    }

    struct Invite: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Make a code for one more computer to join (guardians).", context: "help"))

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let invitation = try connection.call(HouseholdMethods.invite, Empty())
            let place = Place(invitation.place)
            printInvitation(invitation, port: place.port, database: place.database)
        }
    }

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Join this computer to a household (root).", context: "help"))
        @Argument(
            help: ArgumentHelp(
                texts("The computer that holds the household's database, and its port.", context: "help"),
                valueName: "host[:port]"))
        var host: String
        @Argument(help: ArgumentHelp(texts("The join code a guardian made there.", context: "help"))) var code: String
        @Option(help: ArgumentHelp(texts("The household's database.", context: "help")))
        var database = "screenward_household"
        @Option(
            help: ArgumentHelp(
                texts("The name the household knows this computer by (default: its host name).", context: "help"),
                valueName: "name"))
        var name: String?

        func run() throws {
            let place = Place(host.contains("/") ? host : "\(host)/\(database)")
            let connection = DaemonConnection()
            defer { connection.close() }
            let status = try connection.call(
                HouseholdMethods.join,
                HouseholdJoinRequest(
                    host: place.host, port: place.port, database: place.database, code: code, computerName: name))
            print(
                texts(
                    "This computer is {computer} in the household at {place}.", context: "cli",
                    ["computer": status.computerName, "place": status.place]))
            printStatus(status)
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "Show the household's computers, when each was last heard from, and its children (guardians).",
                context: "help"))
        @Flag(help: ArgumentHelp(texts("Print JSON instead.", context: "help"))) var json = false

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let status = try connection.call(HouseholdMethods.status, Empty())
            if json { return try printJSON(status) }
            print(
                texts(
                    "Household at {place}; this computer is {computer}.", context: "cli",
                    ["place": status.place, "computer": status.computerName]))
            printStatus(status)
        }
    }

    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Take this computer out of its household (root).", context: "help"),
            discussion: texts(
                "What it recorded stays in the household's database: that time was used.", context: "help"))

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            _ = try connection.call(HouseholdMethods.leave, Empty())
            print(texts("This computer left its household; its limits are its own again.", context: "cli"))
        }
    }
}

/// `host`, `host:port` or `host:port/database`.
private struct Place {
    var host: String
    var port = 5432
    var database = "screenward_household"

    init(_ text: String) {
        var rest = Substring(text)
        if let slash = rest.firstIndex(of: "/") {
            database = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        if let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) {
            self.port = port
            rest = rest[..<colon]
        }
        host = String(rest)
    }
}

private func printInvitation(_ invitation: HouseholdInvitation, port: Int, database: String) {
    let expires = invitation.expiresAt.formatted(
        Date.FormatStyle(date: .abbreviated, time: .shortened, locale: writtenLocale))
    // HOST is the command's argument, as its help names it: written the same in every language.
    let place = database == "screenward_household" ? "HOST:\(port)" : "HOST:\(port)/\(database)"
    let values = ["expires": expires, "code": invitation.code, "place": place]
    print(texts("Join code (good once, until {expires}): {code}", context: "cli", values))
    print(texts("On the other computer, as root: screenward household join {place} {code}", context: "cli", values))
    print(texts("(HOST: this computer's address as the other one reaches it)", context: "cli"))
}

private func printStatus(_ status: HouseholdStatus) {
    let header = (computer: texts("Computer", context: "cli"), heard: texts("last heard from", context: "cli"))
    // As wide as the widest name, or the header in the reader's language.
    let width = ([header.computer] + status.computers.map(\.name)).map(terminalColumns).max() ?? 0
    print(padded(header.computer, toColumns: width) + "  " + header.heard)
    for computer in status.computers {
        let heard: String
        if let seen = computer.lastSeen {
            let ago = max(0, status.databaseTime.timeIntervalSince(seen))
            heard =
                ago < 90
                ? texts("{seconds}s ago", context: "cli", ["seconds": String(Int(ago))])
                : seen.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened, locale: writtenLocale))
        } else {
            heard = texts("never", context: "cli")
        }
        var cells = [padded(computer.name, toColumns: width), heard]
        // This computer's row says so in a third column.
        if computer.isThisComputer { cells.append(texts("(this computer)", context: "cli")) }
        print(cells.joined(separator: "  "))
    }
    print(
        status.children.isEmpty
            ? texts("Children: none yet", context: "cli")
            : texts("Children: {children}", context: "cli", ["children": status.children.joined(separator: ", ")]))
    let waiting = status.waitingToUpload.filter { $0.value > 0 }
    if !waiting.isEmpty {
        let counts = waiting.sorted { $0.key < $1.key }.map { user, count in
            count == 1
                ? texts("1 interval of {user}", context: "cli", ["user": user])
                : texts("{count} intervals of {user}", context: "cli", ["count": String(count), "user": user])
        }
        print(texts("Not yet sent: {intervals}", context: "cli", ["intervals": counts.joined(separator: ", ")]))
    }
    if let problem = status.syncProblemPhrase.map({ texts($0) }) ?? status.syncProblem {
        print(texts("The sync's last problem: {problem}", context: "cli", ["problem": problem]))
    }
}
