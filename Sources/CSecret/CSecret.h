// The system libsecret, found through pkg-config (Debian's libsecret-1-dev). Only the C
// shim CObscuraSecret includes this; Swift code never imports glib or libsecret.
#include <libsecret/secret.h>
