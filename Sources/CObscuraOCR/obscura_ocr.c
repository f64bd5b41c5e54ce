// The OCR chain of docs/SEARCH.md §S2.3 over libtesseract's C API, in C so that Leptonica's
// headers stay out of Swift. Measured in tools/search-spike (ocr_capi.c, `lib-chain`);
// this is that chain with the word filter of §S2.3 ("What is kept of the read").
#include "obscura_ocr.h"

#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
#include <stdlib.h>
#include <string.h>

struct obscura_ocr {
    TessBaseAPI *api;
    TessBaseAPI *orientation;
};

/// Under this mean confidence, or with fewer visible bytes, a read is weak and the next
/// step of the chain is tried (§S2.3; the spike's thresholds).
static const int weak_confidence = 60;
static const size_t weak_length = 16;
/// The deskew's sweep: ±15° (Leptonica's default ±7° missed 8° pages), reductions 2 and 1
/// (4 missed 14 px text), and the least confidence a skew is trusted at.
static const float sweep_degrees = 15.0f;
static const float skew_confidence = 2.0f;

obscura_ocr *obscura_ocr_open(const char *languages) {
    obscura_ocr *ocr = calloc(1, sizeof *ocr);
    if (!ocr) return NULL;
    ocr->api = TessBaseAPICreate();
    ocr->orientation = TessBaseAPICreate();
    // NULL datapath: the library's compiled-in tessdata folder.
    if (!ocr->api || !ocr->orientation || TessBaseAPIInit3(ocr->api, NULL, languages) != 0
        || TessBaseAPIInit3(ocr->orientation, NULL, "osd") != 0) {
        obscura_ocr_close(ocr);
        return NULL;
    }
    TessBaseAPISetPageSegMode(ocr->api, PSM_AUTO);
    TessBaseAPISetPageSegMode(ocr->orientation, PSM_OSD_ONLY);
    return ocr;
}

void obscura_ocr_close(obscura_ocr *ocr) {
    if (!ocr) return;
    if (ocr->api) { TessBaseAPIEnd(ocr->api); TessBaseAPIDelete(ocr->api); }
    if (ocr->orientation) { TessBaseAPIEnd(ocr->orientation); TessBaseAPIDelete(ocr->orientation); }
    free(ocr);
}

/// A growing UTF-8 buffer.
typedef struct {
    char *bytes;
    size_t length, capacity;
} text_buffer;

