/* Definitions in a header: static inline functions with loops, inside the
 * usual extern "C" guard for C++ users. */
#ifndef FRONTEND_INLINE_H
#define FRONTEND_INLINE_H

#ifdef __cplusplus
extern "C" {
#endif

static inline int clamp(int x, int lo, int hi)
{
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}

static inline int count_bits(unsigned int v)
{
    int n = 0;
    while (v) {
        n += (int)(v & 1u);
        v >>= 1;
    }
    return n;
}

int uses_header_total(int n);

#ifdef __cplusplus
}
#endif

#endif
