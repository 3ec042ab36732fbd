#ifndef SCREENWARD_CX11_SHIM_H
#define SCREENWARD_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/sync.h>
#include <X11/extensions/XRes.h>
#include <X11/extensions/shape.h>
#include <X11/extensions/Xdamage.h>
#include <X11/extensions/Xfixes.h>
#include <X11/extensions/record.h>
#include <glib.h>
#include <string.h>
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

/* The Damage extension's event, read out of the XEvent union it arrives in. */
static inline Damage sw_damage_event_damage(const XEvent *e) { return ((const XDamageNotifyEvent *)e)->damage; }
static inline Time sw_damage_event_time(const XEvent *e) { return ((const XDamageNotifyEvent *)e)->timestamp; }
static inline long sw_damage_event_drawable_area(const XEvent *e) {
    const XDamageNotifyEvent *d = (const XDamageNotifyEvent *)e;
    return (long)d->geometry.width * (long)d->geometry.height;
}

/*
 * Takes what was damaged since the last call out of `damage` (re-arming its
 * XDamageReportNonEmpty report) and returns its area in pixels: the region's
 * rectangles do not overlap, so their areas add up. One round trip.
 */
static inline long sw_damage_take_area(Display *d, Damage damage, XserverRegion scratch) {
    XDamageSubtract(d, damage, None, scratch);
    int count = 0;
    XRectangle *rects = XFixesFetchRegion(d, scratch, &count);
    long area = 0;
    for (int i = 0; i < count; i++) area += (long)rects[i].width * (long)rects[i].height;
    if (rects) XFree(rects);
    return area;
}

/* The MIT-SCREEN-SAVER extension's notify event. */
static inline int sw_saver_event_state(const XEvent *e) { return ((const XScreenSaverNotifyEvent *)e)->state; }
static inline Time sw_saver_event_time(const XEvent *e) { return ((const XScreenSaverNotifyEvent *)e)->time; }

/*
 * What the RECORD extension saw of other clients, decoded: a client's
 * ScreenSaverSuspend request (kind 1, with its argument), or a client gone (kind 2).
 * `suspend` is the request's CARD32 as the server reads it (only 1 suspends).
 */
#define SW_SCREEN_SAVER_SUSPEND 5 /* X_ScreenSaverSuspend, saverproto.h */
typedef void (*sw_saver_record_fn)(void *closure, int kind, unsigned long client, unsigned int suspend,
                                   unsigned long server_time);
typedef struct { sw_saver_record_fn fn; void *closure; int saver_major; } SWSaverRecord;

static void sw_saver_record_intercept(XPointer closure, XRecordInterceptData *data) {
    SWSaverRecord *record = (SWSaverRecord *)closure;
    /* The request: major and minor opcode, its length (2 bytes), then the CARD32 suspend. */
    if (data->category == XRecordFromClient && data->data_len * 4 >= 8) {
        const unsigned char *req = data->data;
        if (req[0] == record->saver_major && req[1] == SW_SCREEN_SAVER_SUSPEND) {
            unsigned int suspend;
            memcpy(&suspend, req + 4, 4);
            if (data->client_swapped) suspend = ((suspend & 0xff) << 24) | ((suspend & 0xff00) << 8) |
                                                ((suspend >> 8) & 0xff00) | (suspend >> 24);
            record->fn(record->closure, 1, data->id_base, suspend, data->server_time);
        }
    } else if (data->category == XRecordClientDied) {
        record->fn(record->closure, 2, data->id_base, 0, data->server_time);
    }
    XRecordFreeData(data);
}

/*
 * Records every client's ScreenSaverSuspend requests and every client's end: the
 * context is made on `control`, enabled on `data` (a connection of its own, which
 * then carries nothing else). Returns the context, or 0.
 */
static inline XRecordContext sw_saver_record_start(Display *control, Display *data, SWSaverRecord *record) {
    XRecordRange *range = XRecordAllocRange();
    if (!range) return 0;
    range->ext_requests.ext_major.first = record->saver_major;
    range->ext_requests.ext_major.last = record->saver_major;
    range->ext_requests.ext_minor.first = SW_SCREEN_SAVER_SUSPEND;
    range->ext_requests.ext_minor.last = SW_SCREEN_SAVER_SUSPEND;
    range->client_died = True;
    XRecordClientSpec clients = XRecordAllClients;
    XRecordContext context = XRecordCreateContext(control, XRecordFromClientTime, &clients, 1, &range, 1);
    XFree(range);
    if (!context) return 0;
    XSync(control, False);
    if (!XRecordEnableContextAsync(data, context, sw_saver_record_intercept, (XPointer)record)) {
        XRecordFreeContext(control, context);
        return 0;
    }
    XFlush(data);
    return context;
}

#endif
