/* A multi-file program built by a Makefile, for the end-to-end test: the
 * test instruments the whole directory and runs `make` in the copy. */
#include <stdio.h>

#include "stats.h"
#include "vec.h"

static struct vec make(double x, double y, double z)
{
    struct vec v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

/* stats.c has a static function of the same name: two regions, one name. */
static double scale(double x)
{
    return x / 2;
}

int main(void)
{
    struct vec v[4];
    double xs[4];
    struct stats st;
    int i;
    for (i = 0; i < 4; i++) { /* @loop main_fill */
        v[i] = vec_scale(make(i, i + 1, i + 2), tree_weights[i]);
        xs[i] = vec_dot(v[i], make(1, 0, 0));
    }
    st = stats_of(xs, 4);
    printf("min=%.2f max=%.2f mean=%.2f\n", st.min, st.max, st.mean);
    printf("norm_total=%.2f\n", norm_total(v, 4));
    printf("local=%.2f\n", vec_sum_dots(v, 2));
    for (int k = 0; k < 2; k++) /* @loop main_scale */
        printf("scaled=%.2f\n", scale(xs[k]) + scale_all(xs, 4));
    return (int)st.max % 10;
}
