/* A function with a loop (small straight-line functions are not
   measured by default). */
long work(int n)
{
    long s = 0;
    for (int i = 1; i <= n; i++)
        s += (long)i * i;
    return s;
}
