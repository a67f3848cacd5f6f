/* Casts that read like calls (issue 12, item 10): a parenthesised type
 * followed by a parenthesised expression, possibly split over lines, with
 * typedef names the front end cannot tell from function names. None of
 * these may be wrapped as a call with `--regions calls`; the real calls
 * beside them still are. */
#include <stdint.h>
#include <stdio.h>

typedef unsigned long ul;
typedef struct node {
    int v;
} node_t;

static int twice(int k) { return 2 * k; }

int main(void)
{
    int x = 5;
    int *p = &x;
    node_t n = {3};
    void *vp = &n;
    unsigned long v = (unsigned long)(unsigned)
        (unsigned long)p;
    unsigned long w = (ul)(unsigned)(ul)p;
    unsigned long z = (ul)
        (p);
    uintptr_t u = (uintptr_t)(p);
    int nv = ((node_t *)(vp))->v;
    const ul c = (const ul)(x);
    long q = (long)(ul)(uintptr_t)(p);
    int t = twice(x) + (*&twice)(1);
    printf("%d %d %d\n", (int)(v != 0) + (int)(w != 0) + (int)(z != 0) + (int)(u != 0),
           nv + (int)c + (int)(q != 0), t);
    return 0;
}
