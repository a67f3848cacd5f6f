/* Every way out of a region, for the end-to-end test (tests/c_end_to_end.rs).
 * `@loop NAME` marks the line of a loop statement: the test looks the marker
 * up to find the loop's line and holds the expected number of entries. The
 * program ends with exit(3) called three functions deep, inside a loop and a
 * user region, so the runtime must flush with all of them still open. */
#include <stdio.h>
#include <stdlib.h>

#define CHECK_POSITIVE(x) do { if ((x) <= 0) return -1; } while (0)
#define RETURN_SUM(a, b) return square(a) + square(b)

static int square(int x) { return x * x; }

/* A return whose expression calls a function: square runs inside the
 * region of sum_squares. */
static int sum_squares(int n)
{
    int i, s = 0;
    for (i = 1; i <= n; i++) /* @loop sum_squares */
        s += square(i);
    return s + square(n);
}

/* Falls off the end. */
static void fall_off(int *acc)
{
    *acc += 1;
}

/* goto from inside a loop and a user region to a label outside both. */
static int find_first(const int *v, int n, int key)
{
    int i;
    int found = -1;
#pragma regio begin search
    for (i = 0; i < n; i++) { /* @loop find_first */
        if (v[i] == key) {
            found = i;
            goto done;
        }
    }
#pragma regio end search
done:
    return found;
}

/* continue leaves the user region but not the loop; break leaves both. */
static int break_continue(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) { /* @loop break_continue */
#pragma regio begin bc_body
        if (i % 3 == 0)
            continue;
        if (i == 7)
            break;
        s += i;
#pragma regio end bc_body
    }
    return s;
}

/* A break inside a switch leaves the switch, not the loop. */
static int switch_in_loop(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) { /* @loop switch_in_loop */
        switch (i % 3) {
        case 0:
            s += 1;
            break;
        case 1:
            continue;
        default:
            s += 10;
            break;
        }
        s *= 2;
    }
    return s;
}

/* Early return from two nested loops. */
static int early_return_nested(int n, int target)
{
    int i, j;
    for (i = 0; i < n; i++) { /* @loop ern_outer */
        j = 0;
        while (j < n) { /* @loop ern_inner */
            if (i * j == target)
                return i * 100 + j;
            j++;
        }
    }
    return -1;
}

/* continue in a do-while jumps to the condition; the loop has no braces
 * around its inner while. */
static int do_loop(int n)
{
    int k = 0, s = 0;
    do { /* @loop do_loop */
        k++;
        if (k % 2)
            continue;
        s += k;
    } while (k < n);
    while (s > 100) /* @loop do_loop_tail */
        s -= 7;
    return s;
}

/* Returns hidden in macros. */
static int checked_double(int x)
{
    CHECK_POSITIVE(x);
    return 2 * x;
}

static int macro_sum(int a, int b)
{
    if (a == b)
        RETURN_SUM(a, a);
    RETURN_SUM(a, b);
}

/* Several exits from a user region: return from inside it and goto to a
 * label after its end. */
static int classify(int x)
{
#pragma regio begin classify_body
    if (x < 0)
        return -1;
    if (x == 0)
        goto zero;
#pragma regio end classify_body
    return 1;
zero:
    return 0;
}

/* A goto from outside into a loop body: the loop cannot be a region (its
 * entry probe would be jumped over), so the instrumenter leaves it out. */
static int into_loop(int n)
{
    int i = 0, s = 0;
    if (n > 2)
        goto middle;
    for (i = 0; i < n; i++) { /* @loop into_loop */
        s += 1;
    middle:
        s += 10;
    }
    return s;
}

/* A goto backwards re-enters a loop (a C99 for with a declaration), and an
 * endless loop is left by return. */
static int retry(int n)
{
    int tries = 0;
again:
    for (int i = 0; i < n; i++) { /* @loop retry_for */
        if (i == 1 && tries < 2) {
            tries++;
            goto again;
        }
    }
    for (;;) { /* @loop retry_forever */
        if (tries++ > 5)
            return tries;
    }
}

/* GNU statement expression with a return inside. */
static int stmt_expr(int x)
{
    int y = ({
        int t = square(x);
        if (t > 100)
            return -1;
        t + 1;
    });
    return y;
}

static void die_with(int code)
{
    printf("exiting with %d\n", code);
    exit(code);
}

static void finish(int total)
{
    int i;
    for (i = 0; i < 3; i++) { /* @loop finish */
#pragma regio begin finish_step
        printf("step %d\n", i);
        if (i == 2)
            die_with(total);
#pragma regio end finish_step
    }
}

int main(void)
{
    int v[] = {4, 8, 15, 16, 23, 42};
    int acc = 0;
    int i;

    printf("sum_squares(4)=%d\n", sum_squares(4));
    for (i = 0; i < 3; i++) /* @loop main_fall */
        fall_off(&acc);
    printf("acc=%d\n", acc);
    printf("find 15 -> %d\n", find_first(v, 6, 15));
    printf("find 5 -> %d\n", find_first(v, 6, 5));
    printf("break_continue=%d\n", break_continue(10));
    printf("switch_in_loop=%d\n", switch_in_loop(7));
    printf("ern=%d\n", early_return_nested(5, 6));
    printf("ern=%d\n", early_return_nested(3, 100));
    printf("do_loop=%d\n", do_loop(30));
    printf("checked=%d\n", checked_double(5));
    printf("checked=%d\n", checked_double(-2));
    printf("macro_sum=%d\n", macro_sum(2, 3));
    printf("macro_sum=%d\n", macro_sum(4, 4));
    printf("classify=%d\n", classify(-5));
    printf("classify=%d\n", classify(0));
    printf("classify=%d\n", classify(9));
    printf("into_loop=%d\n", into_loop(1));
    printf("into_loop=%d\n", into_loop(5));
    printf("retry=%d\n", retry(3));
    printf("stmt_expr=%d\n", stmt_expr(3));
    printf("stmt_expr=%d\n", stmt_expr(60));
    finish(acc);
    printf("not reached\n");
    return 0;
}
