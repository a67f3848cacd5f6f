/* The smallest instrumented program worth the name: main and one function
 * called a few times, so start-up, one node per region and the exit write
 * are all there is. */
#include <stdio.h>

static int work(int x) { return x * 2 + 1; }

int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += work(i);
    printf("%d\n", s);
    return 0;
}
