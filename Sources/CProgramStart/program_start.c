#include "program_start.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int screenward_standard_streams_open(void) {
    int opened = 0;
    for (int descriptor = 0; descriptor <= 2; descriptor++) {
        if (fcntl(descriptor, F_GETFD) != -1 || errno != EBADF) continue;
        // The lower ones are open by now, so this takes `descriptor` itself.
        int null = open("/dev/null", O_RDWR);
        if (null == -1) return -1;
        if (null != descriptor) {
            int moved = dup2(null, descriptor);
            int saved = errno;
            close(null);
            if (moved == -1) {
                errno = saved;
                return -1;
            }
        }
        opened |= 1 << descriptor;
    }
    return opened;
}

/// The highest descriptor open in this process, or -1 with errno.
static long highest_descriptor(void) {
    DIR *listing = opendir("/proc/self/fd");
    if (!listing) return -1;
    long highest = 2;
    int own = dirfd(listing);
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        char *end;
        long descriptor = strtol(entry->d_name, &end, 10);
        if (*end == '\0' && end != entry->d_name && descriptor != own && descriptor > highest) highest = descriptor;
    }
    closedir(listing);
    return highest;
}

int screenward_inherited_descriptors_fit(void) {
    long highest = highest_descriptor();
    if (highest < 0) return -1;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if ((rlim_t)highest < limit.rlim_cur) return 0;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_max == RLIM_INFINITY || (rlim_t)highest < limit.rlim_max) return 0;
    int closed = 0;
    for (long descriptor = (long)limit.rlim_max; descriptor <= highest; descriptor++) {
        if (close((int)descriptor) == 0) closed++;
    }
    return closed;
}

long screenward_open_files_limit_raise(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_cur != limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    }
    return limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > (rlim_t)LONG_MAX ? LONG_MAX : (long)limit.rlim_cur;
}
