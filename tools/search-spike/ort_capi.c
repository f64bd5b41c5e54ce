// The C-API path of docs/SEARCH.md §S3 end to end: dlopen an ONNX Runtime library (no
// link-time dependency), take OrtApi at the header's version (ORT_API_VERSION of the
// official onnxruntime_c_api.h, here Debian 13's 1.21 header), load a model from a file,
// run it on one input, and report load time, run time and resident memory. This is what
// a Swift target would do through a C shim; the header is the only thing it needs.
//
//   cc -O2 -I HEADER_DIR -o ort_capi ort_capi.c -ldl
//   ./ort_capi LIBRARY MODEL.onnx THREADS [RUNS]     (input "image" or "text" by model)
#include <onnxruntime_c_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const OrtApi *ort;

static double ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double status_mib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) sscanf(line + strlen(key), "%ld", &kib);
    if (f) fclose(f);
    return kib / 1024.0;
}

static void check(OrtStatus *s, const char *what) {
    if (!s) return;
    fprintf(stderr, "%s: %s\n", what, ort->GetErrorMessage(s));
    exit(1);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: ort_capi LIBRARY MODEL THREADS [RUNS]\n"); return 2; }
    int threads = atoi(argv[3]), runs = argc > 4 ? atoi(argv[4]) : 7;
    double rss0 = status_mib("VmRSS:"), t0 = ms();
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    const OrtApiBase *(*getBase)(void) = (const OrtApiBase *(*)(void))dlsym(lib, "OrtGetApiBase");
    const OrtApiBase *base = getBase();
    ort = base->GetApi(ORT_API_VERSION);
    if (!ort) { fprintf(stderr, "library %s lacks API %d\n", base->GetVersionString(), ORT_API_VERSION); return 1; }
    OrtEnv *env;
    check(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "obscura", &env), "CreateEnv");
    OrtSessionOptions *so;
    check(ort->CreateSessionOptions(&so), "CreateSessionOptions");
    check(ort->SetIntraOpNumThreads(so, threads), "SetIntraOpNumThreads");
    check(ort->SetInterOpNumThreads(so, 1), "SetInterOpNumThreads");
    check(ort->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL), "SetSessionGraphOptimizationLevel");
    double t1 = ms(), rss1 = status_mib("VmRSS:");
    OrtSession *session;
    check(ort->CreateSession(env, argv[2], so, &session), "CreateSession");
    double t2 = ms(), rss2 = status_mib("VmRSS:");

    OrtAllocator *alloc;
    check(ort->GetAllocatorWithDefaultOptions(&alloc), "GetAllocatorWithDefaultOptions");
    char *in_name, *out_name;
    check(ort->SessionGetInputName(session, 0, alloc, &in_name), "SessionGetInputName");
    check(ort->SessionGetOutputName(session, 0, alloc, &out_name), "SessionGetOutputName");
    OrtMemoryInfo *mem;
    check(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem), "CreateCpuMemoryInfo");
    OrtValue *input = NULL;
    float *pixels = NULL;
    int32_t ids[77] = {49406, 320, 2117, 536, 3424, 49407};  // "a beach at sunset"
    if (!strcmp(in_name, "image")) {
        int64_t shape[4] = {1, 3, 224, 224};
        size_t n = 3 * 224 * 224;
        pixels = malloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) pixels[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        check(ort->CreateTensorWithDataAsOrtValue(mem, pixels, n * sizeof(float), shape, 4,
                                                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input), "CreateTensor");
    } else {
        // The text length the graph takes (77, or less for a graph cut to the query).
        OrtTypeInfo *info;
        const OrtTensorTypeAndShapeInfo *tensor;
        int64_t dims[2];
        check(ort->SessionGetInputTypeInfo(session, 0, &info), "SessionGetInputTypeInfo");
        check(ort->CastTypeInfoToTensorInfo(info, &tensor), "CastTypeInfoToTensorInfo");
        check(ort->GetDimensions(tensor, dims, 2), "GetDimensions");
        ort->ReleaseTypeInfo(info);
        int64_t shape[2] = {1, dims[1] > 0 ? dims[1] : 77};
        check(ort->CreateTensorWithDataAsOrtValue(mem, ids, shape[1] * sizeof(int32_t), shape, 2,
                                                  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, &input), "CreateTensor");
    }
    const char *ins[1] = {in_name}, *outs[1] = {out_name};
    double first = 0, best = 1e9, total = 0;
    float e0 = 0;
    for (int r = 0; r <= runs; r++) {
        OrtValue *output = NULL;
        double a = ms();
        check(ort->Run(session, NULL, ins, (const OrtValue *const *)&input, 1, outs, 1, &output), "Run");
        double d = ms() - a;
        if (r == 0) first = d; else { total += d; if (d < best) best = d; }
        float *e;
        check(ort->GetTensorMutableData(output, (void **)&e), "GetTensorMutableData");
        e0 = e[0];
        ort->ReleaseValue(output);
    }
    printf("{\"version\":\"%s\",\"api\":%d,\"model\":\"%s\",\"threads\":%d,\"runtime_load_ms\":%.1f,"
           "\"runtime_rss_mib\":%.1f,\"session_ms\":%.0f,\"session_rss_mib\":%.1f,\"first_run_ms\":%.1f,"
           "\"run_ms_mean\":%.1f,\"run_ms_best\":%.1f,\"peak_rss_mib\":%.1f,\"embedding0\":%.6f}\n",
           base->GetVersionString(), ORT_API_VERSION, argv[2], threads, t1 - t0, rss1 - rss0, t2 - t1, rss2 - rss1,
           first, runs ? total / runs : 0, best, status_mib("VmHWM:"), e0);
    ort->ReleaseValue(input);
    ort->ReleaseMemoryInfo(mem);
    ort->ReleaseSession(session);
    ort->ReleaseSessionOptions(so);
    ort->ReleaseEnv(env);
    printf("{\"rss_after_release_mib\":%.1f}\n", status_mib("VmRSS:"));
    free(pixels);
    return 0;
}
