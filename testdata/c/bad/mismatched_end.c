/* `end` on line 7 names a region that is not the innermost open one. */
int f(int x)
{
    int y = x;
#pragma regio begin alpha
    y += 1;
#pragma regio end beta
    return y;
}
