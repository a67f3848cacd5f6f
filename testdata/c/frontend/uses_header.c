/* Includes an instrumented header: the header's probes and this file's
 * share one set of declarations (the prelude guard). */
#include <stdio.h>
#include "inline.h"

int uses_header_total(int n)
{
    int i, t = 0;
    for (i = 0; i < n; i++)
        t += count_bits((unsigned int)i);
    return clamp(t, 0, 20);
}

int main(void)
{
    printf("%d %d\n", uses_header_total(8), uses_header_total(100));
    return 0;
}
