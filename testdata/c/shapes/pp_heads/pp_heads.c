/* Every statement head of issue 13 (`for`, `while`, `if`, `else`, a
 * label) followed by each kind of preprocessor line before its body:
 * `#if`/`#else`/`#endif` alternatives, `#pragma GCC diagnostic`, a
 * `#define` and the null directive `#`. pp_between.c has one of each;
 * this file has the other pairs, written the way old numerical codes
 * write them (a tolerance picked per precision, a warning silenced for
 * one statement, a constant defined where it is first used). */
#include <stdio.h>

#ifdef WIDE
typedef double real;
#else
typedef float real;
#endif

static real weights[6] = {1, 2, 3, 4, 5, 6};

/* Alternatives after each head. */
static real settle(int n)
{
    real s = 0;
    int i = 0;
    while (i < n) /* @loop w_alt */
#ifdef WIDE
        s += weights[i++] * 2;
#else
        s += weights[i++];
#endif
    if (s > 10)
#ifdef WIDE
        s -= 10;
#else
        s -= 5;
#endif
    else
#if defined(WIDE) && WIDE > 1
        s += 100;
#else
        s += 1;
#endif
    goto out;
out:
#ifdef WIDE
    s *= 2;
#else
    s *= 3;
#endif
    return s;
}

/* `#pragma GCC diagnostic` lines after each head. */
static int quiet(int n)
{
    int i, t = 0;
    for (i = 0; i < n; i++) /* @loop for_diag */
#pragma GCC diagnostic push
        t += i;
#pragma GCC diagnostic pop
    if (t > 3)
#pragma GCC diagnostic ignored "-Wunused-value"
        t--;
    else
#pragma GCC diagnostic ignored "-Wunused-value"
        t++;
    goto tail;
tail:
#pragma GCC diagnostic ignored "-Wunused-value"
    t += 2;
    return t;
}

/* A `#define` after each head. */
static int defined_here(int n)
{
    int i, t = 0;
    for (i = 0; i < n; i++) /* @loop for_define */
#define STEP 3
        t += STEP;
    while (t > 20) /* @loop while_define */
#define SHRINK 7
        t -= SHRINK;
    if (t < 0)
        t = 0;
    else
#define BUMP 1
        t += BUMP;
    goto end;
end:
#define LAST 4
    t += LAST;
    return t;
}

/* The null directive `#` after each head. */
static int nulls(int n)
{
    int i, t = 0;
    for (i = 0; i < n; i++) /* @loop for_null */
#
        t += 2;
    while (t > 9) /* @loop while_null */
#
        t -= 4;
    if (t == 0)
#
        t = 1;
    goto fin;
fin:
#
    t *= 5;
    return t;
}

int main(void)
{
    int r = (int)settle(4) + quiet(5) + defined_here(6) + nulls(7);
    printf("r = %d\n", r);
    return r % 7;
}
