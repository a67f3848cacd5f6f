/* Code in every #if branch is instrumented: a function defined differently
 * in two branches, a loop under #ifdef inside a function, statements under
 * #if inside loops, and a branch that is never compiled. */
#include <stdio.h>

#define FAST 1

#ifdef FAST
static int work(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++)
        s += i;
    return s;
}
#else
static int work(int n)
{
    int s = 0;
    while (n > 0) {
        s += n;
        n--;
    }
    return s;
}
#endif

static int mixed(int n)
{
    int i, s = 0;
#ifdef FAST
    for (i = 0; i < n; i++) {
#if FAST > 0
        s += 2;
#else
        s += 1;
#endif
    }
#else
    i = 0;
    do {
        s++;
    } while (++i < n);
#endif
    return s;
}

#if 0
static int unused(void)
{
    int k;
    for (k = 0; k < 3; k++)
        ;
    return k;
}
#endif

int main(void)
{
    int i;
    for (i = 1; i <= 3; i++) {
#if defined(FAST)
        printf("work(%d)=%d\n", i, work(i));
#elif defined(SLOW)
        printf("slow\n");
#else
        printf("none\n");
#endif
    }
    printf("mixed=%d\n", mixed(4));
    return 0;
}
