/* Trace mode end to end (tests/e2e/trace.rs): records enough events to
 * flush a 64 KiB trace buffer several times, says "ready" and waits to be
 * killed with SIGKILL. */
#include <stdio.h>
#include <unistd.h>

static volatile long sink;

static void tick(long i) { sink += i; }

int main(void) {
    for (long i = 0; i < 50000; i++)
        tick(i);
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
