/* Regions a and b cross: a ends (line 8) while b, opened inside it, is
 * still open. */
int f(int x)
{
#pragma regio begin a
    x += 1;
#pragma regio begin b
#pragma regio end a
    x += 2;
#pragma regio end b
    return x;
}
