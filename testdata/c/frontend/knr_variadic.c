/* Function shapes: K&R definitions, variadic, static, inline, a function
 * returning a function pointer, and a void function that returns early. */
#include <stdarg.h>
#include <stdio.h>

int add(a, b)
int a;
int b;
{
    return a + b;
}

static double scale(x, factor)
    double x;
    int factor;
{
    return x * factor;
}

static int sum(int count, ...)
{
    va_list ap;
    int i, total = 0;
    va_start(ap, count);
    for (i = 0; i < count; i++)
        total += va_arg(ap, int);
    va_end(ap);
    return total;
}

static inline int twice(int x) { return 2 * x; }

static int inc(int x) { return x + 1; }

static int (*pick(int which))(int)
{
    if (which)
        return twice;
    return inc;
}

static void maybe_print(int x)
{
    if (x < 0)
        return;
    printf("x=%d\n", x);
}

static int *first(int *p) { return p; }

int main(void)
{
    int arr[2] = { 7, 8 };
    printf("%d %g %d\n", add(2, 3), scale(1.5, 4), sum(4, 1, 2, 3, 4));
    printf("%d %d\n", pick(1)(5), pick(0)(5));
    maybe_print(-1);
    maybe_print(3);
    printf("%d\n", *first(arr));
    return 0;
}
