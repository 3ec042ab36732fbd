import Foundation

/// What identity resolution may learn about the process that owns a window.
///
/// Every answer is optional: processes exit between the X event and the query, and
/// other users' processes are not ours to read. A protocol so tests can fake /proc.
public protocol ProcessInspector: Sendable {
    /// The executable's canonical path (what /proc/PID/exe points to).
    func executablePath(pid: Int32) -> String?
    /// The Flatpak application id, when the process runs in a Flatpak sandbox.
    func flatpakApplicationID(pid: Int32) -> String?
    /// The environment the process started with (later `setenv` calls are invisible).
    func environment(pid: Int32) -> [String: String]?
    /// The process's arguments, argv[0] first (a process may have rewritten them).
    func commandLine(pid: Int32) -> [String]?
}

extension ProcessInspector {
    /// Unknown by default: identity then relies on the other facts.
    public func commandLine(pid: Int32) -> [String]? { nil }
}

/// Reads processes from procfs.
public struct ProcfsInspector: ProcessInspector {
    /// Where procfs is mounted; tests point it at a directory of their own.
    public let procRoot: String
    /// How much of /proc/PID/environ is read. Environments are normally a few KiB,
    /// but a process can make its own as large as the kernel allows.
    public let environmentByteLimit: Int

    public init(procRoot: String = "/proc", environmentByteLimit: Int = 256 * 1024) {
        self.procRoot = procRoot
        self.environmentByteLimit = max(0, environmentByteLimit)
    }

    public func executablePath(pid: Int32) -> String? {
        guard pid > 0,
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(procRoot)/\(pid)/exe")
        else { return nil }
        // The kernel marks a binary replaced by an upgrade; the path is still the app's.
        let deleted = " (deleted)"
        return target.hasSuffix(deleted) ? String(target.dropLast(deleted.count)) : target
    }

    public func flatpakApplicationID(pid: Int32) -> String? {
        // The sandbox's root is visible through /proc/PID/root; only Flatpak puts this file there.
        guard pid > 0, let data = read("\(procRoot)/\(pid)/root/.flatpak-info", limit: 64 * 1024) else { return nil }
        let (group, _) = KeyFile.group("Application", in: String(decoding: data, as: UTF8.self))
        guard let name = group?.values["name"], !name.isEmpty, !name.contains("/") else { return nil }
        return name
    }

    public func environment(pid: Int32) -> [String: String]? {
        guard pid > 0, let data = read("\(procRoot)/\(pid)/environ", limit: environmentByteLimit + 1) else {
            return nil
        }
        var records = data.split(separator: 0, omittingEmptySubsequences: true)
        // Past the limit the last record is cut short; a truncated value is worse than none.
        if data.count > environmentByteLimit, data.last != 0 { records.removeLast() }
        var environment: [String: String] = [:]
        for record in records {
            let text = String(decoding: record, as: UTF8.self)
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { continue }
            let key = String(text[..<equals])
            // The first definition is the one getenv() returns.
            if environment[key] == nil { environment[key] = String(text[text.index(after: equals)...]) }
        }
        return environment
    }

    public func commandLine(pid: Int32) -> [String]? {
        // Real command lines are short; 64 KiB keeps a hostile one from costing much.
        guard pid > 0, var data = read("\(procRoot)/\(pid)/cmdline", limit: 64 * 1024), !data.isEmpty else {
            return nil
        }
        if data.last == 0 { data.removeLast() }  // Each argument ends with a NUL.
        return data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    private func read(_ path: String, limit: Int) -> Data? {
        Self.read(path, limit: limit)
    }

    /// Reads at most `limit` bytes. procfs files report a size of 0, so reading to a
    /// limit is the only way to bound them.
    package static func read(_ path: String, limit: Int) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            // nil from a handle that opened means an empty file, as a kernel thread's environ is.
            return try handle.read(upToCount: limit) ?? Data()
        } catch {
            return nil
        }
    }
}
