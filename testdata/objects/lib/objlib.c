#include "objlib.h"

static int lib_helper(int x)
{
    return x * 2 + 1;
}

int lib_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += lib_helper(i);
    return s;
}
