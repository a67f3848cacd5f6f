/* A C program calling the Fortran library of ../flib, each instrumented
 * on its own (tests/e2e/objects.rs): the library registers its IDF from
 * its first instrumented procedure, with no Fortran main program. */
#include <stdio.h>

int flwork(int n);

int main(void) {
    int total = 0;
    for (int k = 0; k < 3; k++)
        total += flwork(4);
    printf("total %d\n", total);
    return 0;
}
