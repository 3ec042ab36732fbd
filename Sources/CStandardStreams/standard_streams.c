#include "standard_streams.h"

#include <errno.h>
#include <fcntl.h>
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
