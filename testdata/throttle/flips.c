/* Probe gates that change while regions are open: a recursive function
   and a tiny one it calls are throttled in the middle of the run (with a
   low REGIO_THROTTLE), the event mask is switched off and on inside a user
   region and inside a function region. Every region must still close
   where it ends, and the program's output must not change. */
#include <stdio.h>
#include <regio.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long i)
{
    return i * 2654435761u;
}

__attribute__((noinline)) static unsigned long rec(unsigned long depth, unsigned long i)
{
    unsigned long s = leaf(i);
    if (depth > 0) {
        s += rec(depth - 1, i + 1);
    }
    return s;
}

/* Entered while functions are measured; inside, only user regions are:
   its exit must still close its frame. */
__attribute__((noinline)) static unsigned long masked_inside(unsigned long n)
{
    regio_set_events("user");
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++) {
        s += rec(2, i);
    }
    regio_set_events("all");
    return s;
}

__attribute__((noinline)) static unsigned long phase(unsigned long n)
{
    unsigned long s = 0;
#pragma regio begin span
    regio_set_events("none");
    for (unsigned long i = 0; i < n; i++) {
        s += leaf(i);
    }
    regio_set_events("all");
#pragma regio end span
    return s;
}

int main(void)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < 20000; i++) {
        s += rec(3, i);
    }
    s += masked_inside(1000);
    s += phase(1000);
    sink = s;
    printf("%lu\n", s);
    return 0;
}
