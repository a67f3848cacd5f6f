/* Function shapes, for the end-to-end test: static, static inline, C99
 * inline with an external definition, variadic, GNU-style definitions with
 * the name on its own line, pointer-returning and struct-returning
 * functions, attributes, and callbacks invoked by the C library (qsort).
 * K&R definitions are in knr.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
    int lo;
    int hi;
};

int knr_add();
long knr_scale();

static inline int clamp(int x, int lo, int hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* C99 inline: this file also provides the external definition. */
inline int twice(int x)
{
    return 2 * x;
}
extern inline int twice(int x);

static int sum_ints(int count, ...)
{
    va_list ap;
    int i, s = 0;
    va_start(ap, count);
    for (i = 0; i < count; i++) /* @loop sum_ints */
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static void
log_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

static struct pair
make_pair(int a, int b)
{
    struct pair p;
    p.lo = a < b ? a : b;
    p.hi = a < b ? b : a;
    return p;
}

static const char *
name_of(int k)
{
    static const char *const names[] = {"zero", "one", "two"};
    return names[clamp(k, 0, 2)];
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int (*pick(int which))(int)
{
    return which ? twice : NULL;
}

__attribute__((noinline)) static unsigned
checksum(const int *v, size_t n)
{
    unsigned h = 17;
    size_t i;
    for (i = 0; i < n; i++) /* @loop checksum */
        h = h * 31u + (unsigned)v[i];
    return h;
}

int main(int argc, char **argv)
{
    int v[] = {9, 3, 7, 1, 8, 2, 6};
    struct pair p = make_pair(7, 3);
    int (*f)(int) = pick(1);
    (void)argv;
    log_line("argc=%d\n", argc);
    log_line("sum=%d\n", sum_ints(4, 1, 2, 3, 4));
    log_line("pair=%d,%d\n", p.lo, p.hi);
    log_line("name=%s %s\n", name_of(1), name_of(7));
    log_line("twice=%d f=%d\n", twice(21), f(5));
    qsort(v, sizeof v / sizeof v[0], sizeof v[0], compare_ints);
    log_line("sorted=%d..%d checksum=%u\n", v[0], v[6], checksum(v, 7));
    log_line("knr=%d %ld\n", knr_add(2, 3), knr_scale(4L, 5));
    return clamp(knr_add(40, 2), 0, 9);
}
