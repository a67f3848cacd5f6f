/* File-scope macro invocations that define functions or declarations with
 * no trailing `;`, and macros used as storage-class or attribute words.
 * `METHODS(...)` is the shape of SQLite's `IOMETHODS(...)`: a table of
 * function pointers, a finder function that returns it (its name pasted
 * with `##`) and a constant pointer to that function, all from one use. */
#include <stdio.h>

#define MAKE_GETTER(T, N)                                                    \
    static T get_##N(const T *p) { return *p; }
#define DEFINE_OP(name, op)                                                  \
    static int name(int a, int b) { return a op b; }
struct methods {
    int version;
    int (*op)(int, int);
};
#define METHODS(FINDER, TABLE, OP)                                           \
    static const struct methods TABLE = {1, OP};                             \
    static const struct methods *FINDER##_impl(const char *name)             \
    {                                                                        \
        (void)name;                                                          \
        return &TABLE;                                                       \
    }                                                                        \
    static const struct methods *(*const FINDER)(const char *) = FINDER##_impl;
#define extern_ extern
#define EXPORT_

MAKE_GETTER(int, int)
DEFINE_OP(add, +)
DEFINE_OP(mul, *)
METHODS(adder, add_methods, add)

extern_ int counter;
int counter = 2;

EXPORT_ long combine(long x)
{
    int v = 3;
    return x + add(get_int(&v), counter) + mul(2, 2) + adder("unix")->op(0, 0);
}

int main(void)
{
    long r = combine(1);
    printf("r = %ld\n", r);
    return (int)(r % 4);
}
