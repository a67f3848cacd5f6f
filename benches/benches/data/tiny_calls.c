/* Many tiny instrumented calls (benches/compensation.sh): CALLS calls of a
 * function doing ~50-100 ns of work, so the probes are a large share of
 * the instrumented run and compensation has to remove them.
 *
 * Usage: tiny_calls [CALLS] [chain|table]
 *   chain: a dependent multiply chain (latency-bound: an out-of-order core
 *          runs much of the probes' work in the shadow of the chain);
 *   table: independent loads, adds and stores over a small table
 *          (throughput-bound: the probes' work competes for the same units).
 * `noinline` keeps the calls in the plain build too, so both builds execute
 * the same calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned table[1024];

__attribute__((noinline)) static unsigned long chain(unsigned long x)
{
    for (int i = 0; i < 40; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL + (x >> 29);
    return x;
}

__attribute__((noinline)) static unsigned long scan(unsigned long x)
{
    unsigned off = (unsigned)x & 511;
    unsigned long s = 0;
    for (int i = 0; i < 96; i++) {
        unsigned v = table[off + i] + (unsigned)i;
        table[off + i] = v ^ (unsigned)x;
        s += v;
    }
    return s;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 5000000L;
    int use_table = argc > 2 && strcmp(argv[2], "table") == 0;
    unsigned long acc = 1;
    if (use_table) {
        for (long i = 0; i < calls; i++)
            acc += scan(acc + (unsigned long)i);
    } else {
        for (long i = 0; i < calls; i++)
            acc ^= chain(acc + (unsigned long)i);
    }
    printf("%lu\n", acc & 0xff);
    return 0;
}
