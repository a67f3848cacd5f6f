/* Loops that cannot be wrapped in a block: a jump from outside could land
 * inside them (Duff's device, a goto into a loop body). They are left
 * alone with a warning; their functions and other loops are instrumented. */
#include <stdio.h>

static void copy(int *to, const int *from, int count)
{
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0: do { *to++ = *from++;
                 /* fall through */
    case 3:      *to++ = *from++;
                 /* fall through */
    case 2:      *to++ = *from++;
                 /* fall through */
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

static int retry(int n)
{
    int tries = 0, i = 0;
    if (n > 2)
        goto again;
    for (i = 0; i < n; i++) {
again:
        tries++;
        if (tries > 3)
            break;
    }
    for (i = 0; i < 2; i++)
        tries += 10;
    return tries;
}

int main(void)
{
    int a[7] = { 1, 2, 3, 4, 5, 6, 7 }, b[7] = { 0 };
    int i;
    copy(b, a, 7);
    for (i = 0; i < 7; i++)
        printf("%d ", b[i]);
    printf("\nretry=%d %d\n", retry(1), retry(5));
    return 0;
}
