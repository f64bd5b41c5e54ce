// The library path of docs/SEARCH.md §S2: libtesseract's C API (tesseract/capi.h), called
// the way a Swift system-library target would call it, on pixels already in memory.
//
// Reads binary PPM files (make_ocr_set.py), hands their pixels to TessBaseAPISetImage
// (RGB, or grey when --grey), and prints one JSON line per image: the text, and the
// process CPU time and wall time of preprocessing plus recognition. Init time and peak
// RSS go to stderr at the end. No file is written.
//
//   cc -O2 -o ocr_capi ocr_capi.c $(pkg-config --cflags --libs tesseract lept)
//   OMP_THREAD_LIMIT=1 ./ocr_capi [--lang eng] [--psm 3] [--grey] [--scale 2] [--osd | --fallback | --chain] [--deskew] [--var NAME=VALUE] FILE.ppm...
//
// --osd detects the orientation first (a second handle on osd.traineddata) and rotates;
// --fallback reads upright first and tries the detected orientation only when that
// read is weak (mean confidence under 60, or under 16 characters), keeping the surer;
// --chain (implies --fallback) first retries a weak read with Sauvola thresholding.
//
// --deskew (grey only) finds and removes a small skew with Leptonica, the library
// libtesseract itself links: a +-15 degree sweep on a binarised copy, then a rotation.
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// A binary PPM (P6, maxval 255): the format make_ocr_set.py writes.
static unsigned char *read_ppm(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    int maxval;
    if (fscanf(f, "P6 %d %d %d", w, h, &maxval) != 3 || maxval != 255) { fclose(f); return NULL; }
    fgetc(f);
    size_t n = (size_t)*w * *h * 3;
    unsigned char *p = malloc(n);
    if (fread(p, 1, n, f) != n) { free(p); p = NULL; }
    fclose(f);
    return p;
}

// Bilinear resize of a `c`-channel image.
static unsigned char *resize(const unsigned char *src, int w, int h, int c, double s, int *ow, int *oh) {
    *ow = (int)(w * s); *oh = (int)(h * s);
    unsigned char *dst = malloc((size_t)*ow * *oh * c);
    for (int y = 0; y < *oh; y++) {
        double fy = (y + 0.5) / s - 0.5; if (fy < 0) fy = 0;
        int y0 = (int)fy; int y1 = y0 + 1 < h ? y0 + 1 : y0; double ay = fy - y0;
        for (int x = 0; x < *ow; x++) {
            double fx = (x + 0.5) / s - 0.5; if (fx < 0) fx = 0;
            int x0 = (int)fx; int x1 = x0 + 1 < w ? x0 + 1 : x0; double ax = fx - x0;
            for (int k = 0; k < c; k++) {
                double v = (1 - ay) * ((1 - ax) * src[((size_t)y0 * w + x0) * c + k] + ax * src[((size_t)y0 * w + x1) * c + k])
                         + ay * ((1 - ax) * src[((size_t)y1 * w + x0) * c + k] + ax * src[((size_t)y1 * w + x1) * c + k]);
                dst[((size_t)y * *ow + x) * c + k] = (unsigned char)(v + 0.5);
            }
        }
    }
    return dst;
}

// Rotates a `c`-channel image counter-clockwise by `deg` (0, 90, 180, 270).
static unsigned char *rotate(const unsigned char *src, int w, int h, int c, int deg, int *ow, int *oh) {
    *ow = (deg == 90 || deg == 270) ? h : w; *oh = (deg == 90 || deg == 270) ? w : h;
    unsigned char *dst = malloc((size_t)w * h * c);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int nx, ny;
            switch (deg) {
            case 90: nx = y; ny = w - 1 - x; break;
            case 180: nx = w - 1 - x; ny = h - 1 - y; break;
            case 270: nx = h - 1 - y; ny = x; break;
            default: nx = x; ny = y;
            }
            memcpy(dst + ((size_t)ny * *ow + nx) * c, src + ((size_t)y * w + x) * c, c);
        }
    return dst;
}

