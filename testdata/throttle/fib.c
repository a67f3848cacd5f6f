/* A recursive function whose whole cost is its calls: fib(N) makes
   fib_calls(N) = fib_calls(N-1) + fib_calls(N-2) + 1 calls, all but the
   first nested in another call of fib. The first call decides what a
   recursive region costs when throttling waits for its outermost exit:
   with N = 30 that exit comes after 2,692,537 timed calls. Usage: fib [N]
   [REPEAT] (default 30 1). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
    if (n < 2) {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
    int repeat = argc > 2 ? atoi(argv[2]) : 1;
    unsigned long s = 0;
    for (int i = 0; i < repeat; i++) {
        s += fib(n);
    }
    printf("%lu\n", s);
    return 0;
}
