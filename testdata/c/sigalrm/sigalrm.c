/* A SIGALRM handler every 50 us calls an instrumented function while the
 * main loop runs instrumented functions: the handler interrupts the
 * program between probes and inside probes. The program counts its own
 * calls and handler invocations for the test to hold the profile against.
 * Iterations: argv[1] (default 200000). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;
static unsigned long calls_work, calls_step;

static void on_tick(void)
{
    for (int i = 0; i < 16; i++)
        sink += (unsigned long)i;
}

static void handler(int sig)
{
    (void)sig;
    ticks++;
    on_tick();
}

static unsigned long step(unsigned long x)
{
    calls_step++;
    return x * 2654435761u + 1;
}

static unsigned long work(unsigned long x)
{
    calls_work++;
    for (int i = 0; i < 4; i++)
        x = step(x);
    return x;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 200000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGALRM, &sa, NULL) != 0)
        return 2;
    struct itimerval on = {{0, 50}, {0, 50}};
    struct itimerval off = {{0, 0}, {0, 0}};
    if (setitimer(ITIMER_REAL, &on, NULL) != 0)
        return 2;
    unsigned long x = 1;
    for (long i = 0; i < iterations; i++)
        x = work(x);
    setitimer(ITIMER_REAL, &off, NULL);
    printf("work %lu step %lu ticks %ld x %lu\n", calls_work, calls_step,
           (long)ticks, x);
    return 0;
}
