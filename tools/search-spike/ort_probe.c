// Loads an ONNX Runtime shared library at run time, as docs/SEARCH.md §S3 proposes
// (dlopen, no link-time dependency), and reports what it offers through the one part of
// the C API whose layout needs no header: OrtGetApiBase's two-pointer struct. Prints the
// library's version, the highest OrtApi version it hands out, and the time and resident
// memory that loading it cost.
//
//   cc -O2 -o ort_probe ort_probe.c -ldl
//   ./ort_probe PATH/libonnxruntime.so.1.x
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// The documented entry struct (onnxruntime_c_api.h, OrtApiBase): GetApi(version) returns
// NULL for a version the library does not support, e.g. one newer than itself.
typedef struct {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ApiBase;

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) sscanf(line + 6, "%ld", &kib);
    if (f) fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: ort_probe LIBRARY\n"); return 2; }
    long before = rss_kib();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    const ApiBase *(*getBase)(void) = (const ApiBase *(*)(void))dlsym(lib, "OrtGetApiBase");
    if (!getBase) { fprintf(stderr, "no OrtGetApiBase\n"); return 1; }
    const ApiBase *base = getBase();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint32_t highest = 0;
    // Stops at the first refusal: the library logs each refused version to stderr.
    for (uint32_t v = 1; v <= 64 && base->GetApi(v); v++) highest = v;
    printf("{\"version\":\"%s\",\"highest_api\":%u,\"dlopen_ms\":%.1f,\"rss_added_mib\":%.1f}\n",
           base->GetVersionString(), highest,
           (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6, (rss_kib() - before) / 1024.0);
    return 0;
}
