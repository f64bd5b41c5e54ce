#ifndef OBSCURA_OCR_H
#define OBSCURA_OCR_H

#include <stddef.h>

/// An OCR engine: libtesseract for a set of languages, and its orientation model
/// (docs/SEARCH.md §S2.1). Single-threaded: one read at a time per engine.
typedef struct obscura_ocr obscura_ocr;

/// What one read kept (docs/SEARCH.md §S2.3).
typedef struct {
    /// The words at or above the confidence asked for, in reading order, a space between
    /// words and a line feed between lines: UTF-8, NUL-terminated, freed by
    /// obscura_ocr_free. Never NULL after a successful read.
    char *text;
    /// The mean confidence of the read kept (0 … 100), or -1 when it found no word.
    int confidence;
    /// Degrees the picture was turned by, counter-clockwise, for the read kept.
    int rotated;
    /// Degrees of skew removed before the read kept.
    float skew;
    /// 1 when the read kept used Sauvola's local threshold, 0 for Otsu's.
    int sauvola;
    /// Words of the read kept that were under the confidence asked for.
    int dropped;
} obscura_ocr_result;

/// An engine for `languages` ("eng", "eng+deu"), from the library's own tessdata
/// folder; NULL when the languages or the orientation model are not installed.
obscura_ocr *obscura_ocr_open(const char *languages);

/// Frees the engine.
void obscura_ocr_close(obscura_ocr *ocr);

/// Reads `width` × `height` 8-bit grey pixels (rows of `width` bytes) through the chain
/// of docs/SEARCH.md §S2.3: deskew, Otsu read; when weak, a Sauvola read; when still
/// weak, the orientation model, a turn and a read; the surest read is kept, and only its
/// words of confidence `min_word_confidence` or more. Returns 0, or -1 when the
/// recognition failed outright (`result` then holds nothing to free).
int obscura_ocr_read(obscura_ocr *ocr, const unsigned char *grey, int width, int height, int min_word_confidence,
                     obscura_ocr_result *result);

/// Frees what a read returned.
void obscura_ocr_free(obscura_ocr_result *result);

/// libtesseract's version string ("5.3.0"), static storage.
const char *obscura_ocr_version(void);

#endif
