#include <dlfcn.h>
#include <stdio.h>

#include "objlib.h"

static int app_step(int x)
{
    return x - 1;
}

/* Runs before the constructors of default priority, among them the one
   that registers this file's IDF: its probes have no base yet. */
__attribute__((constructor(101))) static void app_early(void)
{
    (void)app_step(0);
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int k = 0; k < 3; k++)
        total += app_step(k) + lib_work(4);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW);
        if (h == NULL) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        int (*run)(int) = (int (*)(int))dlsym(h, "plugin_run");
        if (run == NULL)
            return 3;
        total += run(5);
        total += run(2);
    }
    printf("total %d\n", total);
    return 0;
}
