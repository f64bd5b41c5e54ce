// The "obscura-pages" VFS (see include/CObscuraPageVFS.h for why it exists).
#include "CObscuraPageVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

// The file SQLite allocates for each open (szOsFile bytes): SQLite's base, then the
// backend's context. Only main databases are ever opened, so every file has a context.
typedef struct PageFile {
    sqlite3_file base;
    void *context;
} PageFile;

static obscura_page_vfs_callbacks backend;
static pthread_mutex_t registration = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long refused_opens = 0;

static int map_status(int status, int failure) {
    switch (status) {
    case OBSCURA_PAGE_OK: return SQLITE_OK;
    case OBSCURA_PAGE_SHORT_READ: return SQLITE_IOERR_SHORT_READ;
    default: return failure;
    }
}

// MARK: - I/O methods

static int page_close(sqlite3_file *file) {
    PageFile *page = (PageFile *)file;
    if (page->context != NULL) {
        backend.close(page->context);
        page->context = NULL;
    }
    return SQLITE_OK;
}

static int page_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    PageFile *page = (PageFile *)file;
    // SQLite requires the unread tail of a short read to be zero; the backend fills it,
    // and this makes sure even a failing backend leaves no stale bytes behind.
    int status = backend.read(page->context, buffer, amount, offset);
    if (status == OBSCURA_PAGE_ERROR) memset(buffer, 0, (size_t)amount);
    return map_status(status, SQLITE_IOERR_READ);
}

static int page_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    PageFile *page = (PageFile *)file;
    return map_status(backend.write(page->context, buffer, amount, offset), SQLITE_IOERR_WRITE);
}

static int page_truncate(sqlite3_file *file, sqlite3_int64 size) {
    PageFile *page = (PageFile *)file;
    return map_status(backend.truncate(page->context, size), SQLITE_IOERR_TRUNCATE);
}

static int page_sync(sqlite3_file *file, int flags) {
    (void)flags;
    PageFile *page = (PageFile *)file;
    return map_status(backend.sync(page->context), SQLITE_IOERR_FSYNC);
}

static int page_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    PageFile *page = (PageFile *)file;
    long long value = 0;
    int rc = map_status(backend.file_size(page->context, &value), SQLITE_IOERR_FSTAT);
    *size = value;
    return rc;
}

// Locks are no-ops: the connection runs in exclusive locking mode and the vault
// directory's own lock serialises every process that could open the slot.
static int page_lock(sqlite3_file *file, int level) { (void)file; (void)level; return SQLITE_OK; }
static int page_unlock(sqlite3_file *file, int level) { (void)file; (void)level; return SQLITE_OK; }

static int page_check_reserved_lock(sqlite3_file *file, int *reserved) {
    (void)file;
    *reserved = 0;
    return SQLITE_OK;
}

static int page_file_control(sqlite3_file *file, int op, void *arg) {
    (void)file;
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        // Version 1 I/O methods have no xFetch: pages are never mapped, whatever size is
        // asked for, so "PRAGMA mmap_size" reads back 0.
        *(sqlite3_int64 *)arg = 0;
        return SQLITE_OK;
    }
    return SQLITE_NOTFOUND;
}

static int page_sector_size(sqlite3_file *file) { (void)file; return 4096; }

static int page_device_characteristics(sqlite3_file *file) {
    (void)file;
    // A page write is all or nothing (it is only staged until the sync's one commit),
    // and nothing outside a written page ever changes.
    return SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static const sqlite3_io_methods page_methods = {
    1,
    page_close,
    page_read,
    page_write,
    page_truncate,
    page_sync,
    page_file_size,
    page_lock,
    page_unlock,
    page_check_reserved_lock,
    page_file_control,
    page_sector_size,
    page_device_characteristics,
    // Version 1: no shared memory (no WAL) and no memory mapping.
    NULL, NULL, NULL, NULL, NULL, NULL,
};

// MARK: - VFS methods

static int vfs_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    PageFile *page = (PageFile *)file;
    page->base.pMethods = NULL; // SQLite calls no xClose on a file whose open failed.
    page->context = NULL;
    if (name == NULL || (flags & SQLITE_OPEN_MAIN_DB) == 0) {
        __atomic_fetch_add(&refused_opens, 1, __ATOMIC_RELAXED);
        return SQLITE_CANTOPEN;
    }
    void *context = backend.open(name);
    if (context == NULL) {
        __atomic_fetch_add(&refused_opens, 1, __ATOMIC_RELAXED);
        return SQLITE_CANTOPEN;
    }
    page->context = context;
    page->base.pMethods = &page_methods;
    if (out_flags != NULL) *out_flags = flags & ~SQLITE_OPEN_DELETEONCLOSE;
    return SQLITE_OK;
}

