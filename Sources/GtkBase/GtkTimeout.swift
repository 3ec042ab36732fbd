import CGtk

/// One-shot timers on GTK's main loop, for the dialogs' waits (a button that wakes up
/// later). `g_timeout_add_full` takes a C callback: the Swift closure travels as a
/// retained box that GLib releases when the source goes, fired or removed.
package enum GtkTimeout {
    /// Runs `action` once after `milliseconds`; the source id, for `g_source_remove`.
    @discardableResult
    package static func once(after milliseconds: guint, _ action: @escaping () -> Void) -> guint {
        let box = Unmanaged.passRetained(TimeoutBox(action)).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, timeoutTrampoline, box) { data in
            guard let data else { return }
            Unmanaged<TimeoutBox>.fromOpaque(data).release()
        }
    }
}

private final class TimeoutBox {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}

/// Runs the box's action once (returning G_SOURCE_REMOVE).
private let timeoutTrampoline: GSourceFunc = { data in
    guard let data else { return 0 }
    Unmanaged<TimeoutBox>.fromOpaque(data).takeUnretainedValue().action()
    return 0
}
