import CGtk

/// Work for the GLib main loop's idle turns, after pending events and redraws.
enum PickerIdle {
    /// Calls `step` on each idle turn until it returns false.
    static func `repeat`(_ step: @escaping () -> Bool) {
        let box = Unmanaged.passRetained(IdleBox(step)).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, idleTrampoline, box) { data in
            guard let data else { return }
            Unmanaged<IdleBox>.fromOpaque(data).release()
        }
    }
}

private final class IdleBox {
    let step: () -> Bool
    init(_ step: @escaping () -> Bool) { self.step = step }
}

/// G_SOURCE_CONTINUE (1) while the step has more to do, else G_SOURCE_REMOVE (0).
private let idleTrampoline: GSourceFunc = { data in
    guard let data else { return 0 }
    return Unmanaged<IdleBox>.fromOpaque(data).takeUnretainedValue().step() ? 1 : 0
}
