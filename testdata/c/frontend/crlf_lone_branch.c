/* CRLF line endings and an OpenMP directive in a lone #ifdef (Rodinia
 * backprop shape): measured, the condition repeated with CRLF lines. A
 * second one in a group that also holds a nested group: listed, not
 * measured, its IDF end on the line. */
#include <stdio.h>

static int add(int a, int b) { return a + b; }

int main(void)
{
    int j, sum = 0;
#ifdef OPEN
    #pragma omp parallel for reduction(+: sum) schedule(static)
#endif 
    for (j = 1; j <= 4; j++) {
        sum = add(sum, j);
    }
#ifdef OPEN
#ifdef TWICE
    sum *= 1;
#endif
    #pragma omp parallel for reduction(+: sum)
#endif
    for (j = 1; j <= 4; j++)
        sum += j;
    printf("%d\n", sum);
    return 0;
}
