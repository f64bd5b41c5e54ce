// The system libvips, found through pkg-config (Debian's libvips-dev). Only the C shim
// CObscuraVips includes this; Swift code never imports glib or vips.h.
#include <vips/vips.h>
