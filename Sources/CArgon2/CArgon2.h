// The reference Argon2 library (Debian's libargon2-dev; Homebrew's argon2 on macOS),
// used only for Argon2id, the second password KDF (docs/FORMAT.md §2).
#include <argon2.h>
