/* The user region begins inside the loop body (line 7) and ends after
 * the loop (line 10): it crosses the loop. */
int f(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) {
#pragma regio begin body
        s += i;
    }
#pragma regio end body
    return s;
}
