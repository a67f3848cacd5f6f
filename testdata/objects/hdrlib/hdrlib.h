#ifndef HDRLIB_H
#define HDRLIB_H

/* The library's public header: an inline function that every unit
   including it compiles, the application's too. */
static inline int hdr_scale(int x)
{
    return 3 * x + 1;
}

int hdrlib_sum(int n);

#endif
