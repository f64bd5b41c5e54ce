// SQLite VFS "obscura-pages" for the paged catalog (docs/FORMAT.md §9).
//
// Why a C shim: a VFS is a table of C function pointers that SQLite calls with its own
// structs; this file keeps every SQLite type on the C side, so Swift sees only plain
// integers, pointers and the callbacks below (and no second copy of sqlite3.h beside
// GRDB's). The VFS wraps nothing on disk: it opens the main database only, handing
// every read, write, truncate and sync to the Swift backend the open callback names,
// and refuses every other file (journals, WAL, temporary files), so nothing SQLite
// writes can reach a disk by another way.
#ifndef COBSCURA_PAGE_VFS_H
#define COBSCURA_PAGE_VFS_H

#ifdef __cplusplus
extern "C" {
#endif

/// The VFS name, to put in a URI filename: `file:<name>?vfs=obscura-pages`.
#define OBSCURA_PAGE_VFS_NAME "obscura-pages"

/// What a backend callback reports; the VFS turns it into SQLite's result code
/// (SQLITE_IOERR_READ for a failed read, SQLITE_IOERR_FSYNC for a failed sync, ...).
enum {
    /// The call succeeded.
    OBSCURA_PAGE_OK = 0,
    /// A read went past the end: the backend zero-filled the rest of the buffer.
    OBSCURA_PAGE_SHORT_READ = 1,
    /// The call failed; the backend keeps the reason for its owner to report.
    OBSCURA_PAGE_ERROR = 2,
};

/// The Swift backend, as plain C function pointers. `context` is what `open` returned.
typedef struct obscura_page_vfs_callbacks {
    /// Resolves a main-database name to a retained backend context; NULL refuses it.
    void *_Nullable (*_Nonnull open)(const char *_Nonnull name);
    /// Reads `amount` bytes at `offset` into `buffer`.
    int (*_Nonnull read)(void *_Nonnull context, void *_Nonnull buffer, int amount, long long offset);
    /// Writes `amount` bytes at `offset` from `buffer`.
    int (*_Nonnull write)(void *_Nonnull context, const void *_Nonnull buffer, int amount, long long offset);
    /// Sets the file's size in bytes.
    int (*_Nonnull truncate)(void *_Nonnull context, long long size);
    /// Makes every write so far durable (one store commit).
    int (*_Nonnull sync)(void *_Nonnull context);
    /// Reports the file's size in bytes.
    int (*_Nonnull file_size)(void *_Nonnull context, long long *_Nonnull size);
    /// Releases the context `open` returned; staged writes are dropped.
    void (*_Nonnull close)(void *_Nonnull context);
} obscura_page_vfs_callbacks;

/// Registers the VFS (not as the default) with `callbacks`. Thread-safe and idempotent:
/// the first call's callbacks stay; later calls return SQLITE_OK and change nothing.
/// Returns an SQLite result code.
int obscura_page_vfs_register(obscura_page_vfs_callbacks callbacks);

/// How many opens the VFS has refused since the process started (journals, temporary
/// files, unknown names): tests check that SQLite never needed another file.
unsigned long long obscura_page_vfs_refused_opens(void);

/// Sets the reserved bytes per page of the connection `db` (an `sqlite3 *`)'s main
/// database with SQLITE_FCNTL_RESERVE_BYTES; effective only before the first page
/// exists. Returns the reserve now requested, or -1 if SQLite refused.
int obscura_page_vfs_set_reserve(void *_Nonnull db, int reserve);

/// Whether SQLite's memory methods in this process are the zeroing ones of
/// ZeroingMalloc.c, installed at load: every block SQLite frees (page cache, journals,
/// deserialized images) is cleared first. 1 or 0.
int obscura_sqlite_zeroes_freed_memory(void);

#ifdef __cplusplus
}
#endif

#endif
