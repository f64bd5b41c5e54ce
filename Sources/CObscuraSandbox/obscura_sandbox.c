// The indexer's start sequence, filter and Landlock: docs/SEARCH.md §S3.4.1 and §S3.4.2.
// Each function is in the order the design gives, and says why where the order matters.
#ifdef __linux__
#define _GNU_SOURCE
#endif
#include "obscura_sandbox.h"

#include <errno.h>
#include <string.h>

#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

// Landlock rights newer than the build machine's headers (Linux 6.2 and 6.10).
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

// §S3.4.1 step 5: the address-space limit per role (provisional, docs/SEARCH.md; step 3
// measured the index role's OCR peak, see docs/BENCHMARKS.md), files of size 0 (a write
// that got through an open would raise SIGXFSZ), and few descriptors.
static const rlim_t address_space_limit[] = {0, 4ULL << 30, 2ULL << 30, 512ULL << 20};
static const rlim_t descriptor_limit = 64;

// What every role may read beneath (§S3.4.2): the system's libraries, data (tessdata
// under /usr/share), the loader's cache, fontconfig's configuration and cache, and the parts of
// /proc and /sys that ONNX Runtime, OpenMP and glibc read to count cores and memory.
static const char *const system_read_paths[] = {
    "/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/fonts", "/var/cache/fontconfig",
    "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu", "/sys/fs/cgroup",
};

// The value after `name` in /proc/self/status (kB for memory lines), or -1.
static long long status_field(const char *name) {
    FILE *file = fopen("/proc/self/status", "re");
    if (!file) return -1;
    char line[256];
    long long value = -1;
    size_t length = strlen(name);
    while (fgets(line, sizeof(line), file)) {
        if (strncmp(line, name, length) == 0 && line[length] == ':') {
            value = atoll(line + length + 1);
            break;
        }
    }
    fclose(file);
    return value;
}

// The open descriptors listed in /proc/self/fd, less the listing's own (it exists only
// while listing), at most `capacity` of them, in the kernel's order; -1 without /proc.
static int list_descriptors(int *found, int capacity) {
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return -1;
    int own = dirfd(directory), count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) && count < capacity) {
        if (entry->d_name[0] == '.') continue;
        int fd = atoi(entry->d_name);
        if (fd != own) found[count++] = fd;
    }
    closedir(directory);
    return count;
}

static int close_from_four(void) {
    if (syscall(SYS_close_range, 4U, ~0U, 0) == 0) return 0;
    // Before Linux 5.9: each listed descriptor above 3, one by one.
    int found[1024];
    int count = list_descriptors(found, 1024);
    if (count < 0) return -1;
    for (int i = 0; i < count; i++) if (found[i] >= 4) close(found[i]);
    return 0;
}

static int set_limit(int resource, rlim_t value) {
    struct rlimit limit = {value, value};
    return setrlimit(resource, &limit);
}

static int write_oom_score(void) {
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t written = write(fd, "1000", 4);
    close(fd);
    return written == 4 ? 0 : -1;
}

static int landlock_allow(int ruleset, const char *path, __u64 handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return 0; // a folder this machine lacks needs no rule
    struct stat status;
    int result = 0;
    if (fstat(fd, &status) == 0) {
        __u64 allowed = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE;
        if (S_ISDIR(status.st_mode)) allowed |= LANDLOCK_ACCESS_FS_READ_DIR;
        struct landlock_path_beneath_attr rule = {.allowed_access = allowed & handled, .parent_fd = fd};
        result = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    }
    close(fd);
    return result;
}

// The ruleset attribute as of Landlock ABI 6 (Linux 6.12): the build machine's header
// knows only the first field. The kernel takes the size given, so older kernels get the
// prefix they know.
struct obscura_landlock_ruleset_attr {
    __u64 handled_access_fs;
    __u64 handled_access_net;
    __u64 scoped;
};
#define OBSCURA_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define OBSCURA_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define OBSCURA_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define OBSCURA_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

