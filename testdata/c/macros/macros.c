/* Function-like macros around and inside instrumented code, for the
 * end-to-end test. Loops written inside a macro body are not visible to a
 * source-level instrumenter (they are not regions), but returns inside macro
 * bodies must still close the enclosing function's region, and calls made
 * by macro expansions are calls like any other. */
#include <stdio.h>

#define SQUARE(x) ((x) * (x))
#define SWAP(a, b)      \
    do {                \
        int swap_t_ = (a); \
        (a) = (b);      \
        (b) = swap_t_;  \
    } while (0)
#define SUM_UPTO(n, out)                    \
    do {                                    \
        int sum_i_;                         \
        (out) = 0;                          \
        for (sum_i_ = 1; sum_i_ <= (n); sum_i_++) \
            (out) += sum_i_;                \
    } while (0)
#define RETURN_IF_NEG(x, v)  \
    do {                     \
        if ((x) < 0)         \
            return (v);      \
    } while (0)
#define TWICE(f, x) (f(x) + f(x))
#define LOG_VALUE(label, v) printf("%s=%d\n", (label), (v))
#define FIND_OR_RETURN(arr, n, key)            \
    do {                                       \
        int find_i_;                           \
        for (find_i_ = 0; find_i_ < (n); find_i_++) \
            if ((arr)[find_i_] == (key))       \
                return find_i_;                \
    } while (0)

static int inc(int x)
{
    return x + 1;
}

/* A return inside a macro that contains a loop. */
static int index_of(const int *arr, int n, int key)
{
    FIND_OR_RETURN(arr, n, key);
    return -1;
}

static int checked_sum(int n)
{
    int s;
    RETURN_IF_NEG(n, -1000 + inc(n));
    SUM_UPTO(n, s);
    return s;
}

static int ordered_diff(int a, int b)
{
    if (a < b)
        SWAP(a, b);
    return a - b;
}

/* A loop whose header and body are macro uses. */
static int sum_squares_twice(int n)
{
    int i, s = 0;
    for (i = 0; i < SQUARE(n); i++) /* @loop sum_squares_twice */
        s += TWICE(inc, i);
    return s;
}

int main(void)
{
    int data[] = {3, 1, 4, 1, 5, 9, 2, 6};
    int k;
    LOG_VALUE("index_of(5)", index_of(data, 8, 5));
    LOG_VALUE("index_of(7)", index_of(data, 8, 7));
    LOG_VALUE("checked_sum(10)", checked_sum(10));
    LOG_VALUE("checked_sum(-4)", checked_sum(-4));
    LOG_VALUE("ordered_diff(2,9)", ordered_diff(2, 9));
    LOG_VALUE("ordered_diff(9,2)", ordered_diff(9, 2));
    for (k = 1; k <= 3; k++) /* @loop main */
        LOG_VALUE("sum_squares_twice", sum_squares_twice(k));
    return TWICE(inc, 1) + 1;
}
