/* GNU and C11-C23 syntax in function bodies. */
#include <complex.h>
#include <stdio.h>

struct bits {
    unsigned a : 3;
    unsigned : 0;
    unsigned b : 2;
};

static _Thread_local int tls = 1;

static int ranges(int c)
{
    int y = 0;
    switch (c) {
    case 'a' ... 'z':
        y = 1;
        break;
    case '0' ... '9':
        y = 2;
        break;
    default:
        break;
    }
    return y;
}

static int jumps(int c)
{
    static void *labels[] = {&&even, &&odd};
    int w = 0;
    goto *labels[c & 1];
even:
    w += 10;
odd:
    w += ({
        int q = 3;
        q;
    });
    return w;
}

static int types(int c)
{
    int x __attribute__((unused)) = 1;
    double complex z = 1.0 + 2.0 * I;
    float _Complex fz = 1.0f;
    _Atomic(long) al = 4;
    typeof(c) y = c;
    __typeof__(y) w = y;
    __int128 big = 1;
    __extension__ long long ll = 2;
    _Pragma("GCC diagnostic push")
    struct bits b = {1, 2};
    int arr<:2:> = <% 1, 2 %>;
    int long_na\
me = 4;
    _Pragma("GCC diagnostic pop")
    return y + w + (int)big + (int)ll + (int)creal(z) + (int)crealf(fz) + (int)al + tls +
           arr<:0:> + long_name + (int)b.a;
}

/* An asm label renames the symbol; the definition is of that symbol. */
extern int renamed(int) __asm__("renamed_impl");
int renamed_impl(int k);
int renamed_impl(int k) { return k + 1; }

int main(void)
{
    int s = ranges('q') + ranges('5') + jumps(0) + jumps(1) + types(2) + renamed(1);
    printf("s = %d\n", s);
    return s % 9;
}