// §S3.4.2: read and execute beneath the listed folders, nothing else, for every file right
// this kernel's ABI knows; from ABI 4 no TCP either, from ABI 6 no signal to a process
// outside the worker and no abstract socket. Best effort only in one sense: a kernel
// without Landlock is told by the ABI query (0 returned, the parent decides); once a
// ruleset exists, any failure is the start's failure (-1), never a quiet run without it.
static int enter_landlock(const char *const *read_paths, int count) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return 0;
    __u64 handled = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) handled |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) handled |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct obscura_landlock_ruleset_attr attributes = {.handled_access_fs = handled};
    size_t size = sizeof(__u64);
    if (abi >= 4) {
        attributes.handled_access_net = OBSCURA_LANDLOCK_ACCESS_NET_BIND_TCP | OBSCURA_LANDLOCK_ACCESS_NET_CONNECT_TCP;
        size = 2 * sizeof(__u64);
    }
    if (abi >= 6) {
        attributes.scoped = OBSCURA_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | OBSCURA_LANDLOCK_SCOPE_SIGNAL;
        size = 3 * sizeof(__u64);
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) return -1;
    int failed = 0;
    for (size_t i = 0; i < sizeof(system_read_paths) / sizeof(*system_read_paths); i++) {
        failed |= landlock_allow(ruleset, system_read_paths[i], handled) != 0;
    }
    for (int i = 0; i < count; i++) failed |= landlock_allow(ruleset, read_paths[i], handled) != 0;
    if (!failed) failed = syscall(SYS_landlock_restrict_self, ruleset, 0) != 0;
    close(ruleset);
    return failed ? -1 : (int)abi;
}

