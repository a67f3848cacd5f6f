/* A syntax error on line 5: the instrumenter must refuse the file. */
int ok(int x)
{
    int y = x;
    return y + ;
}
