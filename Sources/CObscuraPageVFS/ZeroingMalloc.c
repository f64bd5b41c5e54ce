// SQLite's memory, zeroed when SQLite frees it (see include/CObscuraPageVFS.h).
//
// SQLite keeps a vault's plaintext in its own heap: the paged catalog's page cache and
// journal, an export's deserialized image, statement buffers. It frees that memory
// without clearing it, so a catalog row (a passkey's wrap key, the drop key, a name)
// could outlive the lock in freed heap until something reuses it (review PR10 of
// docs/reviews/PASSKEY-CODE-REVIEW-2.md). These methods wrap SQLite's own and clear each
// block as it is freed or moved by a reallocation. They are installed by a constructor,
// before anything in the process can initialise SQLite (sqlite3_config is refused after).
#include "CObscuraPageVFS.h"

#include <sqlite3.h>
#include <string.h>

static sqlite3_mem_methods base;
static int installed = 0;

// A store the compiler may not remove as dead (explicit_bzero is not everywhere).
static void clear(void *p, int n) {
    volatile unsigned char *bytes = (volatile unsigned char *)p;
    for (int i = 0; i < n; i++) bytes[i] = 0;
}

static void *zeroing_malloc(int n) { return base.xMalloc(n); }

static void zeroing_free(void *p) {
    if (p) clear(p, base.xSize(p));
    base.xFree(p);
}

// A new block, the old one's bytes copied and then cleared: the default realloc may move
// the block and free the old one uncleared.
static void *zeroing_realloc(void *p, int n) {
    if (!p) return base.xMalloc(n);
    int old = base.xSize(p);
    void *moved = base.xMalloc(n);
    if (!moved) return NULL;
    memcpy(moved, p, old < n ? old : n);
    zeroing_free(p);
    return moved;
}

static int zeroing_size(void *p) { return base.xSize(p); }
static int zeroing_roundup(int n) { return base.xRoundup(n); }
static int zeroing_init(void *data) { return base.xInit(data); }
static void zeroing_shutdown(void *data) { base.xShutdown(data); }

__attribute__((constructor)) static void obscura_install_zeroing_malloc(void) {
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base) != SQLITE_OK || !base.xMalloc) return;
    sqlite3_mem_methods methods = {
        zeroing_malloc, zeroing_free, zeroing_realloc, zeroing_size, zeroing_roundup,
        zeroing_init, zeroing_shutdown, base.pAppData,
    };
    installed = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) == SQLITE_OK;
}

int obscura_sqlite_zeroes_freed_memory(void) {
    if (!installed) return 0;
    sqlite3_mem_methods current;
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &current) != SQLITE_OK) {
        // Refused once SQLite is initialised: what was installed before stays.
        return installed;
    }
    return current.xFree == zeroing_free;
}