// Adds a rule unless the call does not exist on this architecture (open, fork and the
// like on AArch64), which libseccomp marks with a negative number.
#define RULE(action, call, ...) \
    do { \
        if (__SNR_##call >= 0 && seccomp_rule_add(filter, action, __SNR_##call, __VA_ARGS__) != 0) goto failed; \
    } while (0)

// A rule on a call by its number, for calls newer than libseccomp 2.5.4's table. Since
// Linux 5.1 (424) new calls have one number on every architecture.
#define RAW(action, number, ...) \
    do { \
        if (seccomp_rule_add(filter, action, number, __VA_ARGS__) != 0) goto failed; \
    } while (0)

// Calls after the last one this list was written against (450, set_mempolicy_home_node)
// get ENOSYS, so a call added to the kernel later is refused until someone reads it;
// glibc falls back on ENOSYS. The few among them that change files get EPERM.
#define LAST_REVIEWED_CALL 450
#define HIGHEST_CALL_REFUSED 599

// The kernel reads these arguments as a C int or unsigned int: a comparison must ignore
// the upper 32 bits, or a value with them set passes an equality that denies (review I-R1).
#define LOW32(index, value) SCMP_CMP(index, SCMP_CMP_MASKED_EQ, 0xFFFFFFFFULL, (scmp_datum_t)(value))

// §S3.4.2's table: a deny list over an allowing default, since the libraries' needs
// differ between releases and kernels, and a missed entry would kill the worker.
static int enter_seccomp(void) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) return -1;
    // A call of a foreign architecture (i386's int 0x80 on x86-64; x32, which libseccomp
    // rejects in a native x86-64 filter) kills the process. TSYNC: every thread gets the
    // filter (the start checks there is only one; review I-R11). A binary tree, for the
    // length of the list.
    if (seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0
        || seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1) != 0
        || seccomp_attr_set(filter, SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0) goto failed;
    const uint32_t nosys = SCMP_ACT_ERRNO(ENOSYS), eperm = SCMP_ACT_ERRNO(EPERM), kill = SCMP_ACT_KILL_PROCESS;

    // Bypasses: calls whose arguments seccomp cannot read. glibc falls back from clone3.
    RULE(nosys, io_uring_setup, 0);
    RULE(nosys, io_uring_enter, 0);
    RULE(nosys, io_uring_register, 0);
    RULE(nosys, openat2, 0);
    RULE(nosys, clone3, 0);
    // Newer than this list: refused, the file-changing ones with EPERM (review I-R3:
    // fchmodat2 452, setxattrat 463, removexattrat 466, file_setattr 469).
    for (int number = LAST_REVIEWED_CALL + 1; number <= HIGHEST_CALL_REFUSED; number++) {
        int changes = number == 452 || number == 463 || number == 466 || number == 469;
        RAW(changes ? eperm : nosys, number, 0);
    }

    // Opens that could write. The flags are an int: only their own bits are compared.
    const int writing[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE & ~O_DIRECTORY};
    for (size_t i = 0; i < sizeof(writing) / sizeof(*writing); i++) {
        scmp_datum_t flag = (scmp_datum_t)writing[i];
        RULE(eperm, open, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag));
        RULE(eperm, openat, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag));
    }
    RULE(eperm, creat, 0);

    // File changes.
    RULE(eperm, rename, 0); RULE(eperm, renameat, 0); RULE(eperm, renameat2, 0);
    RULE(eperm, link, 0); RULE(eperm, linkat, 0); RULE(eperm, symlink, 0); RULE(eperm, symlinkat, 0);
    RULE(eperm, unlink, 0); RULE(eperm, unlinkat, 0); RULE(eperm, mkdir, 0); RULE(eperm, mkdirat, 0);
    RULE(eperm, mknod, 0); RULE(eperm, mknodat, 0); RULE(eperm, rmdir, 0);
    RULE(eperm, truncate, 0); RULE(eperm, ftruncate, 0); RULE(eperm, fallocate, 0);
    RULE(eperm, chmod, 0); RULE(eperm, fchmod, 0); RULE(eperm, fchmodat, 0);
    RULE(eperm, chown, 0); RULE(eperm, fchown, 0); RULE(eperm, fchownat, 0); RULE(eperm, lchown, 0);
    RULE(eperm, utime, 0); RULE(eperm, utimes, 0); RULE(eperm, utimensat, 0); RULE(eperm, futimesat, 0);
    RULE(eperm, setxattr, 0); RULE(eperm, lsetxattr, 0); RULE(eperm, fsetxattr, 0);
    RULE(eperm, removexattr, 0); RULE(eperm, lremovexattr, 0); RULE(eperm, fremovexattr, 0);
    RULE(eperm, open_by_handle_at, 0); RULE(eperm, name_to_handle_at, 0);

    // Processes: threads only, since a forked child would not carry the death signal.
    RULE(eperm, fork, 0);
    RULE(eperm, vfork, 0);
    RULE(eperm, clone, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));

    // Signals to anything but this process (kill(-1, …) and kill(0, …) included). A pid
    // with its upper bits set is not this process either, and is refused.
    scmp_datum_t self = (scmp_datum_t)getpid();
    RULE(eperm, kill, 1, SCMP_A0(SCMP_CMP_NE, self));
    RULE(eperm, tkill, 1, SCMP_A0(SCMP_CMP_NE, self));
    RULE(eperm, tgkill, 1, SCMP_A0(SCMP_CMP_NE, self));
    RULE(eperm, rt_sigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, self));
    RULE(eperm, rt_tgsigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, self));
    RULE(eperm, pidfd_send_signal, 0);
    // … and the kernel's own signal delivery on a descriptor's events, which sends to any
    // owner set (review I-R2): no owner, no chosen signal, no O_ASYNC through ioctl.
    RULE(eperm, fcntl, 1, LOW32(1, F_SETOWN));
    RULE(eperm, fcntl, 1, LOW32(1, F_SETOWN_EX));
    RULE(eperm, fcntl, 1, LOW32(1, F_SETSIG));
    // ioctl: the owner and async calls above, typing into a terminal, line disciplines,
    // and inode flags (review I-R8).
    const unsigned long ioctls[] = {FIOSETOWN, SIOCSPGRP, FIOASYNC, TIOCSTI, TIOCLINUX, TIOCSETD,
                                    FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR};
    for (size_t i = 0; i < sizeof(ioctls) / sizeof(*ioctls); i++) RULE(eperm, ioctl, 1, LOW32(1, ioctls[i]));

    // Another process's limits, scheduling and I/O priority (review I-R7): only this one's,
    // named as 0 as glibc does.
    RULE(eperm, prlimit64, 1, SCMP_A0(SCMP_CMP_NE, 0));
    RULE(eperm, sched_setscheduler, 1, SCMP_A0(SCMP_CMP_NE, 0));
    RULE(eperm, sched_setparam, 1, SCMP_A0(SCMP_CMP_NE, 0));
    RULE(eperm, sched_setattr, 1, SCMP_A0(SCMP_CMP_NE, 0));
    RULE(eperm, sched_setaffinity, 1, SCMP_A0(SCMP_CMP_NE, 0));
    RULE(eperm, setpriority, 1, SCMP_A1(SCMP_CMP_NE, 0));
    RULE(eperm, ioprio_set, 1, SCMP_A1(SCMP_CMP_NE, 0));
    // personality only to read it.
    RULE(eperm, personality, 1, SCMP_A0(SCMP_CMP_NE, 0xFFFFFFFFULL));

    // prctl settings that would undo the start sequence; the option is an int.
    const int settings[] = {PR_SET_DUMPABLE, PR_SET_PDEATHSIG, PR_SET_PTRACER, PR_SET_SECCOMP, PR_SET_MM};
    for (size_t i = 0; i < sizeof(settings) / sizeof(*settings); i++) {
        RULE(eperm, prctl, 1, LOW32(0, settings[i]));
    }

    // Network and escape: descriptor 3 needs only read, write, sendmsg and recvmsg.
    RULE(kill, socket, 0); RULE(kill, socketpair, 0); RULE(kill, connect, 0); RULE(kill, bind, 0);
    RULE(kill, listen, 0); RULE(kill, accept, 0); RULE(kill, accept4, 0);
    RULE(kill, execve, 0); RULE(kill, execveat, 0); RULE(kill, ptrace, 0);
    RULE(kill, process_vm_readv, 0); RULE(kill, process_vm_writev, 0);
    RULE(kill, pidfd_getfd, 0); RULE(kill, process_madvise, 0); RULE(kill, kcmp, 0);
    RULE(kill, move_pages, 0); RULE(kill, migrate_pages, 0);
    RULE(kill, modify_ldt, 0); RULE(kill, uselib, 0); RULE(kill, lookup_dcookie, 0);
    RULE(kill, bpf, 0); RULE(kill, perf_event_open, 0); RULE(kill, userfaultfd, 0);
    RULE(kill, keyctl, 0); RULE(kill, add_key, 0); RULE(kill, request_key, 0);
    RULE(kill, mount, 0); RULE(kill, umount2, 0); RULE(kill, pivot_root, 0); RULE(kill, chroot, 0);
    RULE(kill, unshare, 0); RULE(kill, setns, 0);
    RULE(kill, init_module, 0); RULE(kill, finit_module, 0); RULE(kill, delete_module, 0);
    RULE(kill, kexec_load, 0); RULE(kill, kexec_file_load, 0);
    RULE(kill, swapon, 0); RULE(kill, swapoff, 0); RULE(kill, reboot, 0);
    // Memory other processes can read after the worker is killed (review I-R4): System V
    // shared memory, message queues and semaphores, POSIX message queues.
    RULE(kill, shmget, 0); RULE(kill, shmat, 0); RULE(kill, shmctl, 0); RULE(kill, shmdt, 0);
    RULE(kill, msgget, 0); RULE(kill, msgsnd, 0); RULE(kill, msgrcv, 0); RULE(kill, msgctl, 0);
    RULE(kill, semget, 0); RULE(kill, semop, 0); RULE(kill, semtimedop, 0); RULE(kill, semctl, 0);
    RULE(kill, mq_open, 0); RULE(kill, mq_timedsend, 0); RULE(kill, mq_timedreceive, 0);
    RULE(kill, mq_notify, 0); RULE(kill, mq_getsetattr, 0); RULE(kill, mq_unlink, 0);

    if (seccomp_load(filter) != 0) goto failed;
    seccomp_release(filter);
    return 0;
