/* Regio directives, for the end-to-end test: nested user regions with
 * several exits, disable/enable (also across a function boundary), and skip
 * on a function and on a loop. gcc's -finstrument-functions cannot see the
 * directives, so the test states how the measured graph differs from gcc's:
 * `skipped` is no region (its callees hang off its caller), and calls made
 * while measurement is disabled are not recorded. */
#include <stdio.h>

static int leaf(int x)
{
    return x + 1;
}

/* skip applies to the function only: its loop is still a region. */
#pragma regio skip
static int skipped(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) /* @loop skipped */
        s += leaf(i);
    return s;
}

/* skip on the outer loop: the inner loop still counts, once per outer
 * iteration. */
static int skip_outer_loop(int n)
{
    int i, j, s = 0;
#pragma regio skip
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) /* @loop skip_outer_loop_inner */
            s += j;
    }
    return s;
}

/* Nested user regions; continue leaves the inner one, goto leaves both and
 * the loop. */
static int nested_regions(int n)
{
    int i, s = 0;
#pragma regio begin outer_r
    for (i = 0; i < n; i++) { /* @loop nested_regions */
#pragma regio begin inner_r
        if (i == 1)
            continue;
        if (i == 3) {
            s += 100;
            goto out;
        }
        s += leaf(i);
#pragma regio end inner_r
    }
#pragma regio end outer_r
    return s;
out:
    return -s;
}

/* A return from inside two user regions whose expression calls leaf: leaf
 * runs inside both regions, then both close. */
static int early(int x)
{
#pragma regio begin early_a
#pragma regio begin early_b
    if (x > 0)
        return leaf(x);
#pragma regio end early_b
    x = -x;
#pragma regio end early_a
    return x;
}

/* Case-insensitive keywords, a name with dots and dashes, a break that
 * leaves the region and its loop. */
static int spelled(int n)
{
    int s = 0;
    while (1) { /* @loop spelled */
#pragma regio BEGIN Mixed.Case-1
        s += leaf(n);
        if (s > 10)
            break;
#pragma regio End Mixed.Case-1
    }
    return s;
}

/* Disabled around one call: the second leaf call is not recorded. */
static int half_measured(int x)
{
    int r = leaf(x);
#pragma regio disable
    r += leaf(x);
#pragma regio enable
    return r;
}

/* Measurement is switched off here and back on by the caller: this
 * function's own exit happens while disabled. */
static int switch_off(int x)
{
    int r = leaf(x);
#pragma regio disable
    return r + leaf(r);
}

int main(void)
{
    int r = 0;
#pragma regio begin main_work
    r += skipped(3);
    r += skip_outer_loop(4);
    r += nested_regions(5);
    r += nested_regions(2);
    r += early(4);
    r += early(-4);
    r += spelled(3);
#pragma regio end main_work
    r += half_measured(1);
    r += switch_off(2);
    r += leaf(100);
#pragma regio enable
    r += leaf(200);
    printf("r=%d\n", r);
    return r % 256 == 0 ? 1 : r % 7;
}
