#include "obscura_secret.h"

#if defined(__linux__)

// For secret-paths.h (searching by D-Bus path, making an item from its path): marked
// unstable, and unchanged since libsecret 0.16.
#define SECRET_API_SUBJECT_TO_CHANGE
#include <libsecret/secret.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// MARK: Deadline

// libsecret's synchronous calls run a private main loop and wait for D-Bus replies; a
// reply may never come (a hung daemon, a bus starting a service that never appears), and
// D-Bus's own 25-second default is too long to hold a command. A watchdog thread cancels
// the call's GCancellable at the deadline, which ends every pending call with
// G_IO_ERROR_CANCELLED.
typedef struct {
    GCancellable *cancellable;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    struct timespec when;
    int done;
    int fired;
    int running;
} deadline;

static void *watch(void *argument) {
    deadline *d = argument;
    int fire = 0;
    pthread_mutex_lock(&d->mutex);
    while (!d->done && !fire) {
        if (pthread_cond_timedwait(&d->cond, &d->mutex, &d->when) == ETIMEDOUT && !d->done) {
            d->fired = 1;
            fire = 1;
        }
    }
    pthread_mutex_unlock(&d->mutex);
    // Outside the lock: cancelling runs GIO's handlers on this thread.
    if (fire) g_cancellable_cancel(d->cancellable);
    return NULL;
}

static void deadline_start(deadline *d, unsigned timeout_ms) {
    memset(d, 0, sizeof(*d));
    d->cancellable = g_cancellable_new();
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&d->cond, &attributes);
    pthread_condattr_destroy(&attributes);
    pthread_mutex_init(&d->mutex, NULL);
    clock_gettime(CLOCK_MONOTONIC, &d->when);
    d->when.tv_sec += timeout_ms / 1000;
    d->when.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (d->when.tv_nsec >= 1000000000L) {
        d->when.tv_sec += 1;
        d->when.tv_nsec -= 1000000000L;
    }
    d->running = pthread_create(&d->thread, NULL, watch, d) == 0;
}

static void deadline_stop(deadline *d) {
    pthread_mutex_lock(&d->mutex);
    d->done = 1;
    pthread_cond_signal(&d->cond);
    pthread_mutex_unlock(&d->mutex);
    if (d->running) pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->cond);
    pthread_mutex_destroy(&d->mutex);
    g_object_unref(d->cancellable);
}

// MARK: Session

// One call's state: its deadline, its connection to the Secret Service, the schema in
// libsecret's form, and where its error message goes.
typedef struct {
    deadline deadline;
    SecretService *service;
    SecretSchema schema;
    const obscura_secret_schema *names;
    char *error;
    size_t error_capacity;
} session;

static int report(session *s, int status, const char *what, GError *error) {
    int late = error != NULL && s->deadline.fired;
    if (late) status = OBSCURA_SECRET_TIMED_OUT;
    if (error != NULL && g_error_matches(error, SECRET_ERROR, SECRET_ERROR_IS_LOCKED)) status = OBSCURA_SECRET_LOCKED;
    if (s->error != NULL && s->error_capacity > 0) {
        if (late) {
            snprintf(s->error, s->error_capacity, "%s: no answer from the Secret Service before the deadline", what);
        } else if (error != NULL) {
            snprintf(s->error, s->error_capacity, "%s: %s", what, error->message);
        } else {
            snprintf(s->error, s->error_capacity, "%s", what);
        }
    }
    g_clear_error(&error);
    return status;
}

// GIO hands a connection's "closed" handling, and the references it holds until then,
// to the global default main context, which no one runs in a process without a GLib
// main loop. Running its pending sources here (unless another thread owns the context,
// and then runs it) lets a connection to a bus that went away be freed, so that the
// next call connects anew; it also keeps those sources from piling up.
static void run_default_context(void) {
    if (!g_main_context_acquire(NULL)) return;
    while (g_main_context_iteration(NULL, FALSE)) {
    }
    g_main_context_release(NULL);
}

