/* A macro from a header on the include path defines a function. */
#include <stdio.h>
#include "defs.h"

DEFINE_TWICE(twice)

int main(void)
{
    printf("%d\n", twice(21));
    return 0;
}
