#ifndef HALO_H
#define HALO_H
#ifdef __cplusplus
extern "C" {
#endif
/* One ring exchange of `value` per step and a global sum: C, with MPI. */
double halo_steps(int steps, double value);
#ifdef __cplusplus
}
#endif
#endif
