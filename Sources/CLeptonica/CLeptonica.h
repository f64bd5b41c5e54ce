// The system Leptonica, found through pkg-config ("lept": -llept on Debian, -lleptonica
// from Homebrew's 1.83 and later). Only the C shim CObscuraOCR includes it.
#include <leptonica/allheaders.h>
