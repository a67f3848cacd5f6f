/* Direct, mutual and loop-carrying recursion, for the end-to-end test.
 * The runtime folds a region entered while it is already active onto the
 * existing node; the test checks call counts and recursive-call counts
 * against gcc's -finstrument-functions ground truth, which applies the same
 * folding rule. main returns a value computed by a call in its return, and
 * an atexit handler makes calls after main has returned. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long fib(int n)
{
    return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2);
}

static unsigned long ackermann(unsigned long m, unsigned long n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
    if (n == 0)
        return 1;
    return is_odd(n - 1);
}

static int is_odd(unsigned n)
{
    if (n == 0)
        return 0;
    return is_even(n - 1);
}

/* Every call with depth > 0 runs the loop once, and the loop recurses:
 * calls per depth 4..0 are 1, 2, 4, 8, 16, so the loop starts 15 times. */
static int tree_sum(int depth)
{
    int i, s = 1;
    if (depth == 0)
        return 1;
    for (i = 0; i < 2; i++) /* @loop tree_sum */
        s += tree_sum(depth - 1);
    return s;
}

/* Recursion through a helper that is not recursive itself. */
static int countdown(int n);

static int step(int n)
{
    return countdown(n - 1) + 1;
}

static int countdown(int n)
{
    if (n <= 0)
        return 0;
    return step(n);
}

/* Runs after main has returned: its calls are measured too (the profile
 * is written after the program's own exit handlers). */
static void at_end(void)
{
    printf("at_end fib(5)=%lu\n", fib(5));
}

int main(void)
{
    int k;
    if (atexit(at_end) != 0)
        return 99;
    printf("fib(15)=%lu\n", fib(15));
    printf("ackermann(2,3)=%lu\n", ackermann(2, 3));
    printf("is_even(10)=%d is_odd(7)=%d\n", is_even(10), is_odd(7));
    for (k = 0; k < 4; k++) /* @loop main_parity */
        printf("is_odd(%d)=%d\n", k, is_odd((unsigned)k));
    printf("tree_sum(4)=%d\n", tree_sum(4));
    printf("countdown(6)=%d\n", countdown(6));
    return (int)(fib(10) % 7);
}
