// F_SETLEASE and F_GETLEASE are GNU extensions of <fcntl.h>.
#ifdef __linux__
#define _GNU_SOURCE
#endif
#include "obscura_system.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <unistd.h>
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

int obscura_system_landlock_abi(void) {
#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
    return abi > 0 ? (int)abi : 0;
#else
    return 0;
#endif
}

int obscura_system_spawn_worker(const char *path, char *const argv[], char *const envp[], int socket_fd, int *pid) {
    // The socket must not sit where the file actions open /dev/null or place it.
    int source = socket_fd >= 4 ? socket_fd : fcntl(socket_fd, F_DUPFD_CLOEXEC, 4);
    if (source < 0) return errno;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) goto done;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) { posix_spawn_file_actions_destroy(&actions); goto done; }
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    // dup2 onto 3 clears close-on-exec on the copy; the original stays close-on-exec.
    if ((result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) == 0
        && (result = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, 1, 2)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, source, 3)) == 0
#ifdef __linux__
        && (result = posix_spawn_file_actions_addclosefrom_np(&actions, 4)) == 0
        && (result = posix_spawn_file_actions_addchdir_np(&actions, "/")) == 0
#endif
        && (result = posix_spawnattr_setsigmask(&attributes, &empty)) == 0
        && (result = posix_spawnattr_setsigdefault(&attributes, &all)) == 0
        && (result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
#ifdef __linux__
                                                          | POSIX_SPAWN_SETSID
#endif
                                                          )) == 0) {
        pid_t child = 0;
        result = posix_spawn(&child, path, &actions, &attributes, argv, envp);
        if (result == 0) *pid = (int)child;
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
done:
    if (source != socket_fd) close(source);
    return result;
}
