/* A syntax error on line 5 (gcc refuses it too): the function around it
 * is left as written with a `not measured` warning, the rest is measured. */
int ok(int x)
{
    int y = x;
    return y + ;
}

int fine(int x)
{
    return x + 1;
}
