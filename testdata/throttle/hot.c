/* A tiny function called 10^6 times inside a normal function: the shape
   REGIO_THROTTLE is for. `slow` is called 110,000 times too, past the
   default call threshold, but each call takes microseconds: it stays
   measured. */
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long tiny(unsigned long i)
{
    return i * 2654435761u;
}

__attribute__((noinline)) static unsigned long slow(unsigned long i)
{
    unsigned long x = i;
    for (int k = 0; k < 1000; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
    }
    sink = x;
    return x;
}

__attribute__((noinline)) static unsigned long work(unsigned long tiny_calls, unsigned long slow_calls)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < tiny_calls; i++) {
        s += tiny(i);
    }
    for (unsigned long i = 0; i < slow_calls; i++) {
        s += slow(i);
    }
    return s;
}

int main(void)
{
    unsigned long s = work(1000000, 110000);
    printf("%lu\n", s);
    return 0;
}
