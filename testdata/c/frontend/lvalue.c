/* With `--regions calls`: a "call" that is assigned to, incremented or
 * whose address is taken is a macro expanding to an lvalue, never a
 * call; gcc builtins (fabs, memset) are no calls either. Real calls
 * beside them are still measured. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lvalue_defs.h"

static int next_index(int i) { return (i + 1) % 4; }
static int shown;
static void show(int v) { shown += v; }

int main(void)
{
    struct grid g;
    struct grid *gp = &g;
    int *first;
    memset(&g, 0, sizeof g);
    tgp(gp, next_index(0)) = 7;
    cell(gp)++;
    first = &cell(gp);
    *first += (int)fabs(-2.0);
    keep_value(show(cell(gp)));
    printf("%d %d %d\n", tgp(gp, 1), cell(gp), shown);
    return 0;
}
