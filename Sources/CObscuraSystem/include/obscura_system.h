// obscura_system.h: plain wrappers for the Linux system calls Swift cannot reach.
//
// prctl(2) and syscall(2) are variadic, and Swift does not import variadic C
// functions; memfd_secret(2) has no glibc wrapper at all. Each function below
// exists for that reason only, and does nothing else. Elsewhere they report
// "not supported" (-1 with errno ENOSYS).
#ifndef OBSCURA_SYSTEM_H
#define OBSCURA_SYSTEM_H

/// prctl(PR_SET_DUMPABLE, dumpable): 0 on success, -1 with errno.
int obscura_system_set_dumpable(int dumpable);

/// prctl(PR_GET_DUMPABLE): 0 or 1, or -1 with errno.
int obscura_system_get_dumpable(void);

/// memfd_secret(flags): a descriptor, or -1 with errno (ENOSYS where the kernel
/// has no such call or it is not enabled).
int obscura_system_memfd_secret(unsigned int flags);

/// memfd_create(name, 0) through syscall(2): an anonymous in-memory file, or -1
/// with errno. Through syscall because Swift's Glibc module does not declare
/// memfd_create. No close-on-exec flag: the caller hands the descriptor to a child
/// (`obscura note edit` to $EDITOR) and sets the flag on those it keeps.
int obscura_system_memfd_create(const char *name);

/// The soft RLIMIT_MEMLOCK in bytes, or -1 when unlimited (or not known).
/// Swift's Glibc module does not export RLIMIT_MEMLOCK.
long long obscura_system_memlock_limit(void);

#endif