static int blank(const char *s) {
    if (!s) return 1;
    for (; *s; s++) if ((unsigned char)*s > ' ') return 0;
    return 1;
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') { putchar('\\'); putchar(ch); }
        else if (ch == '\n') fputs("\\n", stdout);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

// Recognises `c`-channel pixels (deskewed first when asked, grey only) and returns the
// text (TessDeleteText frees it), its mean confidence and the skew removed.
static char *recognize(TessBaseAPI *api, const unsigned char *px, int w, int h, int c, int deskew, int *conf, float *skew) {
    *skew = 0;
    if (deskew) {
        PIX *pix = pixCreate(w, h, 8);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) pixSetPixel(pix, x, y, px[(size_t)y * w + x]);
        // Sweep +-15 degrees on a binarised copy (Leptonica's default sweep is +-7),
        // then rotate the grey pixels by the angle found, bringing in white.
        float sconf = 0;
        PIX *binary = pixConvertTo1(pix, 128);
        if (pixFindSkewSweepAndSearch(binary, skew, &sconf, 2, 1, 15.0f, 1.0f, 0.01f) != 0 || sconf < 2.0f) *skew = 0;
        pixDestroy(&binary);
        PIX *straight = *skew != 0 ? pixRotate(pix, *skew * 3.14159265f / 180, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0) : NULL;
        TessBaseAPISetImage2(api, straight ? straight : pix);
        if (straight) pixDestroy(&straight);
        pixDestroy(&pix);
    } else {
        TessBaseAPISetImage(api, px, w, h, c, w * c);
    }
    char *text = TessBaseAPIGetUTF8Text(api);
    *conf = TessBaseAPIMeanTextConf(api);
    TessBaseAPIClear(api);
    return text;  // NULL only when recognition failed outright
}

