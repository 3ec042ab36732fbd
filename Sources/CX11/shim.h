#ifndef SCREENWARD_CX11_SHIM_H
#define SCREENWARD_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/sync.h>
#include <X11/extensions/XRes.h>
#include <X11/extensions/shape.h>
#include <glib.h>
#include <glib-unix.h>

/*
 * A GSource that carries an Xlib connection on the GLib main loop.
 *
 * A plain g_unix_fd_add on ConnectionNumber() can stall: Xlib may already hold
 * events it read from the socket while answering a request, and the fd then stays
 * quiet. Those events may sit in XCB's queue, not yet in Xlib's (a round trip made
 * outside the dispatch, from a timer, reads them there): QueuedAlready does not see
 * them and the loop would sleep until something else woke it (seen: 250 ms).
 * So `prepare` and `check` ask with QueuedAfterReading, which moves what XCB holds
 * (and what the socket has, without blocking) into Xlib's queue; `prepare` also
 * flushes pending requests before the loop sleeps.
 * The dispatch callback drains the queue with XPending/XNextEvent (in Swift).
 */
typedef struct {
    GSource source;
    Display *display;
    GPollFD poll_fd;
} SWXEventSource;

static gboolean sw_x_source_prepare(GSource *source, gint *timeout) {
    SWXEventSource *x = (SWXEventSource *)source;
    *timeout = -1;
    if (XEventsQueued(x->display, QueuedAfterReading) > 0) return TRUE;
    XFlush(x->display);
    return FALSE;
}

static gboolean sw_x_source_check(GSource *source) {
    SWXEventSource *x = (SWXEventSource *)source;
    if (x->poll_fd.revents & (G_IO_IN | G_IO_HUP | G_IO_ERR)) return TRUE;
    return XEventsQueued(x->display, QueuedAfterReading) > 0;
}

static gboolean sw_x_source_dispatch(GSource *source, GSourceFunc callback, gpointer user_data) {
    if (callback == NULL) return G_SOURCE_CONTINUE;
    return callback(user_data);
}

static GSourceFuncs sw_x_source_funcs = {
    sw_x_source_prepare, sw_x_source_check, sw_x_source_dispatch, NULL, NULL, NULL
};

/* Creates (but does not attach) the source; the caller sets the callback. */
static inline GSource *sw_x_source_new(Display *display) {
    GSource *source = g_source_new(&sw_x_source_funcs, sizeof(SWXEventSource));
    SWXEventSource *x = (SWXEventSource *)source;
    x->display = display;
    x->poll_fd.fd = ConnectionNumber(display);
    x->poll_fd.events = G_IO_IN | G_IO_HUP | G_IO_ERR;
    g_source_add_poll(source, &x->poll_fd);
    g_source_set_name(source, "screenward-x11");
    return source;
}

/* Accessors for Xlib's event union and macros, which Swift does not import well. */
static inline int sw_event_type(const XEvent *e) { return e->type; }
static inline int sw_connection_number(Display *d) { return ConnectionNumber(d); }
static inline Window sw_default_root(Display *d) { return DefaultRootWindow(d); }
static inline int sw_default_screen(Display *d) { return DefaultScreen(d); }
static inline unsigned long sw_black_pixel(Display *d) { return BlackPixel(d, DefaultScreen(d)); }
static inline unsigned long sw_white_pixel(Display *d) { return WhitePixel(d, DefaultScreen(d)); }

static inline unsigned long sw_next_request(Display *d) { return NextRequest(d); }

/* The Shape extension's event, read out of the XEvent union it arrives in. */
static inline Window sw_shape_event_window(const XEvent *e) { return ((const XShapeEvent *)e)->window; }
static inline int sw_shape_event_kind(const XEvent *e) { return ((const XShapeEvent *)e)->kind; }

/*
 * Whether a later PropertyNotify for (window, atom) already waits in Xlib's queue.
 * A property read returns the newest value, which belongs to that later event.
 * XCheckIfEvent with a predicate that never accepts scans without removing.
 */
typedef struct { Window window; Atom atom; int found; } SWPropertyMatch;
static Bool sw_property_predicate(Display *d, XEvent *e, XPointer arg) {
    SWPropertyMatch *m = (SWPropertyMatch *)arg;
    if (e->type == PropertyNotify && e->xproperty.window == m->window && e->xproperty.atom == m->atom) m->found = 1;
    return False;
}
static inline int sw_property_event_queued(Display *d, Window window, Atom atom) {
    XEvent unused;
    SWPropertyMatch match = { window, atom, 0 };
    XCheckIfEvent(d, &unused, sw_property_predicate, (XPointer)&match);
    return match.found;
}

/* XSync values are a struct of two halves; these hide the macros. */
static inline XSyncValue sw_sync_value(long long v) {
    XSyncValue value;
    XSyncIntsToValue(&value, (unsigned int)(v & 0xffffffffULL), (int)(v >> 32));
    return value;
}
static inline long long sw_sync_value_int64(XSyncValue v) {
    return ((long long)XSyncValueHigh32(v) << 32) | (long long)(unsigned int)XSyncValueLow32(v);
}

#endif
