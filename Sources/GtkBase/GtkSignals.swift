import CGtk

// `g_signal_connect` is a C macro Swift does not import: handlers go through
// `g_signal_connect_data` with a C trampoline per signal signature; the Swift closure
// travels as a retained box that GLib releases (destroy notify) with the handler.

private final class SignalBox<Handler> {
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }
}

private let releaseSignalBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

private typealias NotificationHandler = () -> Void
private typealias EventHandler = (UnsafeMutablePointer<GdkEvent>) -> Bool
private typealias DrawHandler = (OpaquePointer) -> Void

/// `void handler(GObject *instance, gpointer data)`: "clicked", "destroy".
private let notificationTrampoline: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
    guard let data else { return }
    (Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as! SignalBox<NotificationHandler>).handler()
}

/// `gboolean handler(GtkWidget *widget, GdkEvent *event, gpointer data)`: "delete-event", "key-press-event".
private let eventTrampoline: @convention(c) (gpointer?, UnsafeMutablePointer<GdkEvent>?, gpointer?) -> gboolean = {
    _, event, data in
    guard let event, let data else { return 0 }
    return (Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as! SignalBox<EventHandler>).handler(event)
        ? 1 : 0
}

/// `gboolean handler(GtkWidget *widget, cairo_t *cr, gpointer data)`: "draw".
private let drawTrampoline: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> gboolean = { _, cairo, data in
    guard let cairo, let data else { return 0 }
    (Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as! SignalBox<DrawHandler>).handler(cairo)
    return 0
}

private func connect<Handler>(_ instance: gpointer, _ signal: String, _ trampoline: GCallback, _ handler: Handler) {
    let box = Unmanaged<AnyObject>.passRetained(SignalBox(handler)).toOpaque()
    g_signal_connect_data(instance, signal, trampoline, box, releaseSignalBox, GConnectFlags(rawValue: 0))
}

package enum GtkSignals {
    /// A signal without arguments ("clicked").
    package static func onNotification(_ instance: gpointer, _ signal: String, _ handler: @escaping () -> Void) {
        connect(
            instance, signal, unsafeBitCast(notificationTrampoline, to: GCallback.self), handler as NotificationHandler)
    }

    /// An event signal ("delete-event", "key-press-event"); the handler returns true
    /// when it has handled the event (GTK then stops its own handling).
    package static func onEvent(
        _ instance: gpointer, _ signal: String, _ handler: @escaping (UnsafeMutablePointer<GdkEvent>) -> Bool
    ) {
        connect(instance, signal, unsafeBitCast(eventTrampoline, to: GCallback.self), handler as EventHandler)
    }

    /// "draw", with the widget's cairo context.
    package static func onDraw(_ instance: gpointer, _ handler: @escaping (OpaquePointer) -> Void) {
        connect(instance, "draw", unsafeBitCast(drawTrampoline, to: GCallback.self), handler as DrawHandler)
    }
}

/// A GTK instance pointer as one of its (super)classes' instance types.
package func cast<Target>(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<Target> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Target.self)
}
