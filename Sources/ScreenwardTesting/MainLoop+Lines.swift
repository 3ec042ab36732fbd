import CGLib
import Foundation
import GLibRuntime

/// Lines from a pipe on the loop, for the test tools that a test drives through their
/// standard input (screenward-shieldview).
extension MainLoop {
    /// Calls `onLine` for each line that arrives on `fd`, and `onEnd` once at end of
    /// file (a controlling process closed the pipe, for instance).
    @discardableResult
    public func readLines(from fd: Int32, onLine: @escaping (String) -> Void, onEnd: @escaping () -> Void)
        -> Registration
    {
        let reader = LineBuffer(fd: fd, onLine: onLine, onEnd: onEnd)
        let box = Unmanaged.passRetained(reader).toOpaque()
        let id = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, fd, GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            lineReady, box, { Unmanaged<LineBuffer>.fromOpaque($0!).release() })
        return Registration(sourceID: id)
    }
}

private final class LineBuffer {
    let fd: Int32
    let onLine: (String) -> Void
    let onEnd: () -> Void
    var pending: [UInt8] = []

    init(fd: Int32, onLine: @escaping (String) -> Void, onEnd: @escaping () -> Void) {
        self.fd = fd
        self.onLine = onLine
        self.onEnd = onEnd
    }

    /// Returns false at end of file.
    func readAvailable() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 {
            if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            pending.removeAll()
            onEnd()
            return false
        }
        pending.append(contentsOf: chunk[0..<count])
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            onLine(line)
        }
        if pending.count > 1 << 20 { pending.removeAll() }  // no line is that long; drop garbage
        return true
    }
}

private let lineReady: GUnixFDSourceFunc = { _, _, data in
    Unmanaged<LineBuffer>.fromOpaque(data!).takeUnretainedValue().readAvailable() ? 1 : 0
}
