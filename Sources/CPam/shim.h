// Linux-PAM's application interface (libpam0g-dev), for SystemAccounts' password checks.
#include <security/pam_appl.h>
