/* Known, machine-independent overheads (wall-clock spins) for the
 * overhead analysis test (tests/overhead_end_to_end.rs):
 *   - a serial phase of SERIAL_MS before the parallel region: loss of
 *     parallelism SERIAL_MS * (p - 1) / p;
 *   - an imbalanced phase: thread t spins (t + 1) * STEP_MS, then an
 *     explicit barrier: at p threads the barrier waits add up to
 *     STEP_MS * p * (p - 1) / 2, i.e. synchronisation STEP_MS * (p - 1) / 2
 *     in wall time;
 *   - a contended critical section: every thread holds it HOLD_MS once, so
 *     the waits add up to HOLD_MS * p * (p - 1) / 2 as well.
 * At p = 2 the expected synchronisation is (STEP_MS + HOLD_MS) / 2 and the
 * loss of parallelism SERIAL_MS / 2. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define SERIAL_MS 200.0
#define STEP_MS 100.0
#define HOLD_MS 100.0

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void spin(double ms)
{
    double end = now_ms() + ms;
    while (now_ms() < end) {
    }
}

int main(void)
{
    int entered = 0;
    spin(SERIAL_MS);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        spin((t + 1) * STEP_MS);
#pragma omp barrier
#pragma omp critical
        {
            entered++;
            spin(HOLD_MS);
        }
    }
    printf("threads entered the critical section: %s\n", entered > 0 ? "yes" : "no");
    return 0;
}
