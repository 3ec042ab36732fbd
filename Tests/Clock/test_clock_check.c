// Proves the test clock (test_clock.c) keeps every wait for a wall-clock instant: under the
// preloaded clock, each kind of wait until "now on the wall clock + 300 ms" must take about
// 300 ms on the monotonic clock, whatever the offset (a deadline left moved ends at once, or
// never). scripts/test-clocks.sh runs it with the clock a year back and a year ahead before
// any test. Exits 1 and names each wait that did not keep its deadline.
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static const long wait_ms = 300;

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static struct timespec wall_deadline(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += wait_ms * 1000000;
    deadline.tv_sec += deadline.tv_nsec / 1000000000;
    deadline.tv_nsec %= 1000000000;
    return deadline;
}

static int failures;

static void check(const char *name, int64_t started) {
    int64_t took = monotonic_ms() - started;
    int kept = took >= wait_ms - 20 && took <= wait_ms + 2000;
    printf("%s: %s (%lld ms)\n", name, kept ? "kept" : "NOT KEPT", (long long)took);
    if (!kept) failures++;
}

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

static void *try_held_mutex(void *unused) {
    (void)unused;
    struct timespec deadline = wall_deadline();
    int64_t started = monotonic_ms();
    if (pthread_mutex_timedlock(&held, &deadline) == 0) failures++;
    check("pthread_mutex_timedlock", started);
    deadline = wall_deadline();
    started = monotonic_ms();
    if (pthread_mutex_clocklock(&held, CLOCK_REALTIME, &deadline) == 0) failures++;
    check("pthread_mutex_clocklock", started);
    return NULL;
}

int main(void) {
    int64_t started;

    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t condition = PTHREAD_COND_INITIALIZER;
    pthread_mutex_lock(&mutex);
    struct timespec deadline = wall_deadline();
    started = monotonic_ms();
    while (pthread_cond_timedwait(&condition, &mutex, &deadline) == 0) {}
    check("pthread_cond_timedwait", started);
    deadline = wall_deadline();
    started = monotonic_ms();
    while (pthread_cond_clockwait(&condition, &mutex, CLOCK_REALTIME, &deadline) == 0) {}
    check("pthread_cond_clockwait", started);
    pthread_mutex_unlock(&mutex);

    sem_t semaphore;
    sem_init(&semaphore, 0, 0);
    deadline = wall_deadline();
    started = monotonic_ms();
    while (sem_timedwait(&semaphore, &deadline) == 0) {}
    check("sem_timedwait", started);
    deadline = wall_deadline();
    started = monotonic_ms();
    while (sem_clockwait(&semaphore, CLOCK_REALTIME, &deadline) == 0) {}
    check("sem_clockwait", started);

    // The timed locks wait for a mutex another thread holds: this one.
    pthread_mutex_lock(&held);
    pthread_t trier;
    pthread_create(&trier, NULL, try_held_mutex, NULL);
    pthread_join(trier, NULL);
    pthread_mutex_unlock(&held);

    deadline = wall_deadline();
    started = monotonic_ms();
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, NULL) != 0) {}
    check("clock_nanosleep", started);

    int timer = timerfd_create(CLOCK_REALTIME, 0);
    struct itimerspec arm = {.it_value = wall_deadline()};
    started = monotonic_ms();
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &arm, NULL);
    uint64_t expirations;
    if (read(timer, &expirations, sizeof expirations) != sizeof expirations) failures++;
    check("timerfd (absolute, wall clock)", started);

    return failures ? 1 : 0;
}
