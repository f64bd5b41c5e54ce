// obscura_secret: the few Secret Service calls Obscura's keyring needs, as plain C.
//
// Why a shim: libsecret's convenient API is variadic (attribute lists as NULL-terminated
// name/value pairs), its types are glib's, and its synchronous calls can wait on a
// prompt with no time limit. This header includes no glib header, so Swift never
// imports glib; every call is bounded by a deadline; no call ever asks the Secret
// Service to unlock anything (an unlock may show a prompt, and a headless process
// must not wait on one): a locked collection is reported as such.
//
// Secrets cross this boundary as bytes with a length, never as C strings: the shim
// hands libsecret a SecretValue of content type "application/octet-stream" (libsecret
// keeps it in its own locked, zeroed-on-free memory), and hands a found secret to the
// caller's visitor in place, so the caller copies it into memory it wipes.
//
// Every call opens its own connection to the Secret Service on the session bus named
// by DBUS_SESSION_BUS_ADDRESS at that moment, and closes it before returning.
//
// Linux only; on other systems every call returns OBSCURA_SECRET_NO_SERVICE.
#ifndef OBSCURA_SECRET_H
#define OBSCURA_SECRET_H

#include <stddef.h>

/// The outcome of a call.
typedef enum {
    /// Done.
    OBSCURA_SECRET_OK = 0,
    /// No session bus, no Secret Service on it, or it has no default collection.
    OBSCURA_SECRET_NO_SERVICE = 1,
    /// The collection, or every matching item, is locked (unlocking needs the user).
    OBSCURA_SECRET_LOCKED = 2,
    /// The deadline passed before the Secret Service answered.
    OBSCURA_SECRET_TIMED_OUT = 3,
    /// Anything else; the message says what.
    OBSCURA_SECRET_FAILED = 4,
} obscura_secret_status;

/// A schema: its name, and the names of its attributes (all strings). Attribute
/// values elsewhere in this API are arrays of `count` entries in this order, where
/// NULL means "absent" (not matched, not changed).
typedef struct {
    const char *name;
    const char *const *attributes;
    size_t count;
} obscura_secret_schema;

/// Called once per unlocked matching item: its secret (valid only during the call:
/// copy it out) and its attribute values in schema order (NULL where absent).
typedef void (*obscura_secret_visitor)(void *context, const unsigned char *secret, size_t length,
                                       const char *const *values);

/// Stores a new item in the default collection. `values` gives every attribute.
/// Fails with OBSCURA_SECRET_LOCKED when the collection is locked, without prompting.
int obscura_secret_store(const obscura_secret_schema *schema, const char *const *values, const char *label,
                         const void *secret, size_t length, unsigned timeout_ms, char *error, size_t error_capacity);

/// Tests only (SecretServiceKeyring.afterSearchHook): run by obscura_secret_search
/// between finding the items and loading their secrets, so that a test can remove an
/// item in that window, as another client of the same store may.
void obscura_secret_set_after_search_hook(void (*hook)(void));

/// Visits every unlocked item of the schema whose attributes match `match`, secrets
/// loaded; an item removed between the search and the loading is passed over. When none is visited and a matching item is locked, or the default
/// collection is locked, returns OBSCURA_SECRET_LOCKED (after no visit at all).
int obscura_secret_search(const obscura_secret_schema *schema, const char *const *match, obscura_secret_visitor visit,
                          void *context, unsigned timeout_ms, char *error, size_t error_capacity);

/// Sets the non-NULL entries of `changes` on every unlocked item that matches `match`,
/// keeping its other attributes. `*changed` receives the number of items updated.
int obscura_secret_update(const obscura_secret_schema *schema, const char *const *match, const char *const *changes,
                          size_t *changed, unsigned timeout_ms, char *error, size_t error_capacity);

/// Deletes every unlocked item that matches `match`; `*deleted` receives how many.
int obscura_secret_delete(const obscura_secret_schema *schema, const char *const *match, size_t *deleted,
                          unsigned timeout_ms, char *error, size_t error_capacity);

#endif
