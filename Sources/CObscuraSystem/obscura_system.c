// F_SETLEASE and F_GETLEASE are GNU extensions of <fcntl.h>.
#ifdef __linux__
#define _GNU_SOURCE
#endif
#include "obscura_system.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#ifdef __linux__
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
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

int obscura_system_take_read_lease(int fd) {
#ifdef __linux__
    return fcntl(fd, F_SETLEASE, F_RDLCK);
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

int obscura_system_read_lease_held(int fd) {
#ifdef __linux__
    int type = fcntl(fd, F_GETLEASE);
    if (type < 0) return -1;
    return type == F_RDLCK ? 1 : 0;
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

int obscura_system_release_lease(int fd) {
#ifdef __linux__
    return fcntl(fd, F_SETLEASE, F_UNLCK);
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

static volatile sig_atomic_t obscura_stop_requested = 0;

static void obscura_mark_stop(int signal_number) {
    (void)signal_number;
    obscura_stop_requested = 1;
}

int obscura_system_watch_signals(void) {
    struct sigaction stop;
    sigemptyset(&stop.sa_mask);
    stop.sa_flags = 0; // no SA_RESTART: a sleep or a blocking read returns EINTR at once
    stop.sa_handler = obscura_mark_stop;
    if (sigaction(SIGINT, &stop, NULL) != 0 || sigaction(SIGTERM, &stop, NULL) != 0) return -1;
    // A parent may have started this process with them blocked (the mask is inherited
    // through exec, and some test runners and shells block them): a stop would then
    // wait, pending, for ever.
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    if (pthread_sigmask(SIG_UNBLOCK, &stops, NULL) != 0) return -1;
#ifdef SIGIO
    struct sigaction ignore;
    sigemptyset(&ignore.sa_mask);
    ignore.sa_flags = 0;
    ignore.sa_handler = SIG_IGN;
    if (sigaction(SIGIO, &ignore, NULL) != 0) return -1;
#endif
    return 0;
}

int obscura_system_stop_requested(void) {
    return obscura_stop_requested ? 1 : 0;
}

int obscura_system_rename_noreplace(int olddirfd, const char *oldname, int newdirfd, const char *newname) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, olddirfd, oldname, newdirfd, newname, 1U /* RENAME_NOREPLACE */);
#else
    (void)olddirfd; (void)oldname; (void)newdirfd; (void)newname;
    errno = ENOSYS;
    return -1;
#endif
}

long long obscura_system_filesystem_type(int fd) {
#ifdef __linux__
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return (long long)info.f_type;
#else
    (void)fd;
    return 0;
#endif
}
