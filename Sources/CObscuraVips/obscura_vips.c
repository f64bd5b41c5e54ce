#include "obscura_vips.h"
#include <vips/vips.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// 1 PiB: no image under the pixel limit comes near it.
#define DISC_THRESHOLD "1048576g"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_result = -1;

// libvips reports recoverable decode problems as glib warnings on stderr; the caller gets
// the failure as an error instead, so the warnings are dropped.
static void ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

static void start(void) {
    // Decoded images stay in memory however large: a temporary file of pixels would be
    // plaintext on disk. The pixel limit checked before decoding bounds the memory.
    // libvips parses this size with k, m and g suffixes only ("1t" would read as 1 byte
    // and send every non-streaming load to a file in TMPDIR), and in 8.14 a threshold of
    // 0 means "always disc", so the value is a plain, very large number of gigabytes.
    setenv("VIPS_DISC_THRESHOLD", DISC_THRESHOLD, 1);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, ignore_log, NULL);
    init_result = VIPS_INIT("obscura");
    if (init_result == 0) {
        vips_cache_set_max(0);
    }
}

int obscura_vips_init(void) {
    pthread_once(&once, start);
    return init_result;
}

static void copy_string(char *out, size_t capacity, const char *in) {
    if (!in) { out[0] = 0; return; }
    strncpy(out, in, capacity - 1);
    out[capacity - 1] = 0;
}

// Copies the string field `name` of `image` into `out`; leaves `out` empty when the image
// has no such field or it is not a string.
static void copy_field(VipsImage *image, const char *name, char *out, size_t capacity) {
    const char *text = NULL;
    if (vips_image_get_typeof(image, name) && vips_image_get_string(image, name, &text) == 0) {
        copy_string(out, capacity, text);
    }
}

int obscura_vips_probe(const void *buffer, size_t length, int want_exif, obscura_vips_info *info) {
    if (obscura_vips_init() != 0) return -1;
    memset(info, 0, sizeof(*info));
    VipsImage *image = vips_image_new_from_buffer(buffer, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    info->width = vips_image_get_width(image);
    info->height = vips_image_get_height(image);
    info->orientation = 1;
    int orientation = 0;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) && vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) == 0
        && orientation >= 1 && orientation <= 8) {
        info->orientation = orientation;
    }
    info->pages = 1;
    int pages = 0;
    if (vips_image_get_typeof(image, VIPS_META_N_PAGES) && vips_image_get_int(image, VIPS_META_N_PAGES, &pages) == 0 && pages > 0) {
        info->pages = pages;
    }
    const char *text = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) && vips_image_get_string(image, VIPS_META_LOADER, &text) == 0) {
        copy_string(info->loader, sizeof(info->loader), text);
    }
    copy_field(image, "exif-ifd2-DateTimeOriginal", info->date_taken, sizeof(info->date_taken));
    copy_field(image, "exif-ifd3-GPSLatitude", info->gps_latitude, sizeof(info->gps_latitude));
    copy_field(image, "exif-ifd3-GPSLatitudeRef", info->gps_latitude_ref, sizeof(info->gps_latitude_ref));
    copy_field(image, "exif-ifd3-GPSLongitude", info->gps_longitude, sizeof(info->gps_longitude));
    copy_field(image, "exif-ifd3-GPSLongitudeRef", info->gps_longitude_ref, sizeof(info->gps_longitude_ref));
    const void *exif = NULL;
    size_t exif_length = 0;
    // A JPEG's APP1 segment holds at most 64 KiB; a larger block is not read.
    if (want_exif && vips_image_get_typeof(image, VIPS_META_EXIF_NAME)
        && vips_image_get_blob(image, VIPS_META_EXIF_NAME, &exif, &exif_length) == 0
        && exif && exif_length > 0 && exif_length <= 65536) {
        info->exif = g_memdup2(exif, exif_length);
        info->exif_length = exif_length;
    }
    g_object_unref(image);
    return 0;
}

