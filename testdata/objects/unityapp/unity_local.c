/* A source of the application's own tree that unity_app.c includes (a
   unity build: the same IDF as its includer). */
static int local_square(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += x;
    return s;
}
