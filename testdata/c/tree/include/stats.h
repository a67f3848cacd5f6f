#ifndef TREE_STATS_H
#define TREE_STATS_H

#include "vec.h"

struct stats {
    double min, max, mean;
};

struct stats stats_of(const double *xs, size_t n);
double scale_all(const double *xs, size_t n);
double norm_total(const struct vec *v, size_t n);
extern const double tree_weights[4];

#endif