// Nothing but main databases exists here, so there is never anything to delete.
static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs; (void)name; (void)sync_dir;
    return SQLITE_OK;
}

// "Does not exist" for every name: SQLite asks about journals and WAL files (a hot
// journal would be replayed), and there are none by construction.
static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs; (void)name; (void)flags;
    *result = 0;
    return SQLITE_OK;
}

// Names are keys of the Swift registry, not paths: they are passed through unchanged.
static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    size_t length = strlen(name);
    if (size <= 0 || length >= (size_t)size) return SQLITE_CANTOPEN;
    memcpy(out, name, length + 1);
    return SQLITE_OK;
}

static int vfs_randomness(sqlite3_vfs *vfs, int count, char *out) {
    (void)vfs;
    sqlite3_vfs *system = sqlite3_vfs_find(NULL);
    return system->xRandomness(system, count, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    sqlite3_vfs *system = sqlite3_vfs_find(NULL);
    return system->xSleep(system, microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    sqlite3_vfs *system = sqlite3_vfs_find(NULL);
    return system->xCurrentTime(system, now);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    if (size > 0) out[0] = '\0';
    return 0;
}

// Extensions are never loaded through this VFS; these answer "not found" rather than
// leaving NULL pointers that SQLite would call.
static void *vfs_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; (void)name; return NULL; }

static void vfs_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    if (size > 0) {
        strncpy(out, "extensions are not loaded through " OBSCURA_PAGE_VFS_NAME, (size_t)size - 1);
        out[size - 1] = '\0';
    }
}

static void (*vfs_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs; (void)handle; (void)symbol;
    return NULL;
}

static void vfs_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; (void)handle; }

static sqlite3_vfs page_vfs = {
    1,                       // iVersion
    sizeof(PageFile),        // szOsFile
    512,                     // mxPathname
    NULL,                    // pNext
    OBSCURA_PAGE_VFS_NAME,   // zName
    NULL,                    // pAppData
    vfs_open,
    vfs_delete,
    vfs_access,
    vfs_full_pathname,
    vfs_dl_open,
    vfs_dl_error,
    vfs_dl_sym,
    vfs_dl_close,
    vfs_randomness,
    vfs_sleep,
    vfs_current_time,
    vfs_get_last_error,
    // Version 1: the fields of later versions stay empty.
    NULL, NULL, NULL, NULL,
};

int obscura_page_vfs_register(obscura_page_vfs_callbacks callbacks) {
    pthread_mutex_lock(&registration);
    int rc = SQLITE_OK;
    if (sqlite3_vfs_find(OBSCURA_PAGE_VFS_NAME) == NULL) {
        backend = callbacks;
        rc = sqlite3_vfs_register(&page_vfs, 0);
    }
    pthread_mutex_unlock(&registration);
    return rc;
}

unsigned long long obscura_page_vfs_refused_opens(void) {
    return __atomic_load_n(&refused_opens, __ATOMIC_RELAXED);
}

int obscura_page_vfs_set_reserve(void *db, int reserve) {
    int value = reserve;
    if (sqlite3_file_control((sqlite3 *)db, "main", SQLITE_FCNTL_RESERVE_BYTES, &value) != SQLITE_OK) return -1;
    // The call answers the reserve requested before; ask again for the one now set.
    value = -1;
    if (sqlite3_file_control((sqlite3 *)db, "main", SQLITE_FCNTL_RESERVE_BYTES, &value) != SQLITE_OK) return -1;
    return value;
}
