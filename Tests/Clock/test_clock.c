// A test clock for whole process trees: preloaded (LD_PRELOAD) into the test process and
// every program it starts, it moves the wall clock (CLOCK_REALTIME and what reads it) by
// SCREENWARD_TEST_CLOCK_OFFSET seconds, the same for all of them, so they agree with each
// other and time goes on at its usual pace. The monotonic and boot clocks are left alone.
// Wall-clock timers (a timerfd on CLOCK_REALTIME armed for an absolute instant, as the
// agent's WallClockTimer is) are armed for the instant on the kernel's clock, so they fire
// when the moved clock says, and so are waits on a condition variable until a wall-clock
// instant (Foundation's NSCondition.wait(until:)), on a semaphore (libdispatch's
// DispatchSemaphore.wait(timeout:) on Linux), on a mutex, or a sleep until a wall-clock instant:
// the kernel takes those deadlines on its own clock, so each is moved back by the offset before
// it gets there. (A deadline left moved is an offset in the past or the future: a wait of ten
// seconds that ends at once, or in a year.) Tests/Clock/test_clock_check.c proves each of them.
// scripts/test-clocks.sh builds and uses it. (Debian's libfaketime does the same but
// empties Swift's CommandLine.arguments, and the tests take their arguments from there.)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>

static long offset_seconds(void) {
    static int read;
    static long offset;
    if (!read) {
        const char *value = getenv("SCREENWARD_TEST_CLOCK_OFFSET");
        offset = value ? strtol(value, NULL, 10) : 0;
        read = 1;
    }
    return offset;
}

static int is_wall_clock(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
}

int clock_gettime(clockid_t clock, struct timespec *now) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, now);
    if (result == 0 && is_wall_clock(clock)) now->tv_sec += offset_seconds();
    return result;
}

int gettimeofday(struct timeval *restrict now, void *restrict zone) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(now, zone);
    if (result == 0) now->tv_sec += offset_seconds();
    return result;
}

time_t time(time_t *out) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return (time_t)-1;
    if (out) *out = now.tv_sec;
    return now.tv_sec;
}

// Which timerfds count wall-clock time, by descriptor number (set when each is made).
enum { TRACKED_TIMERS = 65536 };
static unsigned char wall_clock_timer[TRACKED_TIMERS];

int timerfd_create(int clock, int flags) {
    static int (*real)(int, int);
    if (!real) real = (int (*)(int, int))dlsym(RTLD_NEXT, "timerfd_create");
    int timer = real(clock, flags);
    if (timer >= 0 && timer < TRACKED_TIMERS) wall_clock_timer[timer] = is_wall_clock(clock);
    return timer;
}

int timerfd_settime(int timer, int flags, const struct itimerspec *value, struct itimerspec *old) {
    static int (*real)(int, int, const struct itimerspec *, struct itimerspec *);
    if (!real) real = (int (*)(int, int, const struct itimerspec *, struct itimerspec *))dlsym(RTLD_NEXT, "timerfd_settime");
    if (!(flags & TFD_TIMER_ABSTIME) || timer < 0 || timer >= TRACKED_TIMERS || !wall_clock_timer[timer]) {
        return real(timer, flags, value, old);
    }
    struct itimerspec moved = *value;
    // Zero disarms the timer: it stays zero.
    if (moved.it_value.tv_sec != 0 || moved.it_value.tv_nsec != 0) moved.it_value.tv_sec -= offset_seconds();
    return real(timer, flags, &moved, old);
}

// Condition variables made to wait on another clock than the wall clock (their attribute
// says so), by address; every other one waits on the wall clock, and its deadline is moved.
enum { OTHER_CLOCK_CONDITIONS = 4096 };
static pthread_cond_t *other_clock_conditions[OTHER_CLOCK_CONDITIONS];
static pthread_mutex_t conditions_lock = PTHREAD_MUTEX_INITIALIZER;

static int waits_on_other_clock(pthread_cond_t *condition) {
    int found = 0;
    pthread_mutex_lock(&conditions_lock);
    for (int index = 0; index < OTHER_CLOCK_CONDITIONS && !found; index++) found = other_clock_conditions[index] == condition;
    pthread_mutex_unlock(&conditions_lock);
    return found;
}

static void forget_condition(pthread_cond_t *condition) {
    pthread_mutex_lock(&conditions_lock);
    for (int index = 0; index < OTHER_CLOCK_CONDITIONS; index++) {
        if (other_clock_conditions[index] == condition) other_clock_conditions[index] = NULL;
    }
    pthread_mutex_unlock(&conditions_lock);
}

