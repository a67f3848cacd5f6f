#include <stdio.h>
#include "shapes.h"

int main(void)
{
    for (int i = 1; i <= 3; i++)
        printf("%d: %.1f %.1f\n", i, area(i), perimeter(i));
    return 0;
}
