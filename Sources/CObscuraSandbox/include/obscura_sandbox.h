// obscura_sandbox.h: the indexer's start sequence, its seccomp filter and Landlock
// (docs/SEARCH.md §S3.4.1, §S3.4.2), in C because each step is a system call Swift
// cannot make (prctl, syscall and libseccomp's rule calls are variadic) and because the
// order of the steps is the point. Only `obscura-indexer` links this target; no process
// that holds a vault's keys does.
//
// On systems other than Linux every call reports "not supported" (-1, errno ENOSYS).
#ifndef OBSCURA_SANDBOX_H
#define OBSCURA_SANDBOX_H

#include <stddef.h>

/// The roles of docs/SEARCH.md §S3.4.
enum {
    OBSCURA_SANDBOX_ROLE_INDEX = 1,
    OBSCURA_SANDBOX_ROLE_QUERY = 2,
    OBSCURA_SANDBOX_ROLE_FETCH = 3,
};

/// Runs §S3.4.1's start steps 1-8 for `role`, in their order: the parent-death signal and
/// the parent check against `parent`, descriptors 4 and up closed, not dumpable, no core
/// files, `oom_score_adj` 1000, the role's limits, `SCHED_IDLE` for the index role,
/// no-new-privs, Landlock (best effort: read and execute beneath the system's folders
/// and the `count` folders of `read_paths`), and the seccomp filter.
///
/// Returns 0 when every step but Landlock took effect, else the number of the step that
/// failed (the caller exits). `*landlock_abi` is set to the Landlock ABI enforced, or to
/// 0 when the kernel has none or refused it.
int obscura_sandbox_enter(int role, long parent, const char *const *read_paths, int count, int *landlock_abi);

/// Writes the process's hardening state as `name=value` lines into `out` (at most
/// `capacity` bytes, NUL-terminated): open descriptors, the names of the environment it
/// was started with, dumpable,
/// no-new-privs, seccomp mode, Landlock ABI, scheduling class, `oom_score_adj`, limits,
/// pid and peak memory. No path, no value of the environment. Returns the length.
size_t obscura_sandbox_diag(int landlock_abi, char *out, size_t capacity);

/// The probes of §S3.4.2's tests: each makes one call the filter or Landlock governs and
/// returns 0 when it succeeded or the errno it failed with. Those the filter answers by
/// killing the process do not return. `path` is the file the open, unlink and read probes
/// use. Compiled into debug builds of the indexer only.
enum {
    OBSCURA_PROBE_IO_URING = 1,   // io_uring_setup: ENOSYS
    OBSCURA_PROBE_OPENAT2 = 2,    // openat2: ENOSYS
    OBSCURA_PROBE_CLONE3 = 3,     // clone3: ENOSYS
    OBSCURA_PROBE_OPEN_WRITE = 4, // openat(path, O_WRONLY|O_CREAT): EPERM
    OBSCURA_PROBE_UNLINK = 5,     // unlink(path): EPERM
    OBSCURA_PROBE_FORK = 6,       // fork: EPERM
    OBSCURA_PROBE_KILL_ALL = 7,   // kill(-1, 0): EPERM
    OBSCURA_PROBE_KILL_PARENT = 8, // kill(getppid(), 0): EPERM
    OBSCURA_PROBE_KILL_SELF = 9,  // kill(getpid(), 0): allowed
    OBSCURA_PROBE_DUMPABLE = 10,  // prctl(PR_SET_DUMPABLE, 1): EPERM
    OBSCURA_PROBE_READ = 11,      // open(path, O_RDONLY): EACCES from Landlock outside its folders
    OBSCURA_PROBE_SOCKET = 12,    // socket: the process is killed (SIGSYS)
    OBSCURA_PROBE_EXECVE = 13,    // execve: killed
    OBSCURA_PROBE_X32 = 14,       // an x32 system call: killed (x86-64 only)
    OBSCURA_PROBE_PTRACE = 15,    // ptrace: killed
    OBSCURA_PROBE_PRCTL_HIGH = 16, // prctl(PR_SET_DUMPABLE | 1 << 32, 1): EPERM (review I-R1)
    OBSCURA_PROBE_SETOWN = 17,    // fcntl(F_SETOWN, parent) on a pipe: EPERM (I-R2)
    OBSCURA_PROBE_FCHMODAT2 = 18, // fchmodat2(path, 0644): EPERM (I-R3)
    OBSCURA_PROBE_SHMGET = 19,    // shmget: killed (I-R4)
    OBSCURA_PROBE_PRLIMIT_PARENT = 20, // prlimit of the parent, read only: EPERM (I-R7)
    OBSCURA_PROBE_SCHED_PARENT = 21, // sched_setscheduler(parent, SCHED_OTHER): EPERM (I-R7)
    OBSCURA_PROBE_OPEN_TRUNC = 22, // openat(path, O_RDONLY | O_TRUNC): EPERM
    OBSCURA_PROBE_OPEN_RDWR = 23, // openat(path, O_RDWR): EPERM
    OBSCURA_PROBE_TGKILL_PARENT = 24, // tgkill(parent, parent, 0): EPERM
    OBSCURA_PROBE_TIOCSTI = 25,   // ioctl(0, TIOCSTI): EPERM (I-R8)
    OBSCURA_PROBE_NEW_CALL = 26,  // cachestat (451), newer than the list: ENOSYS
};
int obscura_sandbox_probe(int probe, const char *path);

#endif
