/* K&R (old-style) definitions, called from kinds.c. */

int knr_add(a, b)
int a;
int b;
{
    return a + b;
}

long knr_scale(x, k)
    long x;
    int k;
{
    long r = 0;
    while (k-- > 0) /* @loop knr_scale */
        r += x;
    return r;
}
