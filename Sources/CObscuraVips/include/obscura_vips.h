// obscura_vips: the few libvips calls Obscura needs, as plain C functions.
//
// Why a shim: libvips's API is variadic (optional arguments as NULL-terminated
// name/value lists, VIPS_INIT as a macro), and Swift cannot call variadic C functions.
// This header deliberately does not include <vips/vips.h>, so Swift never imports glib.
// Every function works on in-memory buffers: nothing here writes a file.
#ifndef OBSCURA_VIPS_H
#define OBSCURA_VIPS_H

#include <stddef.h>

/// What a header-only probe found.
typedef struct {
    int width;
    int height;
    int orientation;        // EXIF orientation 1...8; 1 when absent
    int pages;              // frames of an animated GIF or multi-page TIFF; 1 otherwise
    char loader[48];        // libvips loader name, e.g. "jpegload_buffer"
    char date_taken[64];    // EXIF DateTimeOriginal as libvips renders it; empty if absent
    // EXIF GPS position as libvips renders it ("48/1 51/1 2938/100 (48, 51, 29.38, Rational,
    // ...)", "N (N, ASCII, ...)"); each empty if absent. Room for three rationals of ten
    // digits each, and libexif's reading after them; a longer text is cut, which leaves
    // its first part, the one read, whole.
    char gps_latitude[128];
    char gps_latitude_ref[32];
    char gps_longitude[128];
    char gps_longitude_ref[32];
    // The image's raw EXIF block (libvips's "exif-data"), at most 64 KiB, or NULL: a copy
    // to release with obscura_vips_free, made only when asked for. Read for what libexif
    // does not name (Apple's MakerNote).
    void *exif;
    size_t exif_length;
} obscura_vips_info;

/// Starts libvips once (later calls return the first result); 0 on success.
/// Also keeps decoded pixels in memory (no disc spill) and turns the operation cache off.
int obscura_vips_init(void);

/// Reads only the header of the image in `buffer`; 0 on success. With `want_exif` nonzero,
/// on success `info->exif` may hold a copy to release with obscura_vips_free.
int obscura_vips_probe(const void *buffer, size_t length, int want_exif, obscura_vips_info *info);

/// Makes a JPEG thumbnail, EXIF-rotated, whose longest side is at most `max_side`.
/// On success returns 0 and stores a buffer to release with obscura_vips_free.
int obscura_vips_thumbnail(const void *buffer, size_t length, int max_side, void **jpeg, size_t *jpeg_length);

/// As obscura_vips_thumbnail, but turned by EXIF `orientation` (1...8; anything else
/// counts as 1) instead of by the image's own EXIF: for a camera RAW's embedded preview,
/// whose pixels follow the RAW's orientation tag, not a tag of its own.
int obscura_vips_thumbnail_oriented(const void *buffer, size_t length, int max_side, int orientation,
                                    void **jpeg, size_t *jpeg_length);

/// Releases a buffer returned by this shim.
/// The picture upright (EXIF orientation applied), longest side at most `max_side`, as
/// 8-bit grey pixels in rows of `*width` bytes, for OCR (docs/SEARCH.md §S2.3): alpha is
/// flattened onto white first, so text on a transparent background reads. The pixels
/// are freed with obscura_vips_free. 0, or -1 with libvips's error.
int obscura_vips_grey(const void *buffer, size_t length, int max_side, void **pixels, int *width, int *height);

/// Blocks every libvips loader but those of the pictures OCR reads (docs/SEARCH.md §S2.5:
/// JPEG, PNG, WebP, HEIF, TIFF, GIF, PDF, SVG), for the indexer process: ImageMagick's,
/// FITS, Matlab, OpenSlide, CSV and the rest are marked untrusted by libvips, and a
/// picture they would read is not one to index. 0, or -1 when libvips did not start.
int obscura_vips_allow_picture_loaders_only(void);

void obscura_vips_free(void *pointer);

/// Copies libvips's error text into `out` and clears it.
/// libvips keeps one error buffer for the whole process, not one per thread, so when
/// threads fail at the same moment a message may describe another thread's image; this
/// is wrapped because Swift cannot free the glib string vips_error_buffer_copy returns.
void obscura_vips_last_error(char *out, size_t capacity);

/// The size in bytes above which libvips would decode an image into a temporary file;
/// the shim sets it out of reach so that no decoded pixels reach disk. Wrapped so that
/// tests can check it without importing libvips; -1 if libvips failed to start.
long long obscura_vips_disc_threshold(void);

#endif
