// The system libtesseract, found through pkg-config (Debian's libtesseract-dev). Only the
// C shim CObscuraOCR includes it (docs/SEARCH.md §S2.1); Swift code never imports the
// Tesseract or Leptonica headers.
#include <tesseract/capi.h>
