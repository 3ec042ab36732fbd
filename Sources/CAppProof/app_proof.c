// Why a C file: prctl is variadic (Swift cannot call it), and the secret must sit at one
// fixed address for the life of the process, which a static C array gives plainly.
#include "app_proof.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/random.h>

static uint8_t secret[32];
static int prepared;

int screenward_app_proof_prepare(void) {
    if (prepared) return 0;
    // First non-dumpable, then the secret: a tracer that was attached before cannot
    // have read a secret that did not exist yet (and the daemon refuses a traced process).
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    size_t filled = 0;
    while (filled < sizeof secret) {
        ssize_t got = getrandom(secret + filled, sizeof secret - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        filled += (size_t)got;
    }
    prepared = 1;
    return 0;
}

uint64_t screenward_app_proof_address(void) { return (uint64_t)(uintptr_t)secret; }

uint8_t screenward_app_proof_byte(int index) {
    if (index < 0 || index >= (int)sizeof secret) return 0;
    return secret[index];
}
