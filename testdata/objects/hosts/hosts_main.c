/* tests/e2e/objects.rs: loads separately instrumented plugins in the order
 * of its arguments (PATH SYMBOL N triples) and calls each symbol's
 * function with N, so two processes that load them in opposite orders
 * give the same IDF different bases. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i + 2 < argc; i += 3) {
        void *h = dlopen(argv[i], RTLD_NOW);
        if (h == NULL) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        int (*f)(int) = (int (*)(int))dlsym(h, argv[i + 1]);
        if (f == NULL)
            return 3;
        total += f(atoi(argv[i + 2]));
    }
    printf("total %d\n", total);
    return 0;
}
