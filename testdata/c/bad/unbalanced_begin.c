/* `begin` on line 5 is never closed. */
int f(int x)
{
    int y = x;
#pragma regio begin never_closed
    y *= 2;
    return y;
}
