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

/// fcntl(fd, F_SETLEASE, F_RDLCK): a read lease on a file opened for reading, so
/// that a local writer can be told from a finished file (docs/PHONE.md §W2.3).
/// 0 on success; -1 with errno EAGAIN when some process holds the file open for
/// writing, EACCES or EINVAL where no lease can be had. fcntl is variadic and
/// Glibc's module hides F_SETLEASE.
int obscura_system_take_read_lease(int fd);

/// Whether the read lease on fd still stands: 1, or 0 once a writer's open or a
/// truncate has begun to break it (F_GETLEASE then names the lease's target, not
/// F_RDLCK), or -1 with errno.
int obscura_system_read_lease_held(int fd);

/// fcntl(fd, F_SETLEASE, F_UNLCK): gives a lease up at once, so that a writer
/// waiting on its break is not held for lease-break-time. 0, or -1 with errno.
int obscura_system_release_lease(int fd);

/// Sets SIGINT and SIGTERM to mark a stop (read by obscura_system_stop_requested)
/// instead of ending the process, and ignores SIGIO, the signal a lease break
/// sends by default: the watcher reads the break with
/// obscura_system_read_lease_held between chunks instead. 0, or -1 with errno.
int obscura_system_watch_signals(void);

/// 1 once SIGINT or SIGTERM came after obscura_system_watch_signals, else 0.
int obscura_system_stop_requested(void);

/// renameat2(olddirfd, oldname, newdirfd, newname, RENAME_NOREPLACE): 0, or -1
/// with errno (EEXIST when the new name is taken; EINVAL or ENOSYS where the file
/// system or the kernel has no such rename). Swift's Glibc module hides renameat2.
int obscura_system_rename_noreplace(int olddirfd, const char *oldname, int newdirfd, const char *newname);

/// statfs(2)'s f_type of the file system holding fd, or -1 with errno (0 where
/// the system has no such number). Swift's Glibc module has statfs but not its
/// magic numbers' names; the caller compares them (PHONE.md §W2.2).
long long obscura_system_filesystem_type(int fd);

/// The Landlock ABI this kernel offers (landlock_create_ruleset's version query), or 0
/// where it has none: the indexer's parent compares it with what the worker entered.
int obscura_system_landlock_abi(void);

/// posix_spawn of a worker (docs/SEARCH.md §S3.4.1) with everything explicit: `argv`
/// and `envp` as given (nothing of this process's environment), descriptor 0 reading
/// /dev/null, 1 and 2 writing to it, `socket_fd` as descriptor 3 and every other one
/// closed, an empty signal mask and every signal at its default, in a session of its own
/// (no controlling terminal) with / as its working folder. Foundation's Process
/// inherits the environment and the descriptors it does not know about; this does not.
/// 0 with the child's pid in *pid, or an errno value.
int obscura_system_spawn_worker(const char *path, char *const argv[], char *const envp[], int socket_fd, int *pid);

#endif
