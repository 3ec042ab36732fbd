import Synchronization

/// How many connections each local user may hold open on a socket open to everyone (the
/// system daemon's). Without it one user's idle connections take every descriptor the
/// daemon has, and each may hold a line of up to `Frame.maximumLength` bytes in memory:
/// with it a user holds at most `perUser` connections and `perUser` such lines. The
/// accounts in `exempt` (root, the agents' and the extensions' system users, which the
/// daemon itself starts) are never turned away. Channels of any event loop share it.
public final class ConnectionLimit: Sendable {
    public let perUser: Int
    public let exempt: Set<UInt32>
    private let open = Mutex<[UInt32: Int]>([:])

    /// What the daemon tells a connection it turns away (an app may show it to a person,
    /// in their language).
    public static let refusalPhrase = Phrase("too many connections from this user", context: "connection")
    /// The same in English, as the daemon's log and its handler tell refusals apart.
    public static let refusal = refusalPhrase.description

    public init(perUser: Int, exempt: Set<UInt32>) {
        self.perUser = perUser
        self.exempt = exempt
    }

    /// Counts a new connection of `uid` in, or says no when it already holds `perUser`.
    public func admit(uid: UInt32) -> Bool {
        open.withLock { open in
            guard !exempt.contains(uid) else { return true }
            let held = open[uid, default: 0]
            guard held < perUser else { return false }
            open[uid] = held + 1
            return true
        }
    }

    /// An admitted connection of `uid` ended.
    public func release(uid: UInt32) {
        open.withLock { open in
            guard !exempt.contains(uid), let held = open[uid] else { return }
            open[uid] = held > 1 ? held - 1 : nil
        }
    }

    /// The connections `uid` holds now.
    public func held(by uid: UInt32) -> Int {
        open.withLock { $0[uid, default: 0] }
    }
}
