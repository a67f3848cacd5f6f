/* Runs the same code paths N times, N from $REGIO_TEST_ITERS (default
 * 1000), for the profile-size test: the profile of a run with 10x more
 * iterations must have exactly the same size. argv stays the same, so the
 * command line recorded in the profile does not differ either. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long h, unsigned long v)
{
    return (h ^ v) * 1099511628211ul;
}

static unsigned long inner(unsigned long h, int k)
{
    int j;
    for (j = 0; j < k; j++) /* @loop inner */
        h = mix(h, (unsigned long)j);
    return h;
}

static unsigned long rec(unsigned long h, int depth)
{
    if (depth == 0)
        return mix(h, 7);
    return rec(mix(h, (unsigned long)depth), depth - 1);
}

int main(void)
{
    const char *env = getenv("REGIO_TEST_ITERS");
    long n = env ? atol(env) : 1000;
    long i;
    unsigned long h = 14695981039346656037ul;
    for (i = 0; i < n; i++) { /* @loop main */
        h = inner(h, (int)(i % 5) + 1);
        if (i % 3 == 0)
            h = rec(h, 4);
    }
    printf("h=%lu\n", h % 1000003ul);
    /* main falls off its end: status 0 (C99), and its region still closes */
}
