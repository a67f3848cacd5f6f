/* An application unit that includes a .c file of its own tree and one of
   a library tree instrumented separately (the include path names the
   library's instrumented tree). */
#include <stdio.h>

#include "unity_local.c"
#include "unity_part.c"

static int app_loop(int n)
{
    int t = 0;
    for (int k = 0; k < n; k++)
        t += local_square(k);
    return t;
}

int main(void)
{
    int total = app_loop(5) + part_total(4);
    printf("total %d\n", total);
    return 0;
}
