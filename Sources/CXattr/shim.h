// Extended attributes (lgetxattr, lsetxattr), which Swift's Glibc module does not include.
#include <sys/xattr.h>
