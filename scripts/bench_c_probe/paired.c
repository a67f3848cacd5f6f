/* Every probe variant in one process, for scripts/bench_c_probe.sh
 * PAIRED=1: the real probe (probe_cost.c instrumented, built with
 * `instrument flags`, its `tiny` renamed `tiny_real`), the three models
 * (inline_model.c, lean_model.c, bound_model.c, their `tiny_model` renamed
 * `tiny_inline`, `tiny_lean`, `tiny_bound`) and a hook pair that reads
 * rdtsc twice through two calls (what -finstrument-functions hooks do).
 * Each repetition times, for every variant in turn, the plain function, the
 * probed one and two back-to-back rdtsc reads over N calls; the ratio
 * (probed - plain) / rdtsc pair is taken within that triple, so a variant
 * and its floor see the same load, and all variants share the process
 * (same code placement of the driver, same run of the machine).
 *
 *   paired N REPS   prints per variant the median and quartiles of the
 *                   ratio over REPS repetitions, and the rdtsc pair. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int tiny_real(int x);
int tiny_inline(int x);
void tiny_inline_init(void);
int tiny_lean(int x);
void tiny_lean_init(void);
int tiny_bound(int x);
void tiny_bound_init(void);

__attribute__((noipa)) int paired_plain(int x)
{
    return x * 3 + 1;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t hook_entered, hook_total;

__attribute__((noinline)) void hook_enter(void)
{
    hook_entered = rdtsc();
}

__attribute__((noinline)) void hook_exit(void)
{
    hook_total += rdtsc() - hook_entered;
}

__attribute__((noipa)) int tiny_hooks(int x)
{
    hook_enter();
    int r = x * 3 + 1;
    hook_exit();
    return r;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

volatile uint64_t paired_sink;

static double per_call(int (*f)(int), long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += (uint64_t)f((int)i);
    double t = now_ns() - t0;
    paired_sink = acc;
    return t / n;
}

static double per_rdtsc_pair(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        uint64_t a = rdtsc();
        uint64_t b = rdtsc();
        acc += b - a;
    }
    double t = now_ns() - t0;
    paired_sink = acc;
    return t / n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 300000L;
    int reps = argc > 2 ? atoi(argv[2]) : 100;
    static const char *names[] = {"hooks_rdtsc2", "bound_model", "lean_model", "inline_model",
                                  "regio_shared"};
    int (*fns[])(int) = {tiny_hooks, tiny_bound, tiny_lean, tiny_inline, tiny_real};
    enum { NV = sizeof fns / sizeof fns[0] };
    double *x = malloc(sizeof(double) * NV * reps), *pair = malloc(sizeof(double) * reps);
    if (reps < 1 || !x || !pair)
        return 1;
    tiny_inline_init();
    tiny_lean_init();
    tiny_bound_init();
    /* Warm-up: starts the runtime and makes tiny_real's node. */
    for (int v = 0; v < NV; v++)
        per_call(fns[v], 1000);
    for (int k = 0; k < reps; k++) {
        for (int v = 0; v < NV; v++) {
            double p = per_call(paired_plain, n), q = per_call(fns[v], n);
            double r = per_rdtsc_pair(n);
            x[v * reps + k] = (q - p) / r;
            pair[k] = r;
        }
    }
    qsort(pair, reps, sizeof(double), by_value);
    printf("# paired: N=%ld REPS=%d, rdtsc pair median %.1f ns (min %.1f)\n", n, reps,
           pair[reps / 2], pair[0]);
    printf("%-14s %8s %8s %8s\n", "variant", "x_q1", "x_median", "x_q3");
    for (int v = 0; v < NV; v++) {
        double *a = x + v * reps;
        qsort(a, reps, sizeof(double), by_value);
        printf("%-14s %8.3f %8.3f %8.3f\n", names[v], a[reps / 4], a[reps / 2], a[3 * reps / 4]);
    }
    return 0;
}
