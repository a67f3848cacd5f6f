/* Statement-like macro uses without a trailing `;`, a `}`/`else` pair
 * split by `#endif`, a `#define` whose string holds a comment opener. */
#include <stdio.h>

#define PUT_MSG(s) printf("%s\n", s);
#define SET_NODE(t, x) t = (x);
#define OPENER "/* not a comment"

static int classify(int a)
{
    int t;
    if (a < 0)
        PUT_MSG("negative")
    SET_NODE(t, a)
#ifdef STRICT
    if (t) {
        t++;
    } else
#else
    if (t) {
        t--;
    } else
#endif
    {
        t += 2;
    }
    return t;
}

int main(void)
{
    int s = classify(-1) + classify(0) + classify(5) + (OPENER[0] == '/');
    printf("s = %d\n", s);
    return s;
}
