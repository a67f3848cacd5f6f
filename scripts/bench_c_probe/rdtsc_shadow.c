/* What work costs between two rdtsc reads, for scripts/bench_c_probe.sh
 * SHADOW=1: a probe pair's cost above two clock reads is its work placed
 * between (and around) such reads, which on a VM where rdtsc is slow need
 * not cost what the same work costs elsewhere.
 *
 *   rdtsc_shadow N REPS
 *
 * For each kind of work W it times `rdtsc; W; rdtsc` against `rdtsc;
 * rdtsc` (same process, interleaved, N iterations per repetition) and
 * prints the median added time per iteration and its ratio to the rdtsc
 * pair; then W in a loop alone, where independent iterations overlap (a
 * throughput, not a latency). Kinds: 32 and 128 dependent adds, 128 adds in
 * four independent chains, 8 loads from one line, from 8 lines, from 8
 * pages, and a chain of 8 dependent loads (within one line, across 8
 * pages). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

volatile uint64_t shadow_sink;
static char *mem;

#define X4(x) x x x x
#define X16(x) X4(x) X4(x) X4(x) X4(x)
#define ADDS32 X16("add $1,%0\n\t") X16("add $1,%0\n\t")
#define ADDS4x32                                                                   \
    X16("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3\n\t")                   \
    X16("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3\n\t")

/* The kinds of work, each a statement using i and acc. */
#define W_ADD32 { uint64_t r = i; __asm__ volatile(ADDS32 : "+r"(r)); acc += r; }
#define W_ADD128 { uint64_t r = i; __asm__ volatile(ADDS32 ADDS32 ADDS32 ADDS32 : "+r"(r)); acc += r; }
#define W_IND128                                                                       \
    {                                                                                  \
        uint64_t r0 = i, r1 = i, r2 = i, r3 = i;                                       \
        __asm__ volatile(ADDS4x32 : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3));           \
        acc += r0 + r1 + r2 + r3;                                                      \
    }
#define W_LINE8                                                                        \
    {                                                                                  \
        volatile uint64_t *p = (uint64_t *)mem;                                        \
        acc += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];                  \
    }
#define W_LINES8                                                                       \
    {                                                                                  \
        volatile uint64_t *p = (uint64_t *)mem;                                        \
        acc += p[0] + p[8] + p[16] + p[24] + p[32] + p[40] + p[48] + p[56];            \
    }
#define W_PAGES8                                                                       \
    {                                                                                  \
        volatile char *p = mem + 65536;                                                \
        acc += p[0] + p[4096] + p[8192] + p[12288] + p[16384] + p[20480] + p[24576] +  \
               p[28672];                                                               \
    }
#define W_CHAIN(base)                                                                  \
    {                                                                                  \
        char **p = (char **)(base);                                                    \
        for (int k = 0; k < 8; k++) {                                                  \
            __asm__ volatile("" : "+r"(p));                                            \
            p = (char **)*p;                                                           \
        }                                                                              \
        acc += (uint64_t)p;                                                            \
    }
#define W_CHAIN8 W_CHAIN(mem)
#define W_CHAIN8PAGES W_CHAIN(mem + 65536)

#define KIND(name, work)                                                               \
    __attribute__((noinline)) static uint64_t between_##name(long n)                   \
    {                                                                                  \
        uint64_t acc = 0;                                                              \
        for (long i = 0; i < n; i++) {                                                 \
            uint64_t a = rdtsc();                                                      \
            work;                                                                      \
            uint64_t b = rdtsc();                                                      \
            acc += b - a;                                                              \
        }                                                                              \
        return acc;                                                                    \
    }                                                                                  \
    __attribute__((noinline)) static uint64_t alone_##name(long n)                     \
    {                                                                                  \
        uint64_t acc = 0;                                                              \
        for (long i = 0; i < n; i++) {                                                 \
            __asm__ volatile("" ::: "memory");                                         \
            work;                                                                      \
        }                                                                              \
        return acc;                                                                    \
    }

KIND(none, {})
KIND(add32, W_ADD32)
KIND(add128, W_ADD128)
KIND(ind128, W_IND128)
KIND(line8, W_LINE8)
KIND(lines8, W_LINES8)
KIND(pages8, W_PAGES8)
KIND(chain8, W_CHAIN8)
KIND(chain8pages, W_CHAIN8PAGES)

typedef uint64_t (*loop_fn)(long);

static double per_iter(loop_fn f, long n)
{
    double t0 = now_ns();
    shadow_sink = f(n);
    return (now_ns() - t0) / n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000L;
    int reps = argc > 2 ? atoi(argv[2]) : 40;
    static const char *names[] = {"add32",  "add128", "ind128", "line8",
                                  "lines8", "pages8", "chain8", "chain8pages"};
    loop_fn between[] = {between_add32, between_add128, between_ind128, between_line8,
                         between_lines8, between_pages8, between_chain8, between_chain8pages};
    loop_fn alone[] = {alone_add32, alone_add128, alone_ind128, alone_line8,
                       alone_lines8, alone_pages8, alone_chain8, alone_chain8pages};
    enum { NK = sizeof between / sizeof between[0] };
    mem = aligned_alloc(4096, 1 << 17);
    double *added = malloc(sizeof(double) * NK * reps), *own = malloc(sizeof(double) * NK * reps);
    double *pair = malloc(sizeof(double) * reps);
    if (reps < 1 || !mem || !added || !own || !pair)
        return 1;
    for (int i = 0; i < 1 << 17; i++)
        mem[i] = 0;
    *(char **)mem = mem; /* chain8: a pointer to itself */
    for (int k = 0; k < 8; k++)
        *(char **)(mem + 65536 + k * 4096) = mem + 65536 + ((k + 1) % 8) * 4096;
    for (int r = 0; r < reps; r++) {
        for (int k = 0; k < NK; k++) {
            double floor = per_iter(between_none, n);
            added[k * reps + r] = per_iter(between[k], n) - floor;
            own[k * reps + r] = per_iter(alone[k], n) - per_iter(alone_none, n);
            pair[r] = floor;
        }
    }
    qsort(pair, reps, sizeof(double), by_value);
    printf("# rdtsc_shadow: N=%ld REPS=%d, rdtsc pair median %.1f ns\n", n, reps, pair[reps / 2]);
    printf("%-12s %14s %12s %14s\n", "work", "between_ns", "x_pair", "alone_ns");
    for (int k = 0; k < NK; k++) {
        double *a = added + k * reps, *o = own + k * reps;
        qsort(a, reps, sizeof(double), by_value);
        qsort(o, reps, sizeof(double), by_value);
        printf("%-12s %14.1f %12.3f %14.1f\n", names[k], a[reps / 2], a[reps / 2] / pair[reps / 2],
               o[reps / 2]);
    }
    return 0;
}