static int session_open(session *s, const obscura_secret_schema *schema, unsigned timeout_ms, char *error,
                        size_t error_capacity) {
    memset(s, 0, sizeof(*s));
    s->error = error;
    s->error_capacity = error_capacity;
    if (error != NULL && error_capacity > 0) error[0] = 0;
    s->names = schema;
    deadline_start(&s->deadline, timeout_ms);
    if (schema->count >= G_N_ELEMENTS(s->schema.attributes)) {
        return report(s, OBSCURA_SECRET_FAILED, "too many attributes for a libsecret schema", NULL);
    }
    s->schema.name = schema->name;
    s->schema.flags = SECRET_SCHEMA_NONE;
    for (size_t i = 0; i < schema->count; i++) {
        s->schema.attributes[i].name = schema->attributes[i];
        s->schema.attributes[i].type = SECRET_SCHEMA_ATTRIBUTE_STRING;
    }

    GError *failure = NULL;
    for (;;) {
        run_default_context();
        GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, s->deadline.cancellable, &failure);
        if (bus == NULL) return report(s, OBSCURA_SECRET_NO_SERVICE, "no session bus", failure);
        // GIO's shared session connection raises SIGTERM in this process when the bus
        // goes away; a vault must not be killed in the middle of a write because a
        // desktop session ended. libsecret below uses this same shared connection.
        g_dbus_connection_set_exit_on_close(bus, FALSE);
        int closed = g_dbus_connection_is_closed(bus);
        g_object_unref(bus);
        if (!closed) break;
        // The shared connection to a bus that went away lives on while GIO still holds
        // references from the last calls made on it (see run_default_context); once
        // they are dropped, the next g_bus_get connects anew, to the bus the
        // environment names now.
        if (g_cancellable_is_cancelled(s->deadline.cancellable)) {
            return report(s, OBSCURA_SECRET_NO_SERVICE, "the session bus connection is closed", NULL);
        }
        g_usleep(20000);
    }

    // Not secret_service_get_sync: it caches one service for the whole process, which
    // would outlive the bus it was made on.
    s->service = secret_service_open_sync(SECRET_TYPE_SERVICE, NULL, SECRET_SERVICE_OPEN_SESSION,
                                          s->deadline.cancellable, &failure);
    if (s->service == NULL) return report(s, OBSCURA_SECRET_NO_SERVICE, "no Secret Service", failure);
    return OBSCURA_SECRET_OK;
}

static void session_close(session *s) {
    g_clear_object(&s->service);
    deadline_stop(&s->deadline);
    run_default_context();
}

// A table of the non-NULL entries of `values`, borrowing the strings.
static GHashTable *attribute_table(const obscura_secret_schema *schema, const char *const *values) {
    GHashTable *table = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; values != NULL && i < schema->count; i++) {
        if (values[i] != NULL) g_hash_table_insert(table, (gpointer)schema->attributes[i], (gpointer)values[i]);
    }
    return table;
}

// The default collection ("login" on a GNOME desktop); *collection is NULL when there
// is none. Never creates one: creating asks the user for a password.
static int default_collection(session *s, SecretCollection **collection) {
    GError *failure = NULL;
    *collection = secret_collection_for_alias_sync(s->service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE,
                                                   s->deadline.cancellable, &failure);
    if (failure != NULL) return report(s, OBSCURA_SECRET_FAILED, "finding the default collection", failure);
    return OBSCURA_SECRET_OK;
}

// Tests only: run by find_items between the search and the making of the items.
static void (*obscura_secret_after_search_hook)(void) = NULL;

void obscura_secret_set_after_search_hook(void (*hook)(void)) { obscura_secret_after_search_hook = hook; }