// Shared by both thumbnail calls: orientation 0 lets libvips follow the image's own
// EXIF orientation; 1...8 ignores it and applies this one instead.
static int thumbnail(const void *buffer, size_t length, int max_side, int orientation, void **jpeg, size_t *jpeg_length) {
    if (obscura_vips_init() != 0) return -1;
    VipsImage *thumb = NULL;
    // fail_on=error: a damaged file is an error, not a grey half-picture. libjpeg reports
    // a scan damaged in its middle only as a warning and paints the rest grey, so a JPEG
    // fails on warnings too; other loaders warn about harmless things (heifload's "bad
    // seek") and stay at errors.
    // memory=true: loaders that cannot stream (webpload, for one) decode into memory even
    // if the disc threshold were somehow low: a temporary file would be plaintext on disk.
    const char *loader = vips_foreign_find_load_buffer(buffer, length);
    const char *options = (loader && strstr(loader, "Jpeg")) ? "fail_on=warning,memory=true" : "fail_on=error,memory=true";
    if (vips_thumbnail_buffer((void *)buffer, length, &thumb, max_side,
                              "height", max_side, "size", VIPS_SIZE_DOWN, "no_rotate", orientation != 0,
                              "option_string", options, NULL) != 0) {
        return -1;
    }
    if (orientation >= 2 && orientation <= 8) {
        // vips_autorot reads the orientation from the image's metadata, so the given one
        // is set on a copy (metadata of a shared image must not change) and turned by it.
        VipsImage *tagged = NULL, *upright = NULL;
        int failed = vips_copy(thumb, &tagged, NULL);
        if (!failed) {
            vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
            failed = vips_autorot(tagged, &upright, NULL);
            g_object_unref(tagged);
        }
        g_object_unref(thumb);
        if (failed) return -1;
        thumb = upright;
    }
    int result = vips_image_write_to_buffer(thumb, ".jpg", jpeg, jpeg_length, "Q", 82, "strip", TRUE, NULL);
    g_object_unref(thumb);
    return result;
}

int obscura_vips_thumbnail(const void *buffer, size_t length, int max_side, void **jpeg, size_t *jpeg_length) {
    return thumbnail(buffer, length, max_side, 0, jpeg, jpeg_length);
}

int obscura_vips_thumbnail_oriented(const void *buffer, size_t length, int max_side, int orientation,
                                    void **jpeg, size_t *jpeg_length) {
    if (orientation < 1 || orientation > 8) orientation = 1;
    return thumbnail(buffer, length, max_side, orientation, jpeg, jpeg_length);
}

int obscura_vips_grey(const void *buffer, size_t length, int max_side, void **pixels, int *width, int *height) {
    if (obscura_vips_init() != 0) return -1;
    const char *loader = vips_foreign_find_load_buffer(buffer, length);
    const char *options = (loader && strstr(loader, "Jpeg")) ? "fail_on=warning,memory=true" : "fail_on=error,memory=true";
    // A PDF's or SVG's page is drawn at the size asked for (docs/SEARCH.md §S2.5): at its
    // natural 72 dpi, body text would be too small to read.
    int drawn = loader && (strstr(loader, "Pdf") || strstr(loader, "Svg"));
    VipsImage *image = NULL;
    if (vips_thumbnail_buffer((void *)buffer, length, &image, max_side, "height", max_side,
                              "size", drawn ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN,
                              "option_string", options, NULL) != 0) {
        return -1;
    }
    // Each step replaces `image`; a failure drops what was made so far.
    VipsImage *next = NULL;
    int failed = 0;
    if (vips_image_hasalpha(image)) {
        // One value for every band: flatten takes 1 or (bands - 1) values.
        double white[] = {255};
        VipsArrayDouble *background = vips_array_double_new(white, 1);
        failed = vips_flatten(image, &next, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        g_object_unref(image);
        image = next;
    }
    if (!failed) {
        failed = vips_colourspace(image, &next, VIPS_INTERPRETATION_B_W, NULL);
        g_object_unref(image);
        image = next;
    }
    if (!failed) {
        failed = vips_cast_uchar(image, &next, NULL);
        g_object_unref(image);
        image = next;
    }
    if (!failed && vips_image_get_bands(image) > 1) {
        failed = vips_extract_band(image, &next, 0, NULL);
        g_object_unref(image);
        image = next;
    }
    if (failed) return -1;
    size_t size = 0;
    void *memory = vips_image_write_to_memory(image, &size);
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    if (!memory || size != (size_t)*width * (size_t)*height) { g_free(memory); return -1; }
    *pixels = memory;
    return 0;
}

int obscura_vips_allow_picture_loaders_only(void) {
    if (obscura_vips_init() != 0) return -1;
    vips_operation_block_set("VipsForeignLoad", TRUE);
    static const char *const allowed[] = {
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadHeif",
        "VipsForeignLoadTiff", "VipsForeignLoadNsgif", "VipsForeignLoadPdf", "VipsForeignLoadSvg",
    };
    for (size_t i = 0; i < sizeof(allowed) / sizeof(*allowed); i++) vips_operation_block_set(allowed[i], FALSE);
    return 0;
}

void obscura_vips_free(void *pointer) {
    g_free(pointer);
}

void obscura_vips_last_error(char *out, size_t capacity) {
    // vips_error_buffer_copy reads and clears under libvips's own lock, so no other
    // thread's error lands between the read and the clear.
    char *text = vips_error_buffer_copy();
    copy_string(out, capacity, text);
    g_free(text);
}

long long obscura_vips_disc_threshold(void) {
    if (obscura_vips_init() != 0) return -1;
    return (long long)vips_get_disc_threshold();
}
