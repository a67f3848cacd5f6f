static int plugin_inner(int x)
{
    return x + 3;
}

int plugin_run(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += plugin_inner(i);
    return s;
}
