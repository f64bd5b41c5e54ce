// The system libtesseract and Leptonica, found through pkg-config (Debian's
// libtesseract-dev). Only the C shim CObscuraOCR includes this (docs/SEARCH.md §S2.1);
// Swift code never imports the Leptonica headers.
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
