/* Known, machine-independent overheads (wall-clock spins) for the
 * overhead analysis test (tests/e2e/overhead.rs). The work is the
 * same at every team size p, so what the parallel run adds is overhead:
 *   - a serial phase of SERIAL_MS before the parallel region: loss of
 *     parallelism SERIAL_MS * (p - 1) / p;
 *   - an imbalanced phase: IMB_MS of work split so that thread t spins
 *     IMB_MS * (t + 1) / (p (p + 1) / 2), then an explicit barrier where
 *     thread t waits for the last one: the waits add up to
 *     IMB_MS * (p - 1) / 3, i.e. synchronisation IMB_MS * (p - 1) / (3 p)
 *     in wall time;
 *   - a contended critical section: HOLD_MS of work inside it, HOLD_MS / p
 *     per thread. The k-th thread to get in waits k turns to enter, and
 *     after leaving it waits p - 1 - k turns at the implicit barrier that
 *     ends the parallel region: (p - 1) turns of HOLD_MS / p per thread,
 *     i.e. synchronisation HOLD_MS * (p - 1) / p in wall time.
 * At p = 2: loss of parallelism SERIAL_MS / 2 = 100 ms, synchronisation
 * IMB_MS / 6 + HOLD_MS / 2 = 50 + 100 = 150 ms (barrier 50 + 50 at the
 * implicit barrier, critical 50), and the total overhead
 * T_2 - T_1 / 2 = (200 + 200 + 200) - 700 / 2 = 250 ms: nothing is left
 * unidentified but fork/join and measurement noise. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define SERIAL_MS 200.0
#define IMB_MS 300.0
#define HOLD_MS 200.0

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
        int p = omp_get_num_threads();
        spin(IMB_MS * (t + 1) / (p * (p + 1) / 2.0));
#pragma omp barrier
#pragma omp critical
        {
            entered++;
            spin(HOLD_MS / p);
        }
    }
    printf("threads entered the critical section: %d\n", entered);
    return 0;
}
