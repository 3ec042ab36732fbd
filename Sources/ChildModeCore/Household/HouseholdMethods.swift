import Foundation
import ScreenwardIPC

/// `screenward household`: the daemon's requests about the household this computer is in
/// (docs/household.md). Root alone makes, joins and leaves one, and makes join codes;
/// guardians may read its status.
public enum HouseholdMethods {
    public static let create = ServiceMethod<HouseholdCreateRequest, HouseholdCreated>("household.create")
    public static let invite = ServiceMethod<Empty, HouseholdInvitation>("household.invite")
    public static let join = ServiceMethod<HouseholdJoinRequest, HouseholdStatus>("household.join")
    public static let leave = ServiceMethod<Empty, Empty>("household.leave")
    public static let status = ServiceMethod<Empty, HouseholdStatus>("household.status")
}

/// Making a household's database on a PostgreSQL server of this computer.
public struct HouseholdCreateRequest: Sendable, Codable, Equatable {
    /// The system user that owns the server (it logs in over the server's socket by peer
    /// authentication): `postgres` for Debian's.
    public var serverOwner: String
    /// The folder of the server's Unix socket.
    public var socketDirectory: String
    public var port: Int
    /// The address this computer reaches the server at over TCP.
    public var localAddress: String
    /// The database (and its owner role) to make.
    public var database: String
    /// The name the household knows this computer by (nil: the host name).
    public var computerName: String?

    public init(
        serverOwner: String, socketDirectory: String, port: Int, localAddress: String, database: String,
        computerName: String?
    ) {
        self.serverOwner = serverOwner
        self.socketDirectory = socketDirectory
        self.port = port
        self.localAddress = localAddress
        self.database = database
        self.computerName = computerName
    }
}

/// A household made: this computer is its first member, and a code lets the next one join.
public struct HouseholdCreated: Sendable, Codable, Equatable {
    public var status: HouseholdStatus
    public var invitation: HouseholdInvitation
    /// What was set on the PostgreSQL server for the other computers (TLS, who may log in from
    /// the network, the addresses it listens on), and what is left to do (a restart).
    public var serverChanges: [String]
    /// The same, as written, for a reader in another language.
    public var serverChangePhrases: [Phrase]?
    /// The server's certificate's fingerprint, as the join codes name it.
    public var certificate: String

    public init(
        status: HouseholdStatus, invitation: HouseholdInvitation, serverChanges: [String],
        serverChangePhrases: [Phrase]? = nil, certificate: String
    ) {
        self.status = status
        self.invitation = invitation
        self.serverChanges = serverChanges
        self.serverChangePhrases = serverChangePhrases
        self.certificate = certificate
    }
}

/// A join code for one more computer.
public struct HouseholdInvitation: Sendable, Codable, Equatable {
    public var code: String
    public var expiresAt: Date
    /// Where the household's database is, as this computer reaches it (`host:port/database`).
    public var place: String

    public init(code: String, expiresAt: Date, place: String) {
        self.code = code
        self.expiresAt = expiresAt
        self.place = place
    }
}

public struct HouseholdJoinRequest: Sendable, Codable, Equatable {
    public var host: String
    public var port: Int
    public var database: String
    public var code: String
    public var computerName: String?

    public init(host: String, port: Int, database: String, code: String, computerName: String?) {
        self.host = host
        self.port = port
        self.database = database
        self.code = code
        self.computerName = computerName
    }
}

/// The household as its database says, and this computer's part in it.
public struct HouseholdStatus: Sendable, Codable, Equatable {
    public struct Computer: Sendable, Codable, Equatable {
        public var name: String
        public var joinedAt: Date
        /// When it last sent its usage (nil: never).
        public var lastSeen: Date?
        public var isThisComputer: Bool

        public init(name: String, joinedAt: Date, lastSeen: Date?, isThisComputer: Bool) {
            self.name = name
            self.joinedAt = joinedAt
            self.lastSeen = lastSeen
            self.isThisComputer = isThisComputer
        }
    }

    public var place: String
    public var computerName: String
    /// The members, in the order they joined.
    public var computers: [Computer]
    /// The managed people the household knows.
    public var children: [String]
    /// The database's clock when it answered: `lastSeen`s are on it.
    public var databaseTime: Date
    /// What this computer has not yet sent, by child (intervals), and the last problem
    /// its sync met (nil: none since it last succeeded).
    public var waitingToUpload: [String: Int]
    public var syncProblem: String?
    /// The problem as written, for a reader in another language.
    public var syncProblemPhrase: Phrase?

    public init(
        place: String, computerName: String, computers: [Computer], children: [String], databaseTime: Date,
        waitingToUpload: [String: Int] = [:], syncProblem: String? = nil
    ) {
        self.place = place
        self.computerName = computerName
        self.computers = computers
        self.children = children
        self.databaseTime = databaseTime
        self.waitingToUpload = waitingToUpload
        self.syncProblem = syncProblem
    }
}
