#ifndef SCREENWARD_CGTK_SHIM_H
#define SCREENWARD_CGTK_SHIM_H
#include <gtk/gtk.h>
#include <gdk/gdkx.h>
#include <gtk/gtkx.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>

/* Helpers for what Swift cannot call directly: variadic functions (g_object_get),
 * macros, and deprecated calls that have no replacement for our purpose. */

/* GtkSettings properties, read through the variadic g_object_get. */
static inline int sw_settings_prefers_dark(GtkSettings *settings) {
    gboolean dark = FALSE;
    g_object_get(settings, "gtk-application-prefer-dark-theme", &dark, NULL);
    return dark ? 1 : 0;
}
/* The theme name (free with g_free), or NULL. */
static inline gchar *sw_settings_theme_name(GtkSettings *settings) {
    gchar *name = NULL;
    g_object_get(settings, "gtk-theme-name", &name, NULL);
    return name;
}

/* WM_CLASS must be set before the window is realized; GTK's only per-window way to
 * do so is deprecated (it points to the process-wide g_set_prgname, which would give
 * every window of the agent the same class). */
static inline void sw_window_set_wmclass(GtkWindow *window, const char *instance, const char *class_name) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_window_set_wmclass(window, instance, class_name);
    G_GNUC_END_IGNORE_DEPRECATIONS
}

/* Asks the window manager to activate `xid` with an EWMH _NET_ACTIVE_WINDOW request
 * from a pager (source 2), which window managers obey without focus-stealing
 * prevention. */
static inline void sw_request_activation(GdkDisplay *display, Window xid) {
    Display *xdisplay = GDK_DISPLAY_XDISPLAY(display);
    XEvent event = {0};
    event.xclient.type = ClientMessage;
    event.xclient.window = xid;
    event.xclient.message_type = XInternAtom(xdisplay, "_NET_ACTIVE_WINDOW", False);
    event.xclient.format = 32;
    event.xclient.data.l[0] = 2;
    event.xclient.data.l[1] = CurrentTime;
    XSendEvent(xdisplay, DefaultRootWindow(xdisplay), False, SubstructureRedirectMask | SubstructureNotifyMask, &event);
    XFlush(xdisplay);
}

/* Where a foreign window `xid` is drawn, in root coordinates (its inside, without
 * the window manager's frame). Returns 0 when the window does not exist. */
static inline int sw_window_root_geometry(GdkDisplay *display, Window xid, int *x, int *y, int *width, int *height) {
    Display *xdisplay = GDK_DISPLAY_XDISPLAY(display);
    gdk_x11_display_error_trap_push(display);
    XWindowAttributes attributes;
    Window child;
    int ok = XGetWindowAttributes(xdisplay, xid, &attributes) != 0;
    if (ok) ok = XTranslateCoordinates(xdisplay, xid, attributes.root, 0, 0, x, y, &child) != 0;
    if (gdk_x11_display_error_trap_pop(display) != 0) ok = 0;
    if (ok) {
        *width = attributes.width;
        *height = attributes.height;
    }
    return ok;
}
#endif
