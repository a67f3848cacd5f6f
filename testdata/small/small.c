/* Small functions (issue 16 §2): `half` (1 statement) and `clamp01` (3)
 * are straight-line and tiny, so `instrument` leaves them unmeasured by
 * default and lists them in the IDF (aux.skipped "small");
 * `--small-functions` measures them. `accumulate` has a loop and `main`
 * is the program: always measured. Prints 166.5 either way. */
#include <stdio.h>

static double half(double x) { return 0.5 * x; }

static int clamp01(int x)
{
    if (x < 0)
        return 0;
    return x > 1 ? 1 : x;
}

static double accumulate(int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += half((double)clamp01(i % 3 - 1));
    return s;
}

int main(void)
{
    printf("%.1f\n", accumulate(1000));
    return 0;
}
