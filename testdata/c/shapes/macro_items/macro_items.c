/* File-scope macro invocations that define functions or declarations with
 * no trailing `;`, and macros used as storage-class or attribute words. */
#include <stdio.h>

#define MAKE_GETTER(T, N)                                                    \
    static T get_##N(const T *p) { return *p; }
#define DEFINE_OP(name, op)                                                  \
    static int name(int a, int b) { return a op b; }
#define extern_ extern
#define EXPORT_

MAKE_GETTER(int, int)
DEFINE_OP(add, +)
DEFINE_OP(mul, *)

extern_ int counter;
int counter = 2;

EXPORT_ long combine(long x)
{
    int v = 3;
    return x + add(get_int(&v), counter) + mul(2, 2);
}

int main(void)
{
    long r = combine(1);
    printf("r = %ld\n", r);
    return (int)(r % 4);
}
