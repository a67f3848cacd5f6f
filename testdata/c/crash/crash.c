/* Dies by SIGSEGV deep inside nested regions, for the end-to-end test: the
 * runtime must write an incomplete profile holding the regions entered so
 * far, then die by the same signal. The regions open at the crash are main,
 * the loop in main, the user region `crash_zone`, level1, the loop in
 * level1, level2 and level3. */
#include <stdio.h>

static int warm(int x)
{
    return x * 3;
}

/* Null, but the compiler cannot prove it: a store through a pointer it
 * knows to be null may be deleted or turned into a trap instruction. */
int *volatile crash_target;

static void level3(int v)
{
    *crash_target = v;
}

static void level2(int n)
{
    printf("level2(%d)\n", n);
    fflush(stdout);
    if (n == 2)
        level3(n);
}

static void level1(int n)
{
    int i;
    for (i = 0; i <= n; i++) /* @loop level1 */
        level2(i);
}

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 5; i++) /* @loop main_warm */
        s += warm(i);
    printf("warm=%d\n", s);
    fflush(stdout);
    for (i = 0; i < 3; i++) { /* @loop main_crash */
#pragma regio begin crash_zone
        level1(i);
#pragma regio end crash_zone
    }
    printf("not reached\n");
    return 0;
}
