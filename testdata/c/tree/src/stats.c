#include "stats.h"

static double min2(double a, double b)
{
    return a < b ? a : b;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

struct stats stats_of(const double *xs, size_t n)
{
    struct stats s = {xs[0], xs[0], 0};
    size_t i;
    for (i = 0; i < n; i++) { /* @loop stats_of */
        s.min = min2(s.min, xs[i]);
        s.max = max2(s.max, xs[i]);
        s.mean += xs[i];
    }
    s.mean /= (double)n;
    return s;
}

static double scale(double x)
{
    return x * 2;
}

double scale_all(const double *xs, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) /* @loop scale_all */
        s += scale(xs[i]);
    return s;
}

double norm_total(const struct vec *v, size_t n)
{
    return vec_sum_dots(v, n);
}
