import Glibc

/// Removes empty directories, as `rmdir(2)` does. FileManager's removal deletes a folder's
/// files first, which fails in a pseudo file system (a cgroup's folder is removed empty of
/// cgroups, with its control files still listed).
public enum EmptyDirectory {
    /// Whether `path` was removed.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        rmdir(path) == 0
    }
}
