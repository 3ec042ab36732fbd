import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// `webContent.blockedByFilter`, as the owner keeps and combines it: websites by domain
/// (ASCII, lower case), and the hostname lists an administrator puts in
/// /etc/screenward/web-filter.d for `.auto` (Screenward ships none).
public enum WebFilter {
    public static let listsFolder = "/etc/screenward/web-filter.d"

    /// The policy with every domain checked and written as the owner keeps it; a website
    /// named by token only, or by no name a website can have, is refused.
    public static func checked(_ policy: WebContentSettings.FilterPolicy) throws -> WebContentSettings.FilterPolicy {
        func domains(_ set: Set<WebDomain>) throws -> Set<WebDomain> {
            guard set.count <= WebContentSettings.maximumDomains else {
                throw ServiceError(
                    .limitExceeded,
                    Phrase(
                        "a web content filter names {count} websites; at most {maximum} are allowed",
                        context: "service",
                        ["count": "\(set.count)", "maximum": "\(WebContentSettings.maximumDomains)"]))
            }
            return Set(
                try set.map { domain in
                    guard let name = domain.domain else {
                        throw ServiceError(
                            .invalidArgument,
                            Phrase(
                                "a web content filter names websites by domain (WebDomain(domain:)), not by token",
                                context: "service"))
                    }
                    guard let ascii = HostName.ascii(name), ascii.contains(".") || ascii == "localhost" else {
                        throw ServiceError(
                            .invalidArgument,
                            Phrase(
                                "\"{name}\" is not a website's domain", context: "service",
                                ["name": String(name.prefix(80))]))
                    }
                    return WebDomain(domain: ascii)
                })
        }
        switch policy {
        case .none: return .none
        case .specific(let blocked): return .specific(try domains(blocked))
        case .all(let except): return .all(except: try domains(except))
        case .auto(let blocked, let except): return .auto(try domains(blocked), except: try domains(except))
        }
    }

    /// What every store's filter blocks together: a website is blocked when any store's
    /// filter blocks it (so `.all(except:)` spares only what every such store spares).
    public struct Combined: Sendable, Hashable, Codable {
        /// Blocked websites (each with the hosts under it).
        public var blocked: [String]
        /// Set when every website is blocked: the ones that are not.
        public var allExcept: [String]?

        public init(blocked: [String] = [], allExcept: [String]? = nil) {
            self.blocked = blocked
            self.allExcept = allExcept
        }

        public var isEmpty: Bool { blocked.isEmpty && allExcept == nil }
    }

    /// Combines the stores' policies, reading the administrator's lists for `.auto`.
    public static func combine(
        _ policies: [WebContentSettings.FilterPolicy], lists: () -> [String] = { administratorLists() }
    ) -> Combined {
        var blocked: Set<String> = []
        var spared: Set<String>?
        for policy in policies {
            switch policy {
            case .none:
                break
            case .specific(let domains):
                blocked.formUnion(domains.compactMap(\.domain))
            case .all(let except):
                let these = Set(except.compactMap(\.domain))
                spared = spared.map { $0.intersection(these) } ?? these
            case .auto(let domains, let except):
                let spare = Set(except.compactMap(\.domain))
                let listed = Set(lists()).union(domains.compactMap(\.domain))
                blocked.formUnion(listed.subtracting(spare))
            }
        }
        if let spared {
            // Every website but the spared; a website another store blocks is not spared.
            return Combined(blocked: [], allExcept: spared.subtracting(blocked).sorted())
        }
        return Combined(blocked: blocked.sorted(), allExcept: nil)
    }

    /// The hostnames in the administrator's lists (`*.list` in `folder`: one per line, `#`
    /// comments), each written as the owner keeps domains; unreadable files and bad lines
    /// are skipped.
    public static func administratorLists(in folder: String = listsFolder) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var hosts: [String] = []
        for name in names.sorted() where name.hasSuffix(".list") {
            guard let text = try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8) else { continue }
            for line in text.split(whereSeparator: \.isNewline) {
                let entry =
                    line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                    .trimmingCharacters(in: .whitespaces) ?? ""
                if let ascii = HostName.ascii(entry), !entry.isEmpty { hosts.append(ascii) }
            }
        }
        return hosts
    }
}
