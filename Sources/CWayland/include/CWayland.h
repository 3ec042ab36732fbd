#ifndef SCREENWARD_CWAYLAND_H
#define SCREENWARD_CWAYLAND_H

/*
 * libwayland-client and the protocols the agent speaks to a Wayland compositor, as
 * wayland-scanner made them (scripts/generate-wayland-protocols.sh): wlroots' foreign
 * toplevels (the focus) and layer shell (shields), KDE's and the staging idle protocols.
 */
#include <wayland-client.h>

#include "ext-idle-notify-v1-client-protocol.h"
#include "idle-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/*
 * The interfaces' addresses. Swift would pass a copy of an extern struct, and libwayland
 * keeps and compares the address it is given.
 */
static inline const struct wl_interface *sw_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *sw_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *sw_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *sw_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *sw_toplevel_manager_interface(void) {
    return &zwlr_foreign_toplevel_manager_v1_interface;
}
static inline const struct wl_interface *sw_layer_shell_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *sw_ext_idle_notifier_interface(void) { return &ext_idle_notifier_v1_interface; }
static inline const struct wl_interface *sw_kde_idle_interface(void) { return &org_kde_kwin_idle_interface; }

#endif
