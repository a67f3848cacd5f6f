#include "vec.h"

/* A function a macro writes: only the preprocessed path measures it. */
#define SCALER(name, factor) \
    double name(int i) { return (double)(factor) * i; }

SCALER(vec_scaled, SCALE)

double vec_sum(const double *x, int n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
