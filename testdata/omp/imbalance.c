/* Waiting built into an OpenMP program, for tests/omp_end_to_end.rs:
 * thread t spins (t + 1) * STEP_MS before an explicit barrier, so at 2
 * threads thread 0 waits STEP_MS there; then each thread holds a critical
 * section HOLD_MS once, so one of them waits HOLD_MS to enter it. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define STEP_MS 80.0
#define HOLD_MS 60.0

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
    int inside = 0;
#pragma omp parallel shared(inside)
    {
        spin((omp_get_thread_num() + 1) * STEP_MS);
#pragma omp barrier
#pragma omp critical
        {
            inside++;
            spin(HOLD_MS);
        }
    }
    printf("entered: %s\n", inside > 0 ? "yes" : "no");
    return 0;
}
