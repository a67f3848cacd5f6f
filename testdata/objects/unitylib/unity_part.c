/* A library source that others compile into their own units with
   `#include "unity_part.c"` (amalgamation or unity-build style); the
   library's tree is instrumented on its own. */
static int part_weight(int x)
{
    int w = 0;
    for (int i = 0; i <= x; i++)
        w += i % 3;
    return w;
}

int part_total(int n)
{
    int t = 0;
    for (int k = 0; k < n; k++)
        t += part_weight(k);
    return t;
}
