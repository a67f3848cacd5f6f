#include <stdio.h>

#include "hdrlib.h"

static int app_twice(int x)
{
    return 2 * x;
}

int main(void)
{
    int total = 0;
    for (int k = 0; k < 4; k++)
        total += app_twice(hdr_scale(k));
    total += hdrlib_sum(3);
    printf("total %d\n", total);
    return 0;
}
