/* Macros as storage-class, attribute and qualifier words (`local`,
 * `ZEXPORT`, `FAR`, `API` as zlib, Lua and SQLite write them), macros
 * with a type or a statement as argument, and a statement-like macro
 * without `;`. */
#include <stdarg.h>
#include <stdio.h>

#define local static
#define ZEXPORT
#define FAR
#define API extern
#define cast(t, e) ((t)(e))
#define TRACE(x)
#define CHECK(s)                                                             \
    if (bad) {                                                               \
        s                                                                    \
    }

static int bad;

local int helper(int x) { return x + 1; }

int ZEXPORT deflate_like(int x)
{
    const char FAR *p = cast(const char *, 0);
    TRACE(("at %d\n", x))
    CHECK(return -1;);
    return helper(x) + (p == 0);
}

API int top(int n);
API int top(int n) { return n; }

static int sum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    while (n--) /* @loop sum_args */
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

int main(void)
{
    int r = deflate_like(1) + top(2) + sum(3, 1, 2, 3);
    printf("r = %d\n", r);
    return r % 7;
}
