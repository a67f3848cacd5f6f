/* tests/e2e/objects.rs: a traced program of two separately instrumented
 * parts (this file and ../lib) that calls the library, says "ready" and
 * waits to be killed with SIGKILL (no profile is written); enough calls to
 * flush a 64 KiB trace buffer several times. */
#include <stdio.h>
#include <unistd.h>

#include "objlib.h"

static volatile long sink;

static void killed_step(int i) { sink += lib_work(i % 4); }

int main(void) {
    for (int i = 0; i < 20000; i++)
        killed_step(i);
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
