import CGLib
import Foundation

extension MainLoop {
    /// Calls `onChange` on the loop, once per burst (after `settle`), when anything in
    /// one of `directories` is created, written, moved, removed or has its mode changed,
    /// or when a directory itself appears or goes. A directory that does not exist yet
    /// is waited for through its nearest existing ancestor (inotify, no polling).
    /// Throws when inotify cannot be had (out of instances).
    public func watch(directories: [URL], settle: Duration = .milliseconds(100), onChange: @escaping () -> Void) throws
        -> DirectoryWatch
    {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw DirectoryWatch.Failure(errno: errno) }
        let watch = DirectoryWatch(
            fd: fd, directories: directories.map(\.standardizedFileURL.path), loop: self, settle: settle,
            onChange: onChange)
        watch.arm()
        let box = Unmanaged.passRetained(watch).toOpaque()
        watch.sourceID = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, fd, GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            directoryEventsReady, box, { Unmanaged<DirectoryWatch>.fromOpaque($0!).release() })
        return watch
    }
}

/// Folders watched with inotify; `cancel()` stops (idempotent).
public final class DirectoryWatch {
    public struct Failure: Error, CustomStringConvertible {
        public let errno: Int32
        public var description: String { "cannot watch folders: \(String(cString: strerror(errno)))" }
    }

    private let fd: Int32
    private let directories: [String]
    private unowned let loop: MainLoop
    private let settle: Duration
    private let onChange: () -> Void
    fileprivate var sourceID: guint = 0
    private var watched: [String: Int32] = [:]
    private var pending: MainLoop.Registration?

    fileprivate init(fd: Int32, directories: [String], loop: MainLoop, settle: Duration, onChange: @escaping () -> Void)
    {
        self.fd = fd
        self.directories = directories
        self.loop = loop
        self.settle = settle
        self.onChange = onChange
    }

    deinit { close(fd) }

    public func cancel() {
        pending?.cancel()
        guard sourceID != 0 else { return }
        let id = sourceID
        sourceID = 0
        g_source_remove(id)  // releases the loop's reference
    }

    /// Places the watches: each folder itself, or while it is missing, the nearest
    /// ancestor that exists (for the folder's creation). Only watches no longer wanted
    /// are removed: a removal queues an event of its own, which must not loop.
    fileprivate func arm() {
        let contents = UInt32(
            IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
                | IN_MOVE_SELF)
        let creation = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        var wanted: [String: UInt32] = [:]
        for directory in directories {
            var path = directory
            var mask = contents
            while !isDirectory(path) {
                let parent = (path as NSString).deletingLastPathComponent
                guard parent != path, !parent.isEmpty else { break }
                path = parent
                mask = creation
            }
            wanted[path, default: 0] |= mask
        }
        for (path, watch) in watched where wanted[path] == nil {
            inotify_rm_watch(fd, watch)
            watched[path] = nil
        }
        for (path, mask) in wanted {
            let watch = inotify_add_watch(fd, path, mask | UInt32(IN_ONLYDIR))
            watched[path] = watch >= 0 ? watch : nil
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }

    /// Reads what inotify has (the events themselves do not matter: any change means
    /// reading the folders again), re-arms, and calls `onChange` once things settle.
    fileprivate func eventsReady() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            break
        }
        arm()
        pending?.cancel()
        pending = loop.schedule(after: settle) { [weak self] in self?.onChange() }
        return true
    }
}

private let directoryEventsReady: GUnixFDSourceFunc = { _, _, data in
    Unmanaged<DirectoryWatch>.fromOpaque(data!).takeUnretainedValue().eventsReady() ? 1 : 0
}
