/* Preprocessor lines between a statement's head and its body, as real
 * code writes them: `#if` alternatives after a loop head, a `#pragma GCC`
 * line, a `#define` and the null directive `#` between `if`/`else` and
 * their statements, a label followed by a conditional. */
#include <stdio.h>

#ifdef WIDE
typedef long acc_t;
#else
typedef int acc_t;
#endif

static acc_t sum_upto(int n)
{
    acc_t s = 0;
    int i;
    for (i = 0; i < n; i++) /* @loop alt_body */
#ifdef WIDE
        s += 2 * (acc_t)i;
#else
        s += i;
#endif
    return s;
}

static int shrink(int s)
{
    while (s > 100) /* @loop diag_body */
#pragma GCC diagnostic push
        s -= 10;
#pragma GCC diagnostic pop
    return s;
}

static int adjust(int s)
{
    if (s > 5)
#define TWO 2
        s += TWO;
    else
#
        s -= 1;
    goto done;
done:
#if 1
    s++;
#endif
    return s;
}

static int plain(int k)
{
    int i, t = 0;
    for (i = 0; i < k; i++) { /* @loop plain */
        t += i;
    }
    return t;
}

int main(void)
{
    int total = (int)sum_upto(10) + shrink(250) + adjust(3) + plain(4);
    printf("total %d\n", total);
    return total % 7;
}