int main(int argc, char **argv) {
    const char *lang = "eng";
    int psm = 3, grey = 0, osd = 0, deskew = 0, fallback = 0, chain = 0, nvars = 0;
    char *vars[8];
    double scale = 1;
    int first = 1;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        if (!strcmp(argv[first], "--lang")) lang = argv[++first];
        else if (!strcmp(argv[first], "--psm")) psm = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--grey")) grey = 1;
        else if (!strcmp(argv[first], "--scale")) scale = atof(argv[++first]);
        else if (!strcmp(argv[first], "--osd")) osd = 1;
        else if (!strcmp(argv[first], "--fallback")) { osd = 1; fallback = 1; }
        else if (!strcmp(argv[first], "--chain")) { osd = 1; fallback = 1; chain = 1; }
        else if (!strcmp(argv[first], "--deskew")) { deskew = 1; grey = 1; }
        else if (!strcmp(argv[first], "--var")) { vars[nvars++] = argv[++first]; if (nvars == 8) return 2; }
        else { fprintf(stderr, "unknown option %s\n", argv[first]); return 2; }
    }
    double t0 = now(CLOCK_MONOTONIC);
    TessBaseAPI *api = TessBaseAPICreate();
    // NULL datapath: the library's compiled-in tessdata folder (or TESSDATA_PREFIX).
    if (TessBaseAPIInit3(api, NULL, lang) != 0) { fprintf(stderr, "init failed for %s\n", lang); return 1; }
    TessBaseAPISetPageSegMode(api, (TessPageSegMode)psm);
    for (int k = 0; k < nvars; k++) {
        char *eq = strchr(vars[k], '=');
        if (!eq) return 2;
        *eq = 0;
        if (!TessBaseAPISetVariable(api, vars[k], eq + 1)) { fprintf(stderr, "unknown variable %s\n", vars[k]); return 2; }
    }
    TessBaseAPI *osdapi = NULL;
    if (osd) {
        osdapi = TessBaseAPICreate();
        if (TessBaseAPIInit3(osdapi, NULL, "osd") != 0) { fprintf(stderr, "osd init failed\n"); return 1; }
        TessBaseAPISetPageSegMode(osdapi, PSM_OSD_ONLY);
    }
    double init_ms = now(CLOCK_MONOTONIC) - t0;
    for (int i = first; i < argc; i++) {
        int w, h;
        unsigned char *rgb = read_ppm(argv[i], &w, &h);
        if (!rgb) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
        int c = 3;
        unsigned char *px = rgb;
        if (grey) {
            px = malloc((size_t)w * h);
            for (size_t k = 0; k < (size_t)w * h; k++)
                px[k] = (unsigned char)((299 * rgb[3 * k] + 587 * rgb[3 * k + 1] + 114 * rgb[3 * k + 2]) / 1000);
            c = 1;
        }
        if (scale != 1) {
            int nw, nh;
            unsigned char *r = resize(px, w, h, c, scale, &nw, &nh);
            if (px != rgb) free(px);
            px = r; w = nw; h = nh;
        }
        int deg = 0, conf = 0, sauvola = 0;
        float skew = 0, oconf = 0;
        char *text = NULL;
        if (!osd || fallback) text = recognize(api, px, w, h, c, deskew, &conf, &skew);
// Tesseract reports a high mean confidence for a page where it found no word at all, so
// a read is scored -1 when it holds no visible character.
#define WEAK(t, k) ((k) < 60 || !(t) || strlen(t) < 16)
#define SCORE(t, k) (blank(t) ? -1 : (k))
        // With --chain, a weak upright read is tried again with Sauvola's local threshold
        // (text straight on a busy background), keeping the surer of the two.
        if (chain && WEAK(text, conf)) {
            int conf2 = 0; float skew2 = 0;
            TessBaseAPISetVariable(api, "thresholding_method", "2");
            char *text2 = recognize(api, px, w, h, c, deskew, &conf2, &skew2);
            TessBaseAPISetVariable(api, "thresholding_method", "0");
            if (SCORE(text2, conf2) > SCORE(text, conf)) { TessDeleteText(text); text = text2; conf = conf2; skew = skew2; sauvola = 1; }
            else TessDeleteText(text2);
        }
        // With --fallback (and --chain), orientation is looked for only when the upright
        // read is still weak; the rotated pass is kept only if it reads more surely.
        if (osd && (!fallback || WEAK(text, conf))) {
            int orient = 0; float sconf = 0; const char *script = NULL;
            TessBaseAPISetImage(osdapi, px, w, h, c, w * c);
            if (!TessBaseAPIDetectOrientationScript(osdapi, &orient, &oconf, &script, &sconf) || oconf <= 1.0f) orient = 0;
            TessBaseAPIClear(osdapi);
            if (orient != 0 || !fallback) {
                int nw = w, nh = h, conf2 = 0;
                float skew2 = 0;
                unsigned char *r = orient ? rotate(px, w, h, c, orient, &nw, &nh) : px;
                char *text2 = recognize(api, r, nw, nh, c, deskew, &conf2, &skew2);
                if (r != px) free(r);
                if (SCORE(text2, conf2) > SCORE(text, conf)) {
                    TessDeleteText(text);
                    text = text2; conf = conf2; skew = skew2; deg = orient; sauvola = 0;
                } else {
                    TessDeleteText(text2);
                }
            }
        }
        double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = now(CLOCK_MONOTONIC) - w0;
        printf("{\"file\":"); json_string(argv[i]);
        printf(",\"text\":"); json_string(text ? text : "");
        printf(",\"cpu_ms\":%.1f,\"wall_ms\":%.1f,\"conf\":%d,\"osd_rotated\":%d,\"osd_conf\":%.1f,\"skew\":%.1f,\"sauvola\":%d}\n", cpu, wall, conf, deg, oconf, skew, sauvola);
        fflush(stdout);
        TessDeleteText(text);
        if (px != rgb) free(px);
        free(rgb);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "{\"init_ms\":%.1f,\"peak_rss_mib\":%.1f}\n", init_ms, ru.ru_maxrss / 1024.0);
    TessBaseAPIEnd(api);
    TessBaseAPIDelete(api);
    if (osdapi) { TessBaseAPIEnd(osdapi); TessBaseAPIDelete(osdapi); }
    return 0;
}
