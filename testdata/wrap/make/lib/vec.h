#ifndef VEC_H
#define VEC_H
double vec_sum(const double *x, int n);
double vec_scaled(int i);
double stats_mean(const double *x, int n);
#endif