int pthread_cond_init(pthread_cond_t *restrict condition, const pthread_condattr_t *restrict attributes) {
    static int (*real)(pthread_cond_t *restrict, const pthread_condattr_t *restrict);
    if (!real) real = (int (*)(pthread_cond_t *restrict, const pthread_condattr_t *restrict))dlvsym(RTLD_NEXT, "pthread_cond_init", "GLIBC_2.3.2");
    forget_condition(condition);
    clockid_t clock = CLOCK_REALTIME;
    if (attributes && pthread_condattr_getclock(attributes, &clock) == 0 && !is_wall_clock(clock)) {
        pthread_mutex_lock(&conditions_lock);
        for (int index = 0; index < OTHER_CLOCK_CONDITIONS; index++) {
            if (!other_clock_conditions[index]) {
                other_clock_conditions[index] = condition;
                break;
            }
        }
        pthread_mutex_unlock(&conditions_lock);
    }
    return real(condition, attributes);
}

int pthread_cond_destroy(pthread_cond_t *condition) {
    static int (*real)(pthread_cond_t *);
    if (!real) real = (int (*)(pthread_cond_t *))dlvsym(RTLD_NEXT, "pthread_cond_destroy", "GLIBC_2.3.2");
    forget_condition(condition);
    return real(condition);
}

int pthread_cond_timedwait(pthread_cond_t *restrict condition, pthread_mutex_t *restrict mutex, const struct timespec *restrict deadline) {
    static int (*real)(pthread_cond_t *restrict, pthread_mutex_t *restrict, const struct timespec *restrict);
    if (!real) {
        real = (int (*)(pthread_cond_t *restrict, pthread_mutex_t *restrict, const struct timespec *restrict))dlvsym(
            RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    }
    if (waits_on_other_clock(condition)) return real(condition, mutex, deadline);
    struct timespec moved = *deadline;
    moved.tv_sec -= offset_seconds();
    return real(condition, mutex, &moved);
}

int pthread_cond_clockwait(pthread_cond_t *restrict condition, pthread_mutex_t *restrict mutex, clockid_t clock, const struct timespec *restrict deadline) {
    static int (*real)(pthread_cond_t *restrict, pthread_mutex_t *restrict, clockid_t, const struct timespec *restrict);
    if (!real) {
        real = (int (*)(pthread_cond_t *restrict, pthread_mutex_t *restrict, clockid_t, const struct timespec *restrict))dlsym(
            RTLD_NEXT, "pthread_cond_clockwait");
    }
    if (!is_wall_clock(clock)) return real(condition, mutex, clock, deadline);
    struct timespec moved = *deadline;
    moved.tv_sec -= offset_seconds();
    return real(condition, mutex, clock, &moved);
}

// A wall-clock deadline as the kernel's clock has it.
static struct timespec unmoved(const struct timespec *deadline) {
    struct timespec moved = *deadline;
    moved.tv_sec -= offset_seconds();
    return moved;
}

int sem_timedwait(sem_t *restrict semaphore, const struct timespec *restrict deadline) {
    static int (*real)(sem_t *restrict, const struct timespec *restrict);
    if (!real) real = (int (*)(sem_t *restrict, const struct timespec *restrict))dlsym(RTLD_NEXT, "sem_timedwait");
    struct timespec moved = unmoved(deadline);
    return real(semaphore, &moved);
}

int sem_clockwait(sem_t *restrict semaphore, clockid_t clock, const struct timespec *restrict deadline) {
    static int (*real)(sem_t *restrict, clockid_t, const struct timespec *restrict);
    if (!real) real = (int (*)(sem_t *restrict, clockid_t, const struct timespec *restrict))dlsym(RTLD_NEXT, "sem_clockwait");
    if (!is_wall_clock(clock)) return real(semaphore, clock, deadline);
    struct timespec moved = unmoved(deadline);
    return real(semaphore, clock, &moved);
}

int pthread_mutex_timedlock(pthread_mutex_t *restrict mutex, const struct timespec *restrict deadline) {
    static int (*real)(pthread_mutex_t *restrict, const struct timespec *restrict);
    if (!real) real = (int (*)(pthread_mutex_t *restrict, const struct timespec *restrict))dlsym(RTLD_NEXT, "pthread_mutex_timedlock");
    struct timespec moved = unmoved(deadline);
    return real(mutex, &moved);
}

int pthread_mutex_clocklock(pthread_mutex_t *restrict mutex, clockid_t clock, const struct timespec *restrict deadline) {
    static int (*real)(pthread_mutex_t *restrict, clockid_t, const struct timespec *restrict);
    if (!real) real = (int (*)(pthread_mutex_t *restrict, clockid_t, const struct timespec *restrict))dlsym(RTLD_NEXT, "pthread_mutex_clocklock");
    if (!is_wall_clock(clock)) return real(mutex, clock, deadline);
    struct timespec moved = unmoved(deadline);
    return real(mutex, clock, &moved);
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remaining) {
    static int (*real)(clockid_t, int, const struct timespec *, struct timespec *);
    if (!real) real = (int (*)(clockid_t, int, const struct timespec *, struct timespec *))dlsym(RTLD_NEXT, "clock_nanosleep");
    if (!(flags & TIMER_ABSTIME) || !is_wall_clock(clock)) return real(clock, flags, request, remaining);
    struct timespec moved = unmoved(request);
    return real(clock, flags, &moved, remaining);
}
