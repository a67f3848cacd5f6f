/* Conditional compilation, for the end-to-end test: built once with
 * -DFEATURE and once without, and both builds are measured. Whole functions,
 * loops, returns and calls live in #ifdef / #if / #elif / #else branches;
 * each build must count exactly the code its branches select. */
#include <stdio.h>

#ifndef LEVEL
#define LEVEL 2
#endif

static int base(int x)
{
    return x + 1;
}

#ifdef FEATURE
static int feature_work(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) /* @loop feature_work */
        s += base(i);
    return s;
}
#else
static int plain_work(int n)
{
    int s = 0;
    while (n > 0) { /* @loop plain_work */
        s += base(n);
        n--;
    }
    return s;
}
#endif

static int mixed(int n)
{
    int i, s = 0;
#ifdef FEATURE
    for (i = 0; i < n; i++) { /* @loop mixed_feature */
#if LEVEL > 1
        s += base(i);
#else
        s += i;
#endif
    }
#else
    i = 0;
    do { /* @loop mixed_plain */
        s++;
    } while (++i < n);
#endif
    return s;
}

static int early(int x)
{
#ifdef FEATURE
    if (x > 2)
        return base(x) * 10;
#endif
    return x;
}

#if defined(FEATURE) && LEVEL > 2
static int never_built(void)
{
    return 42;
}
#elif defined(FEATURE)
static int level_two(int x)
{
    return base(base(x));
}
#else
static int fallback(int x)
{
    return x - 1;
}
#endif

#if 0
static int dead_code(int n)
{
    while (n)
        n--;
    return n;
}
#endif

int main(void)
{
    int r = 0;
    int k;
#ifdef FEATURE
    r += feature_work(4);
    r += level_two(3);
#else
    r += plain_work(4);
    r += fallback(3);
#endif
    r += mixed(5);
    for (k = 0; k < 4; k++) /* @loop main */
        r += early(k);
    printf("r=%d\n", r);
#ifdef FEATURE
    printf("feature on\n");
    return 4;
#else
    printf("feature off\n");
    return 5;
#endif
}
