/* Directive spellings and effects: begin/end with any case, blanks after
 * `#`, line continuations and comments; nested user regions; disable and
 * enable; skip on a function and on a loop (inner loops still count). */
#include <stdio.h>

static int helper(int x) { return x + 1; }

#pragma regio skip
static int not_measured(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++)
        s += i;
    return s;
}

static int spelled(int n)
{
    int s = 0;
#pragma regio begin outer
    s += helper(n);
#  pragma  REGIO  Begin inner.part-1 /* a comment */
    s *= 2;
    #pragma regio end inner.part-1 // trailing comment
#pragma regio \
    end \
    outer
    return s;
}

static int skip_loop(int n)
{
    int i, j, s = 0;
#pragma regio skip
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            s++;
    }
    return s;
}

static void toggle(void)
{
#pragma regio disable
    helper(1);
#pragma regio enable
}

int main(void)
{
    int s = 0;
#pragma regio begin main_work
    s += not_measured(4);
    s += spelled(3);
    s += skip_loop(3);
#pragma regio end main_work
    toggle();
    printf("s=%d\n", s);
    return 0;
}