static int append(text_buffer *buffer, const char *bytes, size_t length) {
    if (buffer->length + length + 1 > buffer->capacity) {
        // Not realloc: the old copy of the text is zeroed before it is freed.
        size_t capacity = (buffer->capacity ? buffer->capacity * 2 : 1024) + length;
        char *grown = malloc(capacity);
        if (!grown) return -1;
        if (buffer->bytes) {
            memcpy(grown, buffer->bytes, buffer->length);
            memset(buffer->bytes, 0, buffer->capacity);
            free(buffer->bytes);
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, bytes, length);
    buffer->length += length;
    buffer->bytes[buffer->length] = 0;
    return 0;
}

/// One read of `pix`: the kept words, the mean confidence, the visible bytes of every
/// word (kept or not) for the weakness test, and the words dropped.
typedef struct {
    text_buffer text;
    int confidence;
    size_t visible;
    int words, dropped;
} page_read;

static void page_read_free(page_read *read) {
    if (read->text.bytes) {
        memset(read->text.bytes, 0, read->text.capacity);
        free(read->text.bytes);
    }
    memset(read, 0, sizeof *read);
}

/// A read with no word scores -1: Tesseract reports a high mean confidence for a page
/// where it found nothing (§S2.3, step 4).
static int score(const page_read *read) { return read->words == 0 ? -1 : read->confidence; }

static int weak(const page_read *read) { return read->confidence < weak_confidence || read->visible < weak_length; }

static int recognize(TessBaseAPI *api, PIX *pix, int min_word_confidence, page_read *read) {
    memset(read, 0, sizeof *read);
    TessBaseAPISetImage2(api, pix);
    if (TessBaseAPIRecognize(api, NULL) != 0) {
        TessBaseAPIClear(api);
        return -1;
    }
    read->confidence = TessBaseAPIMeanTextConf(api);
    TessResultIterator *words = TessBaseAPIGetIterator(api);
    int failed = 0;
    if (words) {
        const TessPageIterator *page = TessResultIteratorGetPageIterator(words);
        char separator = 0;
        do {
            char *word = TessResultIteratorGetUTF8Text(words, RIL_WORD);
            if (!word) continue;
            size_t length = strlen(word);
            // As the spike measured the weakness test: the page text's length, a
            // separator after each word (strlen of TessBaseAPIGetUTF8Text's text).
            read->visible += length + 1;
            // A "word" of spaces only is what Tesseract gives for a page where it found no
            // text; counted as a word it made a blank read score its high mean confidence
            // and beat a real Sauvola read (the spike's chain scored it -1, as here now).
            int shows = 0;
            for (size_t i = 0; i < length && !shows; i++) shows = (unsigned char)word[i] > 0x20;
            if (!shows) {
                memset(word, 0, length);
                TessDeleteText(word);
                continue;
            }
            read->words += 1;
            if (TessResultIteratorConfidence(words, RIL_WORD) >= (float)min_word_confidence) {
                if (separator) failed |= append(&read->text, &separator, 1);
                failed |= append(&read->text, word, length);
                separator = TessPageIteratorIsAtFinalElement(page, RIL_TEXTLINE, RIL_WORD) ? '\n' : ' ';
            } else {
                read->dropped += 1;
                // A line whose last word is dropped still ends there.
                if (separator && TessPageIteratorIsAtFinalElement(page, RIL_TEXTLINE, RIL_WORD)) separator = '\n';
            }
            memset(word, 0, length);
            TessDeleteText(word);
        } while (TessResultIteratorNext(words, RIL_WORD));
        TessResultIteratorDelete(words);
    }
    TessBaseAPIClear(api);
    if (!failed && !read->text.bytes) failed = append(&read->text, "", 0);
    if (failed) {
        page_read_free(read);
        return -1;
    }
    return 0;
}

/// `grey` as a Leptonica 8-bit image.
static PIX *grey_pix(const unsigned char *grey, int width, int height) {
    PIX *pix = pixCreate(width, height, 8);
    if (!pix) return NULL;
    l_uint32 *data = pixGetData(pix);
    int words_per_line = pixGetWpl(pix);
    for (int y = 0; y < height; y++) {
        l_uint32 *line = data + (size_t)y * words_per_line;
        for (int x = 0; x < width; x++) SET_DATA_BYTE(line, x, grey[(size_t)y * width + x]);
    }
    return pix;
}

/// `pix` with its small skew removed (a ±15° sweep on a binarised copy, then a rotation
/// bringing in white), or a copy when none is found; the angle in `skew`.
static PIX *deskewed(PIX *pix, float *skew) {
    *skew = 0;
    float confidence = 0;
    PIX *binary = pixConvertTo1(pix, 128);
    if (!binary || pixFindSkewSweepAndSearch(binary, skew, &confidence, 2, 1, sweep_degrees, 1.0f, 0.01f) != 0
        || confidence < skew_confidence) {
        *skew = 0;
    }
    pixDestroy(&binary);
    if (*skew == 0) return pixClone(pix);
    PIX *straight = pixRotate(pix, *skew * 3.14159265f / 180, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0);
    return straight ? straight : pixClone(pix);
}

/// Keeps `candidate` in `best` when it scores higher, else frees it.
static int keep_surer(page_read *best, page_read *candidate) {
    if (score(candidate) > score(best)) {
        page_read_free(best);
        *best = *candidate;
        return 1;
    }
    page_read_free(candidate);
    return 0;
}

int obscura_ocr_read(obscura_ocr *ocr, const unsigned char *grey, int width, int height, int min_word_confidence,
                     obscura_ocr_result *result) {
    memset(result, 0, sizeof *result);
    PIX *pix = grey_pix(grey, width, height);
    if (!pix) return -1;
    float skew = 0;
    PIX *straight = deskewed(pix, &skew);
    int rotated = 0, sauvola = 0;
    page_read best;
    if (!straight || recognize(ocr->api, straight, min_word_confidence, &best) != 0) {
        pixDestroy(&straight);
        pixDestroy(&pix);
        return -1;
    }
    // Weak: text straight on a busy background reads with Sauvola's local threshold.
    if (weak(&best)) {
        page_read second;
        // Tesseract 5's variable; an older library without it has no Sauvola to try.
        if (TessBaseAPISetVariable(ocr->api, "thresholding_method", "2")) {
            if (recognize(ocr->api, straight, min_word_confidence, &second) == 0 && keep_surer(&best, &second)) sauvola = 1;
            TessBaseAPISetVariable(ocr->api, "thresholding_method", "0");
        }
    }
    // Still weak: a page turned by a quarter or a half. Orientation is asked only now: on
    // every page it turned dark screenshots upside down (§S2.3, step 3).
    if (weak(&best)) {
        int orientation = 0;
        float orientation_confidence = 0, script_confidence = 0;
        const char *script = NULL;
        TessBaseAPISetImage2(ocr->orientation, pix);
        if (!TessBaseAPIDetectOrientationScript(ocr->orientation, &orientation, &orientation_confidence, &script,
                                                &script_confidence) || orientation_confidence <= 1.0f) {
            orientation = 0;
        }
        TessBaseAPIClear(ocr->orientation);
        if (orientation == 90 || orientation == 180 || orientation == 270) {
            // Counter-clockwise by `orientation`: pixRotateOrth turns clockwise.
            PIX *turned = pixRotateOrth(pix, (4 - orientation / 90) % 4);
            float turned_skew = 0;
            PIX *turned_straight = turned ? deskewed(turned, &turned_skew) : NULL;
            page_read third;
            if (turned_straight && recognize(ocr->api, turned_straight, min_word_confidence, &third) == 0
                && keep_surer(&best, &third)) {
                rotated = orientation;
                skew = turned_skew;
                sauvola = 0;
            }
            pixDestroy(&turned_straight);
            pixDestroy(&turned);
        }
    }
    pixDestroy(&straight);
    pixDestroy(&pix);
    result->text = best.text.bytes;
    result->confidence = score(&best);
    result->rotated = rotated;
    result->skew = skew;
    result->sauvola = sauvola;
    result->dropped = best.dropped;
    return 0;
}

void obscura_ocr_free(obscura_ocr_result *result) {
    if (result->text) {
        memset(result->text, 0, strlen(result->text));
        free(result->text);
    }
    memset(result, 0, sizeof *result);
}

const char *obscura_ocr_version(void) {
    return TessVersion();
}
