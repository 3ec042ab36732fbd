import Foundation
import Glibc

/// A computer of its own on this machine, for the household's tests: a network namespace
/// joined to this one by a veth link, with an address on each end. A program started in it
/// (`ip netns exec`) reaches this machine only over the link, so taking the link down takes
/// the computer offline as a pulled cable would: its connections hang rather than fail.
public final class NetworkComputer {
    /// The namespace's name.
    public let name: String
    /// This machine's end of the link (where the computer reaches the database), and the computer's.
    public let hostAddress: String
    public let address: String
    private let hostLink: String

    /// Why no namespace can be made here (not root, no `ip`), or nil when one can.
    public static func missingRequirement() -> String? {
        guard geteuid() == 0 else { return "network namespaces need root" }
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            return "\(ip) is missing (apt-get install iproute2)"
        }
        return nil
    }

    static let ip = "/usr/sbin/ip"

    /// The computer numbered `number` (1…250) of a test whose users start with `prefix`.
    public init(number: Int, users: LocalUsers) throws {
        name = "\(users.prefix)n\(number)"
        // Interface names are 15 characters at most.
        let tag = String(users.prefix.suffix(6)) + String(number)
        hostLink = "swh\(tag)"
        let peerLink = "swc\(tag)"
        hostAddress = "10.213.\(number).1"
        address = "10.213.\(number).2"
        users.note("netns \(name)")
        try Self.ip(["netns", "add", name])
        try Self.ip(["link", "add", hostLink, "type", "veth", "peer", "name", peerLink])
        try Self.ip(["link", "set", peerLink, "netns", name])
        try Self.ip(["addr", "add", "\(hostAddress)/30", "dev", hostLink])
        try Self.ip(["link", "set", hostLink, "up"])
        try Self.ip(["netns", "exec", name, Self.ip, "addr", "add", "\(address)/30", "dev", peerLink])
        try Self.ip(["netns", "exec", name, Self.ip, "link", "set", peerLink, "up"])
        try Self.ip(["netns", "exec", name, Self.ip, "link", "set", "lo", "up"])
    }

    deinit { remove() }

    /// What runs a program in this computer: put before its command line.
    public var commandPrefix: [String] { [Self.ip, "netns", "exec", name] }

    /// The computer goes offline: its link is down (nothing it sent is answered).
    public func takeLinkDown() throws { try Self.ip(["link", "set", hostLink, "down"]) }

    public func bringLinkUp() throws { try Self.ip(["link", "set", hostLink, "up"]) }

    /// The namespace goes, and with it its end of the link (and so the link).
    public func remove() {
        _ = try? LocalUsers.capture(Self.ip, ["netns", "del", name])
        _ = try? LocalUsers.capture(Self.ip, ["link", "del", hostLink])
    }

    private static func ip(_ arguments: [String]) throws {
        let result = try LocalUsers.capture(ip, arguments)
        guard result.status == 0 else {
            throw HarnessError.failed("ip \(arguments.joined(separator: " ")) failed: \(result.error)")
        }
    }
}
