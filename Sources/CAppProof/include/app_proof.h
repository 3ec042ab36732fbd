#ifndef SCREENWARD_APP_PROOF_H
#define SCREENWARD_APP_PROOF_H

#include <stdint.h>

/// Readies this process to talk to the system daemon as an installed app of a managed
/// account: makes it non-dumpable (no process of the child's may trace it or read its
/// memory from now on) and fills a 32-byte secret, in this process's memory only, that the
/// daemon reads back through /proc/PID/mem. Idempotent; returns 0, or -1 with errno.
int screenward_app_proof_prepare(void);

/// Where the secret lives in this process (valid once prepared).
uint64_t screenward_app_proof_address(void);

/// The secret's byte at `index` (0..<32).
uint8_t screenward_app_proof_byte(int index);

#endif
