#ifndef SCREENWARD_CGLIB_SHIM_H
#define SCREENWARD_CGLIB_SHIM_H

/* GLib's main loop, GIO (D-Bus) and the Linux calls the runtime makes beside them
 * (timerfd, inotify): everything the daemon and the command line need, without X. */
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <time.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <errno.h>
#include <unistd.h>

/* A CLOCK_REALTIME timerfd armed for an absolute wall-clock instant: it fires at
 * that instant even across a suspend, and with TFD_TIMER_CANCEL_ON_SET its read
 * fails with ECANCELED when someone sets the clock, so the owner can re-arm. */
static inline int sw_wall_timer_new(void) {
    return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
}
static inline int sw_wall_timer_arm(int fd, long long unix_ns) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = unix_ns / 1000000000LL;
    spec.it_value.tv_nsec = unix_ns % 1000000000LL;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}
/* 1: expired; 2: the clock was set; 0: nothing (spurious wakeup). */
static inline int sw_wall_timer_read(int fd) {
    unsigned long long expirations = 0;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    if (n == (ssize_t)sizeof expirations) return 1;
    if (n < 0 && errno == ECANCELED) return 2;
    return 0;
}

#endif