failed:
    seccomp_release(filter);
    return -1;
}

// The names of the environment the worker was started with, for `diag`: libvips adds
// its own variables when it starts, later.
static char start_environment[512];

static void note_environment(void) {
    size_t used = 0;
    for (char **variable = environ; variable && *variable; variable++) {
        const char *equals = strchr(*variable, '=');
        size_t name = equals ? (size_t)(equals - *variable) : strlen(*variable);
        if (used + name + 2 >= sizeof(start_environment)) break;
        if (used) start_environment[used++] = ',';
        memcpy(start_environment + used, *variable, name);
        used += name;
    }
    start_environment[used] = 0;
}

int obscura_sandbox_enter(int role, long parent, const char *const *read_paths, int count, int *landlock_abi) {
    *landlock_abi = 0;
    note_environment();
    if (role < OBSCURA_SANDBOX_ROLE_INDEX || role > OBSCURA_SANDBOX_ROLE_FETCH) return 5;
    // 1. The signal first, then the check: a parent that died before the prctl left this
    //    process adopted, and the signal alone would never come.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != (pid_t)parent) return 1;
    // 2. Exactly 0-3 open, whatever the spawn did.
    if (close_from_four() != 0) return 2;
    // 3. No ptrace attach by the same user, no /proc/PID/mem, no core. A tracer that
    //    attached while the libraries loaded, before this, would stay: none may be there.
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || set_limit(RLIMIT_CORE, 0) != 0) return 3;
    if (status_field("TracerPid") != 0) return 3;
    // 4. Under memory pressure the kernel kills the worker, never the server.
    if (write_oom_score() != 0) return 4;
    // 5. Limits.
    if (set_limit(RLIMIT_AS, address_space_limit[role]) != 0 || set_limit(RLIMIT_FSIZE, 0) != 0
        || set_limit(RLIMIT_NOFILE, descriptor_limit) != 0) return 5;
    // 6. The index role yields every core to anything else; set before any thread exists,
    //    so every thread inherits it, as Landlock below, which binds only this thread.
    if (status_field("Threads") != 1) return 6;
    if (role == OBSCURA_SANDBOX_ROLE_INDEX) {
        struct sched_param parameters = {.sched_priority = 0};
        if (sched_setscheduler(0, SCHED_IDLE, &parameters) != 0) return 6;
    }
    // 7. No-new-privs, which Landlock needs without CAP_SYS_ADMIN and seccomp always; then
    //    Landlock, best effort.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 7;
    int abi = enter_landlock(read_paths, count);
    if (abi < 0) return 7;
    *landlock_abi = abi;
    // 8. The filter, last: it forbids the prctl calls above.
    if (enter_seccomp() != 0) return 8;
    return 0;
}

