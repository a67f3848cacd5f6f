/* Conditional lines inside initializers, argument lists and expressions,
 * and alternative function headers sharing one body. */
#include <stdio.h>

static const int table[] = {
    1, 2,
#ifdef BIG
    3, 4,
#endif
    5};

static int scale(int a, int b)
{
    (void)b;
    return a +
#ifdef EXTRA
           b *
#endif
           2;
}

static int pick(int a, int b)
{
    return scale(a,
#if 1
                 b
#else
                 a
#endif
    );
}

#ifdef WIDE
static long twice(long k)
#else
static int twice(int k)
#endif
{
    return 2 * k + table[0];
}

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 3; i++) { /* @loop main */
        s += pick(i, table[2]) + (int)twice(i);
    }
    printf("s = %d\n", s);
    return s % 5;
}
