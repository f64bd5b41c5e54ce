#include "obscura_system.h"

#include <errno.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int obscura_system_set_dumpable(int dumpable) {
#ifdef __linux__
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
#else
    (void)dumpable;
    errno = ENOSYS;
    return -1;
#endif
}

int obscura_system_get_dumpable(void) {
#ifdef __linux__
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int obscura_system_memfd_secret(unsigned int flags) {
#if defined(__linux__) && defined(SYS_memfd_secret)
    return (int)syscall(SYS_memfd_secret, flags);
#elif defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
    // Older kernel headers lack the name; the number is the same on both.
    return (int)syscall(447, flags);
#else
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

int obscura_system_memfd_create(const char *name) {
#if defined(__linux__) && defined(SYS_memfd_create)
    return (int)syscall(SYS_memfd_create, name, 0U);
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

long long obscura_system_memlock_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
    return (long long)limit.rlim_cur;
}
