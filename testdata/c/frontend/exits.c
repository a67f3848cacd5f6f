/* Every way out of a region: return (with calls in the returned
 * expression), falling off the end, goto, break and continue out of loops
 * and user regions, and returns hidden inside macros. */
#include <stdio.h>

#define CHECK(cond) do { if (!(cond)) return -1; } while (0)
#define RETURN_IF_NEG(x) if ((x) < 0) return (x)

static int square(int x) { return x * x; }

static int sum_of_squares(int n)
{
    int i, total = 0;
    for (i = 1; i <= n; i++)
        total += square(i);
    return total + square(0);
}

static int checked(int x)
{
    CHECK(x >= 0);
    RETURN_IF_NEG(x - 10);
    return x;
}

static void fall_off_end(int *out)
{
    *out += 1;
}

static int find(const int *v, int n, int want)
{
    int i;
    for (i = 0; i < n; i++) {
        if (v[i] == want)
            return i;
    }
    return -1;
}

static int goto_out(int n)
{
    int i, j, hits = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (i * j > 6)
                goto done;
            hits++;
        }
    }
done:
    return hits;
}

static int break_continue(int n)
{
    int i = 0, odd = 0;
    while (1) {
        i++;
        if (i > n)
            break;
        if (i % 2 == 0)
            continue;
        odd++;
    }
    do i--; while (i > 0);
    return odd;
}

static int user_exits(int n)
{
    int i, acc = 0;
    for (i = 0; i < n; i++) {
#pragma regio begin body
        if (i == 2)
            continue;
        if (i == 5) {
            break;
        }
        acc += i;
#pragma regio end body
    }
#pragma regio begin tail
    if (acc > 100)
        goto out;
    acc *= 2;
    if (acc > 10)
        return acc;
#pragma regio end tail
out:
    return acc;
}

static int user_in_switch(int k)
{
    int r = 0;
    switch (k) {
    case 1:
#pragma regio begin one
        r = 10;
        if (k > 0)
            break;
        r = 11;
#pragma regio end one
        break;
    default:
        r = -1;
    }
    return r;
}

/* Not a region (skipped), but holds a user region with a return: the scope
 * guard closes it. */
#pragma regio skip
static int skipped_with_user(int n)
{
#pragma regio begin early
    if (n > 3)
        return n;
#pragma regio end early
    return 0;
}

static int nested_loops(int n)
{
    int i, j, k = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            while (k < i * j)
                k++;
    return k;
}

int main(void)
{
    int v[] = { 3, 1, 4, 1, 5 };
    int count = 0;
    fall_off_end(&count);
    printf("sum=%d\n", sum_of_squares(4));
    printf("checked=%d %d %d\n", checked(-3), checked(3), checked(30));
    printf("find=%d %d\n", find(v, 5, 4), find(v, 5, 9));
    printf("goto=%d\n", goto_out(5));
    printf("odd=%d\n", break_continue(7));
    printf("user=%d\n", user_exits(10));
    printf("switch=%d %d\n", user_in_switch(1), user_in_switch(2));
    printf("skipped=%d %d\n", skipped_with_user(5), skipped_with_user(1));
    printf("nested=%d count=%d\n", nested_loops(5), count);
    return 0;
}
