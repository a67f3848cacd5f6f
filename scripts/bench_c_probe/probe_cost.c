/* What a C program pays per probe pair: a tiny function called N times
 * with probes (`tiny`, instrumented by `instrument --regions functions`, or
 * by gcc's -finstrument-functions) against the same function without them
 * (`tiny_plain`), and two back-to-back rdtsc reads, all in one process.
 *
 *   probe_cost N REPS
 *
 * prints one line per repetition:
 *   rep <k> plain_ns <t> probed_ns <t> rdtsc2_ns <t>
 * each the wall time per iteration (CLOCK_MONOTONIC over N iterations).
 * The three loops run interleaved so load on a shared machine hits them
 * alike. Driven by scripts/bench_c_probe.sh. Every function but `tiny` is
 * left out of both instrumentations (`#pragma regio skip`,
 * no_instrument_function). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The C build calls the C functions below; built with -DREGIO_FORTRAN it
 * calls their Fortran twins in tiny_f.f90 (arguments by reference), with
 * -DREGIO_MODEL the model of an inline fast path in inline_model.c, and
 * this file is left uninstrumented. */
#if defined(REGIO_MODEL)
/* inline_model.c: a model of an inline probe fast path (see there). */
int tiny_model(int x);
int tiny_model_plain(int x);
void tiny_model_init(void);
#define PROBED(i) tiny_model((int)(i))
#define PLAIN(i) tiny_model_plain((int)(i))
#elif defined(REGIO_FORTRAN)
int tiny_f_(const int *x);
int tiny_f_plain_(const int *x);
#define PROBED(i) ({ int v_ = (int)(i); tiny_f_(&v_); })
#define PLAIN(i) ({ int v_ = (int)(i); tiny_f_plain_(&v_); })
#else
#define PROBED(i) tiny((int)(i))
#define PLAIN(i) tiny_plain((int)(i))
#endif

/* The measured function: a call that does almost nothing, and nothing the
 * compiler may fold across calls (noipa: no inlining, cloning or
 * propagation into the caller). */
__attribute__((noipa)) int tiny(int x)
{
    return x * 3 + 1;
}

#pragma regio skip
__attribute__((noipa)) __attribute__((no_instrument_function)) int tiny_plain(int x)
{
    return x * 3 + 1;
}

#pragma regio skip
static __attribute__((no_instrument_function)) inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

#pragma regio skip
static __attribute__((no_instrument_function)) double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Keeps every result alive. */
volatile uint64_t sink;

#pragma regio skip
static __attribute__((no_instrument_function)) double loop_plain(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += (uint64_t)PLAIN(i);
    double t = now_ns() - t0;
    sink = acc;
    return t / n;
}

#pragma regio skip
static __attribute__((no_instrument_function)) double loop_probed(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += (uint64_t)PROBED(i);
    double t = now_ns() - t0;
    sink = acc;
    return t / n;
}

/* The floor of any probe pair that timestamps: two clock reads. */
#pragma regio skip
static __attribute__((no_instrument_function)) double loop_rdtsc2(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        uint64_t a = rdtsc();
        uint64_t b = rdtsc();
        acc += b - a;
    }
    double t = now_ns() - t0;
    sink = acc;
    return t / n;
}

#pragma regio skip
__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000L;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
#ifdef REGIO_MODEL
    tiny_model_init();
#endif
    /* Warm-up: starts the runtime and creates the node outside the timed
     * loops. */
    loop_probed(1000);
    loop_plain(1000);
    for (int k = 0; k < reps; k++) {
        double p = loop_plain(n);
        double q = loop_probed(n);
        double r = loop_rdtsc2(n);
        printf("rep %d plain_ns %.3f probed_ns %.3f rdtsc2_ns %.3f\n", k, p, q, r);
    }
    return 0;
}
