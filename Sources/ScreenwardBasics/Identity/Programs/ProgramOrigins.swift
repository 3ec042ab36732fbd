import Foundation

/// Whether a user could have put or changed an executable: the test for "the system did
/// not install it". A path is the user's to change when its file is theirs or writable by
/// them, or when a folder on the way lets them replace what follows (a folder of theirs,
/// or one they may write that is not sticky: in /tmp they can replace only their own).
/// Access control lists are not read (see docs/architecture.md).
public struct ProgramOrigins: Sendable {
    public struct FileStatus: Sendable, Equatable {
        public var owner: UInt32
        public var group: UInt32
        /// The permission bits with setuid, setgid and sticky (0o7777).
        public var mode: Int
        public init(owner: UInt32, group: UInt32, mode: Int) {
            self.owner = owner
            self.group = group
            self.mode = mode
        }
    }

    public let uid: UInt32
    public let groups: Set<UInt32>
    private let status: @Sendable (String) -> FileStatus?

    /// `status` reads a path's owner and mode without following a final symbolic link
    /// (tests give their own).
    public init(
        uid: UInt32, groups: Set<UInt32>, status: @escaping @Sendable (String) -> FileStatus? = ProgramOrigins.lstatus
    ) {
        self.uid = uid
        self.groups = groups
        self.status = status
    }

    /// Whether the user could have put or changed the executable at `path` (absolute,
    /// symbolic links resolved, as /proc/PID/exe gives it).
    public func userControls(executable path: String) -> Bool {
        // A deleted file, or one in memory (memfd, "/memfd:x (deleted)"), is no installed program.
        guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)") else { return true }
        let components = path.split(separator: "/").map(String.init)
        guard !components.isEmpty else { return true }
        var parent = "/"
        guard let root = status(parent) else { return true }
        var parentStatus = root
        for (index, name) in components.enumerated() {
            let current = parent == "/" ? "/" + name : parent + "/" + name
            guard let here = status(current) else { return true }
            // The folder lets the user replace this entry.
            if canWrite(parentStatus)
                && (parentStatus.mode & 0o1000 == 0 || parentStatus.owner == uid || here.owner == uid)
            {
                return true
            }
            if here.owner == uid { return true }
            if index == components.count - 1, canWrite(here) { return true }
            parent = current
            parentStatus = here
        }
        return false
    }

    private func canWrite(_ file: FileStatus) -> Bool {
        if file.owner == uid { return true }
        if groups.contains(file.group) { return file.mode & 0o020 != 0 }
        return file.mode & 0o002 != 0
    }

    /// The owner, group and mode of `path` itself.
    @Sendable public static func lstatus(_ path: String) -> FileStatus? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value,
            let group = (attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value,
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return nil }
        return FileStatus(owner: owner, group: group, mode: mode)
    }
}
