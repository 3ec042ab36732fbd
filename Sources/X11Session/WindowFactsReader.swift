import CX11
import ScreenwardCore

/// Reads what identity resolution needs from a window.
extension XConnection {
    /// The facts of `window`'s application: a dialog (WM_TRANSIENT_FOR) reports the
    /// window it belongs to. Nil when the window vanished while being read.
    func readFacts(of window: Window) -> WindowFacts? {
        var owner = window
        var visited: Set<Window> = [window]
        let (facts, errors) = withErrorWatch {
            // Follow the transient chain to its top, refusing loops and absurd depths.
            while visited.count < 8, let parent = propertyWindow(owner, .wmTransientFor),
                parent != root, !visited.contains(parent)
            {
                visited.insert(parent)
                owner = parent
            }
            let wmClass = propertyStrings(owner, .wmClass, maxCharacters: 256)
            return WindowFacts(
                windowID: UInt(owner),
                wmInstance: wmClass?.first.flatMap { $0.isEmpty ? nil : $0 },
                wmClass: wmClass.flatMap { $0.count > 1 && !$0[1].isEmpty ? $0[1] : nil },
                gtkApplicationID: propertyString(owner, .gtkApplicationID, maxCharacters: 256),
                kdeDesktopFile: propertyString(owner, .kdeNetWMDesktopFile, maxCharacters: 256),
                title: propertyString(owner, .netWMName, maxCharacters: 1024)
                    ?? propertyString(owner, .wmName, maxCharacters: 1024),
                pid: processID(of: owner))
        }
        if errors.contains(where: { $0.errorCode == .badWindow && visited.contains(Window($0.resourceID)) }) {
            return nil
        }
        return facts
    }

    /// The pid of the client that created `window`: the X-Resource extension asks
    /// the server (it cannot be forged by the client); `_NET_WM_PID` is the client's
    /// own claim and only the fallback.
    func processID(of window: Window) -> Int32? {
        if hasXRes {
            var spec = XResClientIdSpec(client: XID(window), mask: UInt32(XRES_CLIENT_ID_PID_MASK.rawValue))
            var count: Int = 0
            var values: UnsafeMutablePointer<XResClientIdValue>?
            if XResQueryClientIds(display, 1, &spec, &count, &values) == Success, let values {
                defer { XResClientIdsDestroy(count, values) }
                for index in 0..<count {
                    let pid = XResGetClientPid(values.advanced(by: index))
                    if pid > 0 { return pid }
                }
            }
        }
        guard let pid = propertyValues(window, .netWMPID, maxCount: 1)?.first, pid > 0, pid < Int32.max else {
            return nil
        }
        return Int32(pid)
    }

    /// The pid of the client that created the window `id`, as the X server knows it (X-Resource
    /// only: a window's own `_NET_WM_PID` is its client's claim). Nil when the window does not
    /// exist, the server cannot tell (a client across the network), or has no X-Resource.
    public func creatorProcessID(ofWindow id: UInt) -> Int32? {
        guard hasXRes, id != 0, id <= UInt(UInt32.max) else { return nil }
        let (pid, errors) = withErrorWatch { () -> Int32? in
            var attributes = XWindowAttributes()
            guard XGetWindowAttributes(display, Window(id), &attributes) != 0 else { return nil }
            var spec = XResClientIdSpec(client: XID(id), mask: UInt32(XRES_CLIENT_ID_PID_MASK.rawValue))
            var count: Int = 0
            var values: UnsafeMutablePointer<XResClientIdValue>?
            guard XResQueryClientIds(display, 1, &spec, &count, &values) == Success, let values else { return nil }
            defer { XResClientIdsDestroy(count, values) }
            return (0..<count).lazy.map { XResGetClientPid(values.advanced(by: $0)) }.first { $0 > 0 }
        }
        return errors.isEmpty ? pid : nil
    }

    /// The processes of every client of this display now (X-Resource; one round trip),
    /// those the server could tell: a local client's, not one across the network.
    public func clientProcessIDs() -> Set<Int32> {
        guard hasXRes else { return [] }
        // Client 0: every client.
        var spec = XResClientIdSpec(client: 0, mask: UInt32(XRES_CLIENT_ID_PID_MASK.rawValue))
        var count: Int = 0
        var values: UnsafeMutablePointer<XResClientIdValue>?
        guard XResQueryClientIds(display, 1, &spec, &count, &values) == Success, let values else { return [] }
        defer { XResClientIdsDestroy(count, values) }
        return Set((0..<count).map { XResGetClientPid(values.advanced(by: $0)) }.filter { $0 > 0 })
    }

    /// Asked once per connection: the answer cannot change while it lives.
    var hasXRes: Bool {
        if let known = xResAvailable { return known }
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        let available = XResQueryExtension(display, &eventBase, &errorBase) != 0
        xResAvailable = available
        return available
    }
}
