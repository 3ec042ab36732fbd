import Foundation
import Logging
import NIOCore
import PostgresNIO
import ScreenwardIPC

/// Opening a connection to the household's database, and its errors said for people.
enum HouseholdDatabase {
    /// Nothing of PostgresNIO's own logging: every failure reaches the caller as an error.
    static let logger = Logger(label: "screenward.household") { _ in SwiftLogNoOpLogHandler() }

    /// How long a connection may take before the database counts as unreachable.
    static let connectTimeout = TimeAmount.seconds(5)

    /// A connection as `login`, over TLS, to the server whose certificate `login` names.
    static func connect(_ login: HouseholdLogin) async throws -> PostgresConnection {
        guard let certificate = login.certificate else {
            throw HouseholdError(joinedBeforeEncryption)
        }
        return try await connect(login, accepting: { $0 == certificate }).connection
    }

    /// Why a computer that joined before the household's connections were encrypted cannot
    /// connect (nor make a join code) now.
    // swift-format-ignore
    static let joinedBeforeEncryption = Phrase("this computer joined the household before its connections were encrypted: `screenward household leave`, then join again with a new code", context: "household")

    /// A connection as `login` to a server whose certificate `accept` takes (a join code's
    /// part of it, or any: the server this computer itself set up), and that certificate.
    static func connect(
        _ login: HouseholdLogin, accepting accept: @escaping @Sendable (CertificateFingerprint) -> Bool
    ) async throws -> (connection: PostgresConnection, certificate: CertificateFingerprint) {
        do {
            let (channel, certificate) = try await PinnedTLS.open(
                host: login.host, port: login.port, timeout: connectTimeout, accept: accept)
            var configuration = PostgresConnection.Configuration(
                establishedChannel: channel, username: login.role, password: login.password, database: login.database)
            configuration.options.connectTimeout = connectTimeout
            do {
                // On the channel's own event loop: PostgresNIO sets the channel up from there.
                let connection = try await PostgresConnection.connect(
                    on: channel.eventLoop, configuration: configuration, id: 1, logger: logger
                ).get()
                return (connection, certificate)
            } catch {
                try? await channel.close()
                // The server is the household's (its certificate is the one asked for): it
                // refused this login, or failed while taking it.
                throw LoginRefused(
                    phrase: Phrase(
                        "{place} refused the login as {role}: {error}", context: "household",
                        ["place": login.place, "role": login.role, "error": describe(error)]))
            }
        } catch let refused as LoginRefused {
            throw refused
        } catch let refused as PinnedTLS.Refused {
            throw HouseholdError(unreachable(login, refused.phrase))
        } catch {
            throw HouseholdError(unreachable(login, describe(error)))
        }
    }

    /// The household's database at `login`'s place cannot be reached, for `why`.
    private static func unreachable(_ login: HouseholdLogin, _ why: any PhraseFilling) -> Phrase {
        // swift-format-ignore
        Phrase("cannot reach the household's database at {place}: {error}", context: "household", ["place": login.place, "error": why])
    }

    /// The household's server (its certificate checked) did not take a login.
    struct LoginRefused: PhrasedError {
        var phrase: Phrase
    }

    /// The server's own message when there is one (`password authentication failed…`),
    /// else what the connection said.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.commitError ?? error.beginError { return describe(inner) }
        }
        return "\(error)"
    }

    /// `error` as a phrase's value: its phrase when it has one (translated), else the
    /// database's words as `describe` gives them.
    static func spoken(_ error: any Error) -> any PhraseFilling {
        if let error = error as? any PhrasedError { return error.phrase }
        if let error = error as? PostgresTransactionError,
            let inner = error.closureError ?? error.commitError ?? error.beginError
        {
            return spoken(inner)
        }
        return describe(error)
    }

    /// The SQLSTATE the server sent with `error`, if it sent one.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.commitError {
            return sqlState(of: inner)
        }
        return nil
    }

    /// Runs `body` with a connection as `login`, closed after.
    static func with<Value: Sendable>(
        _ login: HouseholdLogin, _ body: (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let connection = try await connect(login)
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
