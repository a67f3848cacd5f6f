#include <stdio.h>
#include "vec.h"

static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = vec_scaled(i);
}

int main(void)
{
    double x[1000];
    fill(x, 1000);
    printf("sum %.1f mean %.2f\n", vec_sum(x, 1000), stats_mean(x, 1000));
    return 0;
}
