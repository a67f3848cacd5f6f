#include "hdrlib.h"

/* The library uses its own header's inline function too. */
int hdrlib_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += hdr_scale(i);
    return s;
}
