/* The same function without the header: only the application compiles
   hdr_scale. */
int hdrlib_sum(int n);

int hdrlib_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += 3 * i + 1;
    return s;
}
