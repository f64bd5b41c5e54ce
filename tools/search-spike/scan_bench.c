// Brute-force ranking of docs/SEARCH.md §S5: N stored 512-dimension vectors, int8 with a
// per-vector float scale (516 bytes each), against one query; the top K by cosine. The
// loops are plain C of the shape Swift's optimiser vectorises the same way (LLVM both),
// so the time is an estimate for a Swift `[Int8]` scan in a release build.
//
// Also: the same scan over float32 vectors, over 1-bit signs (XOR + popcount, the
// near-duplicate prefilter), and the rank agreement of int8, int4 and 1-bit with float32 on
// clustered synthetic vectors (top-10 overlap), since real embeddings are not at hand.
//
//   cc -O2 -o scan_bench scan_bench.c -lm            (and -O3 -march=native to compare)
//   ./scan_bench [N] [REPEATS]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define D 512
#define K 10

static double ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint64_t state = 38;
static double uniform(void) {  // xorshift64*
    state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
    return (double)((state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(uniform() + 1e-300)) * cos(6.283185307179586 * uniform()); }

static void normalise(float *v) {
    double s = 0;
    for (int j = 0; j < D; j++) s += (double)v[j] * v[j];
    s = 1 / sqrt(s);
    for (int j = 0; j < D; j++) v[j] *= (float)s;
}

// Symmetric int4 as a comparison: q = round(v / max|v| * 7) in [-7, 7], one per byte here
// (a real store would pack two per byte: 256 + 4 bytes a vector).
static float quantise4(const float *v, int8_t *q) {
    float m = 0;
    for (int j = 0; j < D; j++) m = fmaxf(m, fabsf(v[j]));
    for (int j = 0; j < D; j++) q[j] = (int8_t)lrintf(v[j] / m * 7);
    return m / 7;
}

// Symmetric int8: q = round(v / max|v| * 127), scale = max|v| / 127.
static float quantise(const float *v, int8_t *q) {
    float m = 0;
    for (int j = 0; j < D; j++) m = fmaxf(m, fabsf(v[j]));
    for (int j = 0; j < D; j++) q[j] = (int8_t)lrintf(v[j] / m * 127);
    return m / 127;
}

static int32_t dot8(const int8_t *a, const int8_t *b) {
    int32_t s = 0;
    for (int j = 0; j < D; j++) s += (int32_t)a[j] * b[j];
    return s;
}

static float dotf(const float *a, const float *b) {
    float s = 0;
    for (int j = 0; j < D; j++) s += a[j] * b[j];
    return s;
}

// Keeps the K best (score, index) pairs, best first; insertion into a short sorted list.
typedef struct { float s[K]; int i[K]; } Top;
static void top_init(Top *t) { for (int k = 0; k < K; k++) { t->s[k] = -INFINITY; t->i[k] = -1; } }
static inline void top_add(Top *t, float s, int i) {
    if (s <= t->s[K - 1]) return;
    int k = K - 1;
    while (k > 0 && t->s[k - 1] < s) { t->s[k] = t->s[k - 1]; t->i[k] = t->i[k - 1]; k--; }
    t->s[k] = s; t->i[k] = i;
}

static int overlap(const Top *a, const Top *b) {
    int n = 0;
    for (int x = 0; x < K; x++) for (int y = 0; y < K; y++) n += a->i[x] == b->i[y];
    return n;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000, repeats = argc > 2 ? atoi(argv[2]) : 20;
    // Clustered unit vectors: 2,000 centres, each item a centre plus noise, so that a
    // query (another noisy copy of a centre) has a handful of true neighbours.
    int centres = 2000;
    float *c = malloc(sizeof(float) * D * centres), *f = malloc(sizeof(float) * D * (size_t)n);
    for (int i = 0; i < centres * D; i++) c[i] = (float)gauss();
    for (int i = 0; i < centres; i++) normalise(c + (size_t)i * D);
    int8_t *q8 = malloc((size_t)D * n), *q4 = malloc((size_t)D * n);
    float *scale4 = malloc(sizeof(float) * n);
    float *scale = malloc(sizeof(float) * n);
    uint64_t *bits = malloc(sizeof(uint64_t) * (D / 64) * (size_t)n);
    for (int i = 0; i < n; i++) {
        float *v = f + (size_t)i * D, *m = c + (size_t)(i % centres) * D;
        for (int j = 0; j < D; j++) v[j] = m[j] + 0.06f * (float)gauss();
        normalise(v);
        scale[i] = quantise(v, q8 + (size_t)i * D);
        scale4[i] = quantise4(v, q4 + (size_t)i * D);
        for (int w = 0; w < D / 64; w++) {
            uint64_t b = 0;
            for (int j = 0; j < 64; j++) b |= (uint64_t)(v[w * 64 + j] > 0) << j;
            bits[(size_t)i * (D / 64) + w] = b;
        }
    }
    double t8 = 0, tf = 0, tb = 0;
    int agree8 = 0, agreeb = 0, agree4 = 0;
    for (int r = 0; r < repeats; r++) {
        float query[D];
        int8_t qq[D];
        uint64_t qb[D / 64];
        float *m = c + (size_t)((r * 7919) % centres) * D;
        for (int j = 0; j < D; j++) query[j] = m[j] + 0.06f * (float)gauss();
        normalise(query);
        quantise(query, qq);
        for (int w = 0; w < D / 64; w++) {
            uint64_t b = 0;
            for (int j = 0; j < 64; j++) b |= (uint64_t)(query[w * 64 + j] > 0) << j;
            qb[w] = b;
        }
        Top a, b, e;
        double t0 = ms();
        top_init(&a);
        for (int i = 0; i < n; i++) top_add(&a, (float)dot8(qq, q8 + (size_t)i * D) * scale[i], i);
        double t1 = ms();
        top_init(&b);
        for (int i = 0; i < n; i++) top_add(&b, dotf(query, f + (size_t)i * D), i);
        double t2 = ms();
        top_init(&e);
        for (int i = 0; i < n; i++) {
            int d = 0;
            for (int w = 0; w < D / 64; w++) d += __builtin_popcountll(qb[w] ^ bits[(size_t)i * (D / 64) + w]);
            top_add(&e, (float)-d, i);
        }
        double t3 = ms();
        Top g;
        top_init(&g);
        for (int i = 0; i < n; i++) top_add(&g, (float)dot8(qq, q4 + (size_t)i * D) * scale4[i], i);
        agree4 += overlap(&g, &b);
        t8 += t1 - t0; tf += t2 - t1; tb += t3 - t2;
        agree8 += overlap(&a, &b);
        agreeb += overlap(&e, &b);
    }
    printf("{\"n\":%d,\"int8_ms\":%.2f,\"float32_ms\":%.2f,\"bits_ms\":%.2f,"
           "\"int8_top10_agreement\":%.3f,\"int4_top10_agreement\":%.3f,\"bits_top10_agreement\":%.3f,"
           "\"int8_mib\":%.1f,\"float32_mib\":%.1f,\"bits_mib\":%.1f}\n",
           n, t8 / repeats, tf / repeats, tb / repeats, agree8 / (double)(K * repeats), agree4 / (double)(K * repeats), agreeb / (double)(K * repeats),
           (D + 4.0) * n / 1048576, 4.0 * D * n / 1048576, D / 8.0 * n / 1048576);
    return 0;
}