// Whether `failure` says that the object is not there: an item removed since the search
// by another client of the same store (another daemon on it, another program).
static gboolean is_gone(const GError *failure) {
    return g_error_matches(failure, SECRET_ERROR, SECRET_ERROR_NO_SUCH_OBJECT) ||
           g_error_matches(failure, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
           g_error_matches(failure, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD);
}

// Every item of the schema matching `match`: the unlocked ones in *unlocked, and the
// number of locked ones. Nothing is unlocked and no secret is loaded here. The items are
// made one by one from the paths the search found, rather than by
// secret_service_search_sync, which fails whole when one item has gone in between; such
// an item is passed over.
static int find_items(session *s, const char *const *match, GList **unlocked, size_t *locked) {
    *unlocked = NULL;
    *locked = 0;
    GError *failure = NULL;
    GHashTable *table = attribute_table(s->names, match);
    gchar **open_paths = NULL, **locked_paths = NULL;
    gboolean searched = secret_service_search_for_dbus_paths_sync(s->service, &s->schema, table, s->deadline.cancellable,
                                                                  &open_paths, &locked_paths, &failure);
    g_hash_table_unref(table);
    if (!searched) return report(s, OBSCURA_SECRET_FAILED, "searching the keyring", failure);
    *locked = locked_paths != NULL ? g_strv_length(locked_paths) : 0;
    g_strfreev(locked_paths);
    if (obscura_secret_after_search_hook != NULL) obscura_secret_after_search_hook();
    int status = OBSCURA_SECRET_OK;
    for (gchar **path = open_paths; status == OBSCURA_SECRET_OK && path != NULL && *path != NULL; path++) {
        GError *one = NULL;
        SecretItem *item = secret_item_new_for_dbus_path_sync(s->service, *path, SECRET_ITEM_NONE,
                                                              s->deadline.cancellable, &one);
        if (item != NULL) {
            *unlocked = g_list_prepend(*unlocked, item);
        } else if (is_gone(one)) {
            g_clear_error(&one);
        } else {
            status = report(s, OBSCURA_SECRET_FAILED, "reading an item of the keyring", one);
        }
    }
    g_strfreev(open_paths);
    if (status != OBSCURA_SECRET_OK) {
        g_list_free_full(*unlocked, g_object_unref);
        *unlocked = NULL;
    }
    return status;
}

// MARK: Calls

int obscura_secret_store(const obscura_secret_schema *schema, const char *const *values, const char *label,
                         const void *secret, size_t length, unsigned timeout_ms, char *error, size_t error_capacity) {
    session s;
    int status = session_open(&s, schema, timeout_ms, error, error_capacity);
    SecretCollection *collection = NULL;
    if (status == OBSCURA_SECRET_OK) status = default_collection(&s, &collection);
    if (status == OBSCURA_SECRET_OK && collection == NULL) {
        status = report(&s, OBSCURA_SECRET_NO_SERVICE, "the keyring has no default collection", NULL);
    }
    // gnome-keyring's "session" collection lives in memory only: a key stored there is
    // gone at logout, and with it every vault of the directory it opens.
    if (status == OBSCURA_SECRET_OK &&
        g_str_has_suffix(g_dbus_proxy_get_object_path(G_DBUS_PROXY(collection)), "/collection/session")) {
        status = report(&s, OBSCURA_SECRET_FAILED,
                        "the keyring's default collection is the session collection, kept in memory and lost at "
                        "logout; make a lasting default keyring (a login keyring) or use a key file", NULL);
    }
    // Checked first because storing into a locked collection makes libsecret ask the
    // Secret Service to unlock it, which prompts.
    if (status == OBSCURA_SECRET_OK && secret_collection_get_locked(collection)) {
        status = report(&s, OBSCURA_SECRET_LOCKED, "the default collection is locked", NULL);
    }
    if (status == OBSCURA_SECRET_OK) {
        // secret_value_new copies the bytes into libsecret's locked memory, which it
        // zeroes when the value is released; the session encrypts them on the bus.
        SecretValue *value = secret_value_new(secret, (gssize)length, "application/octet-stream");
        GHashTable *table = attribute_table(schema, values);
        GError *failure = NULL;
        SecretItem *item = secret_item_create_sync(collection, &s.schema, table, label, value, SECRET_ITEM_CREATE_NONE,
                                                   s.deadline.cancellable, &failure);
        g_hash_table_unref(table);
        secret_value_unref(value);
        if (item == NULL) status = report(&s, OBSCURA_SECRET_FAILED, "storing the item", failure);
        g_clear_object(&item);
    }
    g_clear_object(&collection);
    session_close(&s);
    return status;
}

// Whether the default collection is locked, for a search that found nothing to show.
static int default_collection_locked(session *s) {
    SecretCollection *collection = NULL;
    int locked = 0;
    if (default_collection(s, &collection) == OBSCURA_SECRET_OK && collection != NULL) {
        locked = secret_collection_get_locked(collection);
    }
    g_clear_object(&collection);
    if (s->error != NULL && s->error_capacity > 0) s->error[0] = 0;
    return locked;
}

int obscura_secret_search(const obscura_secret_schema *schema, const char *const *match, obscura_secret_visitor visit,
                          void *context, unsigned timeout_ms, char *error, size_t error_capacity) {
    session s;
    GList *items = NULL;
    size_t locked = 0;
    int status = session_open(&s, schema, timeout_ms, error, error_capacity);
    if (status == OBSCURA_SECRET_OK) status = find_items(&s, match, &items, &locked);
    if (status == OBSCURA_SECRET_OK && items != NULL) {
        // Loaded here rather than through SECRET_SEARCH_LOAD_SECRETS, which would load
        // them without the deadline's cancellable.
        GError *failure = NULL;
        if (!secret_item_load_secrets_sync(items, s.deadline.cancellable, &failure)) {
            status = report(&s, OBSCURA_SECRET_FAILED, "loading the secrets", failure);
        }
    }
    size_t visited = 0;
    const char *values[G_N_ELEMENTS(s.schema.attributes)];
    for (GList *l = items; status == OBSCURA_SECRET_OK && l != NULL; l = l->next) {
        SecretValue *value = secret_item_get_secret(l->data);
        if (value == NULL) continue;  // locked since the search
        GHashTable *attributes = secret_item_get_attributes(l->data);
        for (size_t i = 0; i < schema->count; i++) values[i] = g_hash_table_lookup(attributes, schema->attributes[i]);
        gsize length = 0;
        const gchar *bytes = secret_value_get(value, &length);
        visit(context, (const unsigned char *)bytes, length, values);
        visited += 1;
        g_hash_table_unref(attributes);
        secret_value_unref(value);
    }
    if (status == OBSCURA_SECRET_OK && visited == 0 && (locked > 0 || default_collection_locked(&s))) {
        status = report(&s, OBSCURA_SECRET_LOCKED, "the keyring is locked", NULL);
    }
    // Each item's released secret is zeroed by libsecret's secure allocator.
    g_list_free_full(items, g_object_unref);
    session_close(&s);
    return status;
}

// What update and delete do to one item; FALSE with *failure set when it fails.
typedef gboolean (*item_action)(session *s, SecretItem *item, const void *argument, GError **failure);

// Applies `action` to every unlocked item matching `match`, counting those it succeeded
// on; reports OBSCURA_SECRET_LOCKED when only locked items matched.
static int for_each_item(const obscura_secret_schema *schema, const char *const *match, item_action action,
                         const void *argument, const char *what, size_t *count, unsigned timeout_ms, char *error,
                         size_t error_capacity) {
    session s;
    GList *items = NULL;
    size_t locked = 0;
    *count = 0;
    int status = session_open(&s, schema, timeout_ms, error, error_capacity);
    if (status == OBSCURA_SECRET_OK) status = find_items(&s, match, &items, &locked);
    for (GList *l = items; status == OBSCURA_SECRET_OK && l != NULL; l = l->next) {
        GError *failure = NULL;
        if (action(&s, l->data, argument, &failure)) {
            *count += 1;
        } else {
            status = report(&s, OBSCURA_SECRET_FAILED, what, failure);
        }
    }
    if (status == OBSCURA_SECRET_OK && items == NULL && locked > 0) {
        status = report(&s, OBSCURA_SECRET_LOCKED, "the item is locked", NULL);
    }
    g_list_free_full(items, g_object_unref);
    session_close(&s);
    return status;
}

static gboolean update_item(session *s, SecretItem *item, const void *argument, GError **failure) {
    const char *const *changes = argument;
    // The Secret Service replaces the whole attribute set, so start from the item's.
    GHashTable *attributes = secret_item_get_attributes(item);
    for (size_t i = 0; i < s->names->count; i++) {
        if (changes[i] != NULL) {
            g_hash_table_replace(attributes, g_strdup(s->names->attributes[i]), g_strdup(changes[i]));
        }
    }
    gboolean done = secret_item_set_attributes_sync(item, &s->schema, attributes, s->deadline.cancellable, failure);
    g_hash_table_unref(attributes);
    return done;
}

static gboolean delete_item(session *s, SecretItem *item, const void *argument, GError **failure) {
    (void)argument;
    return secret_item_delete_sync(item, s->deadline.cancellable, failure);
}

int obscura_secret_update(const obscura_secret_schema *schema, const char *const *match, const char *const *changes,
                          size_t *changed, unsigned timeout_ms, char *error, size_t error_capacity) {
    return for_each_item(schema, match, update_item, changes, "updating the item", changed, timeout_ms, error,
                         error_capacity);
}

int obscura_secret_delete(const obscura_secret_schema *schema, const char *const *match, size_t *deleted,
                          unsigned timeout_ms, char *error, size_t error_capacity) {
    return for_each_item(schema, match, delete_item, NULL, "deleting the item", deleted, timeout_ms, error,
                         error_capacity);
}

#else

// No Secret Service off Linux: the Swift side uses the Keychain on Apple systems.
void obscura_secret_set_after_search_hook(void (*hook)(void)) { (void)hook; }

int obscura_secret_store(const obscura_secret_schema *schema, const char *const *values, const char *label,
                         const void *secret, size_t length, unsigned timeout_ms, char *error, size_t error_capacity) {
    (void)schema; (void)values; (void)label; (void)secret; (void)length; (void)timeout_ms;
    if (error != NULL && error_capacity > 0) error[0] = 0;
    return OBSCURA_SECRET_NO_SERVICE;
}

int obscura_secret_search(const obscura_secret_schema *schema, const char *const *match, obscura_secret_visitor visit,
                          void *context, unsigned timeout_ms, char *error, size_t error_capacity) {
    (void)schema; (void)match; (void)visit; (void)context; (void)timeout_ms;
    if (error != NULL && error_capacity > 0) error[0] = 0;
    return OBSCURA_SECRET_NO_SERVICE;
}

int obscura_secret_update(const obscura_secret_schema *schema, const char *const *match, const char *const *changes,
                          size_t *changed, unsigned timeout_ms, char *error, size_t error_capacity) {
    (void)schema; (void)match; (void)changes; (void)timeout_ms;
    *changed = 0;
    if (error != NULL && error_capacity > 0) error[0] = 0;
    return OBSCURA_SECRET_NO_SERVICE;
}

int obscura_secret_delete(const obscura_secret_schema *schema, const char *const *match, size_t *deleted,
                          unsigned timeout_ms, char *error, size_t error_capacity) {
    (void)schema; (void)match; (void)timeout_ms;
    *deleted = 0;
    if (error != NULL && error_capacity > 0) error[0] = 0;
    return OBSCURA_SECRET_NO_SERVICE;
}

#endif
