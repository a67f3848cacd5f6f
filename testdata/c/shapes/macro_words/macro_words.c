/* Macros as storage-class, attribute and qualifier words (`local`,
 * `ZEXPORT`, `FAR`, `API` as zlib, Lua and SQLite write them), macros
 * with a type or a statement as argument, and a statement-like macro
 * without `;`, a macro that expands to the start of an expression
 * (SQLite's `TESTONLY( rc = ) f(x);`), `offsetof` in a function whose head
 * starts with a macro word, and a macro word before `struct`. */
#include <stdarg.h>
#include <stddef.h>
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

#define SQLITE_WSD
#define TESTONLY(X) X
#define vmdispatch(o) switch (o)
#define vmcase(l) case l:
#define vmbreak break
#define each(i, n) for (i = 0; i < n; i++)

static int bad;

struct conf {
    int a;
    int b[4];
};
static SQLITE_WSD struct stat_type {
    int now[3];
} stat_v = { {0,} };

local int helper(int x) { return x + 1; }

int ZEXPORT deflate_like(int x)
{
    const char FAR *p = cast(const char *, 0);
    TRACE(("at %d\n", x))
    CHECK(return -1;);
    return helper(x) + (p == 0);
}

local int member_at(void)
{
    int rc = 0;
    TESTONLY( rc = ) helper((int)offsetof(struct conf, b[2]));
    stat_v.now[0] = rc;
    return rc;
}

local int dispatch(int op)
{
    int r = 0, i;
    vmdispatch(op) {
        vmcase(1) {
            r = helper(r);
            vmbreak;
        }
        vmcase(2) {
            each(i, 4) { /* @loop each_macro */
                if (i == 2)
                    break;
                r = helper(r);
            }
            vmbreak;
        }
    }
    return r;
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
    int r = deflate_like(1) + top(2) + sum(3, 1, 2, 3) + (member_at() == 13)
            + dispatch(2) * 10 + dispatch(1);
    printf("r = %d\n", r);
    return r % 7;
}
