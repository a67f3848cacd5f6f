/* REGIO_SNAPSHOT end to end (tests/e2e/snapshot.rs), --regions functions.
 * `snapshot N`: N steps of about 20 ms each (step: N calls, each making
 * 1000 calls of `inner`: in trace mode about 8 KB of records a step, so a
 * small REGIO_TRACE_BUFFER is written out every few steps), then "done".
 * `snapshot`: steps for ever (the test kills it with SIGKILL); prints
 * "ready" after the first 5 steps.
 * `snapshot thread-exit`: main starts a thread that makes 5 steps and
 * leaves by pthread_exit; the process must still end (status 0) when the
 * thread does.
 * `snapshot forks`: 20 children one after the other, each making one step
 * and exiting; every child must leave its profile, even one forked while
 * the parent's snapshot thread was writing. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void inner(int i) {
    for (int k = 0; k < (i & 3); k++)
        sink += k * 0.5;
}

static void step(void) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 1000; i++)
        inner(i);
    nanosleep(&ts, NULL);
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 5; i++)
        step();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "thread-exit") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            return 2;
        printf("main leaves\n");
        fflush(stdout);
        pthread_exit(NULL);
    }
    if (argc > 1 && strcmp(argv[1], "forks") == 0) {
        for (int i = 0; i < 20; i++) {
            fflush(stdout);
            pid_t child = fork();
            if (child == 0) {
                step();
                return 0;
            }
            int status = 0;
            if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
                return 3;
        }
        printf("forked\n");
        return 0;
    }
    long n = argc > 1 ? atol(argv[1]) : -1;
    for (long i = 0; n < 0 || i < n; i++) {
        step();
        if (n < 0 && i == 4) {
            printf("ready\n");
            fflush(stdout);
        }
    }
    printf("done\n");
    return 0;
}