static size_t append(char *out, size_t capacity, size_t used, const char *format, long long value) {
    if (used >= capacity) return used;
    int written = snprintf(out + used, capacity - used, format, value);
    return written < 0 ? used : used + (size_t)written;
}

size_t obscura_sandbox_diag(int landlock_abi, char *out, size_t capacity) {
    if (capacity == 0) return 0;
    out[0] = 0;
    size_t used = append(out, capacity, 0, "pid=%lld\nfds=", (long long)getpid());
    int found[128];
    int count = list_descriptors(found, 128);
    // readdir's order is the kernel's; ascending reads better and compares simply.
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && found[j - 1] > found[j]; j--) { int t = found[j]; found[j] = found[j - 1]; found[j - 1] = t; }
    for (int i = 0; i < count; i++) used = append(out, capacity, used, i == 0 ? "%lld" : ",%lld", found[i]);
    if (used < capacity) used += (size_t)snprintf(out + used, capacity - used, "\nenv=%s", start_environment);
    used = append(out, capacity, used, "\ndumpable=%lld", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    used = append(out, capacity, used, "\nnonewprivs=%lld", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    used = append(out, capacity, used, "\nseccomp=%lld", status_field("Seccomp"));
    used = append(out, capacity, used, "\ntracer=%lld", status_field("TracerPid"));
    used = append(out, capacity, used, "\nlandlock=%lld", landlock_abi);
    int policy = sched_getscheduler(0);
    used = append(out, capacity, used, "\nsched=%lld", policy);
    used = append(out, capacity, used, "\nsched_idle=%lld", policy == SCHED_IDLE);
    long long oom = -1;
    FILE *file = fopen("/proc/self/oom_score_adj", "re");
    if (file) { if (fscanf(file, "%lld", &oom) != 1) oom = -1; fclose(file); }
    used = append(out, capacity, used, "\noom_score_adj=%lld", oom);
    struct rlimit limit;
    const int resources[] = {RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE};
    const char *names[] = {"\nlimit_as=%lld", "\nlimit_fsize=%lld", "\nlimit_nofile=%lld", "\nlimit_core=%lld"};
    for (int i = 0; i < 4; i++) {
        long long value = getrlimit(resources[i], &limit) == 0 ? (limit.rlim_cur == RLIM_INFINITY ? -1 : (long long)limit.rlim_cur) : -2;
        used = append(out, capacity, used, names[i], value);
    }
    used = append(out, capacity, used, "\nvmpeak_kib=%lld", status_field("VmPeak"));
    used = append(out, capacity, used, "\nvmhwm_kib=%lld", status_field("VmHWM"));
    used = append(out, capacity, used, "\nthreads=%lld", status_field("Threads"));
    return used;
}

int obscura_sandbox_probe(int probe, const char *path) {
    long result = 0;
    switch (probe) {
    case OBSCURA_PROBE_IO_URING: result = syscall(SYS_io_uring_setup, 1, NULL); break;
    case OBSCURA_PROBE_OPENAT2: {
        struct open_how how = {.flags = O_RDONLY};
        result = syscall(SYS_openat2, AT_FDCWD, "/usr", &how, sizeof(how));
        break;
    }
    case OBSCURA_PROBE_CLONE3: result = syscall(SYS_clone3, NULL, 0); break;
    case OBSCURA_PROBE_OPEN_WRITE: result = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600); break;
    case OBSCURA_PROBE_UNLINK: result = unlink(path); break;
    case OBSCURA_PROBE_FORK: {
        pid_t child = fork();
        if (child == 0) _exit(0);
        result = child < 0 ? -1 : 0;
        break;
    }
    case OBSCURA_PROBE_KILL_ALL: result = kill(-1, 0); break;
    case OBSCURA_PROBE_KILL_PARENT: result = kill(getppid(), 0); break;
    case OBSCURA_PROBE_KILL_SELF: result = kill(getpid(), 0); break;
    case OBSCURA_PROBE_DUMPABLE: result = prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); break;
    case OBSCURA_PROBE_READ: result = open(path, O_RDONLY | O_CLOEXEC); break;
    case OBSCURA_PROBE_SOCKET: result = socket(AF_UNIX, SOCK_STREAM, 0); break;
    case OBSCURA_PROBE_EXECVE: {
        char *const arguments[] = {"true", NULL};
        result = execve("/bin/true", arguments, environ);
        break;
    }
    case OBSCURA_PROBE_X32:
#if defined(__x86_64__)
        result = syscall(0x40000000 | SYS_getpid);
#else
        errno = ENOSYS;
        result = -1;
#endif
        break;
    case OBSCURA_PROBE_PTRACE: result = ptrace(PTRACE_TRACEME, 0, NULL, NULL); break;
    case OBSCURA_PROBE_PRCTL_HIGH: result = syscall(SYS_prctl, (1UL << 32) | PR_SET_DUMPABLE, 1UL, 0UL, 0UL, 0UL); break;
    case OBSCURA_PROBE_SETOWN: {
        int ends[2];
        if (pipe2(ends, O_CLOEXEC) != 0) return errno;
        result = fcntl(ends[0], F_SETOWN, getppid());
        int saved = errno;
        close(ends[0]);
        close(ends[1]);
        errno = saved;
        break;
    }
    case OBSCURA_PROBE_FCHMODAT2: result = syscall(452, AT_FDCWD, path, 0644, 0); break;
    case OBSCURA_PROBE_SHMGET: result = shmget(IPC_PRIVATE, 4096, 0600); break;
    case OBSCURA_PROBE_PRLIMIT_PARENT: {
        struct rlimit old;
        result = prlimit(getppid(), RLIMIT_FSIZE, NULL, &old);
        break;
    }
    case OBSCURA_PROBE_SCHED_PARENT: {
        struct sched_param parameters = {.sched_priority = 0};
        result = sched_setscheduler(getppid(), SCHED_OTHER, &parameters);
        break;
    }
    case OBSCURA_PROBE_OPEN_TRUNC: result = openat(AT_FDCWD, path, O_RDONLY | O_TRUNC | O_CLOEXEC); break;
    case OBSCURA_PROBE_OPEN_RDWR: result = openat(AT_FDCWD, path, O_RDWR | O_CLOEXEC); break;
    case OBSCURA_PROBE_TGKILL_PARENT: result = syscall(SYS_tgkill, getppid(), getppid(), 0); break;
    case OBSCURA_PROBE_TIOCSTI: {
        char letter = 'x';
        result = ioctl(0, TIOCSTI, &letter);
        break;
    }
    case OBSCURA_PROBE_NEW_CALL: result = syscall(451, -1, NULL, NULL, 0); break;
    default: errno = EINVAL; result = -1;
    }
    if (result >= 0) {
        if (probe == OBSCURA_PROBE_OPEN_WRITE || probe == OBSCURA_PROBE_READ || probe == OBSCURA_PROBE_OPEN_TRUNC
            || probe == OBSCURA_PROBE_OPEN_RDWR) close((int)result);
        return 0;
    }
    return errno;
}

#else

int obscura_sandbox_enter(int role, long parent, const char *const *read_paths, int count, int *landlock_abi) {
    (void)role; (void)parent; (void)read_paths; (void)count;
    *landlock_abi = 0;
    errno = ENOSYS;
    return -1;
}

size_t obscura_sandbox_diag(int landlock_abi, char *out, size_t capacity) {
    (void)landlock_abi;
    if (capacity) out[0] = 0;
    return 0;
}

int obscura_sandbox_probe(int probe, const char *path) {
    (void)probe; (void)path;
    return ENOSYS;
}

#endif
