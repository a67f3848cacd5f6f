/* Small vector helpers, defined in the header as static inline functions:
 * every translation unit that includes it gets its own copy, all described
 * by the same regions of this header. */
#ifndef TREE_VEC_H
#define TREE_VEC_H

#include <stddef.h>

struct vec {
    double x, y, z;
};

static inline double vec_dot(struct vec a, struct vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline struct vec vec_scale(struct vec a, double k)
{
    struct vec r;
    r.x = a.x * k;
    r.y = a.y * k;
    r.z = a.z * k;
    return r;
}

static inline double vec_sum_dots(const struct vec *v, size_t n)
{
    double s = 0;
    size_t i;
    for (i = 0; i < n; i++) /* @loop vec_sum_dots */
        s += vec_dot(v[i], v[i]);
    return s;
}

#endif
