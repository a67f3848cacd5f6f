/* `end` on line 5 closes nothing. */
int f(int x)
{
    int y = x;
#pragma regio end nothing_open
    return y;
}
