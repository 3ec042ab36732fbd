import Foundation
import GRDB

/// An application the agent has seen in use, as the `application` table remembers it.
public struct KnownApplication: Sendable, Hashable {
    /// The device-wide token (text form) usage is recorded under.
    public var token: String
    /// The desktop id, `wmclass:<class>` or `exe:<path>`.
    public var publicID: String
    public var displayName: String
    /// The desktop entry's freedesktop categories when it was last seen.
    public var categories: [String]

    public init(token: String, publicID: String, displayName: String, categories: [String] = []) {
        self.token = token
        self.publicID = publicID
        self.displayName = displayName
        self.categories = categories
    }
}

extension Ledger {
    /// Every application ever seen in use, by public id.
    public func knownApplications() throws -> [KnownApplication] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT token, publicID, displayName, categories FROM application ORDER BY publicID"
            ).map { row in
                let categories: String = row["categories"]
                return KnownApplication(
                    token: row["token"], publicID: row["publicID"], displayName: row["displayName"],
                    categories: categories.split(separator: ";").map(String.init))
            }
        }
    }
}

extension Ledger {
    /// Every website (registrable domain, ASCII) ever seen in use, in order.
    public func knownWebsites() throws -> [String] {
        try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT webDomain FROM usageInterval WHERE webDomain IS NOT NULL ORDER BY webDomain")
        }
    }
}
