/* Macro words before type names declared elsewhere (zlib's `local`,
 * `ZEXPORT`, `FAR`, `z_const`, minizip's `extern ZPOS64_T ZEXPORT f(`,
 * SQLite's `SQLITE_PRIVATE void f(FILE *out, ...)`, calling-convention
 * words), a macro that brings an `if`'s parentheses (Lua's `if EQ("x")`),
 * juxtaposed string macros (`SEP SEP`), conditional groups whose first
 * branch is no C (`#if MIN_MATCH != 3` / prose / `#endif`, and one with an
 * `#else`), and functions for other compilers (`__asm {` under
 * `_MSC_VER`, C++ under `__cplusplus`), which gcc never compiles. */
#include <stdio.h>
#include <string.h>

#define local static
#define ZEXPORT
#define FAR
#define z_const const
#define SQLITE_PRIVATE static
#define ZCALLBACK
#ifndef __cdecl
#define __cdecl
#endif
#define SEP ";"
#define MIN_MATCH 3
#define EQ(s) (strcmp(word, s) == 0)
#define UPDATE(h, c) ((h) = ((h) << 5) ^ (c))

typedef unsigned long long ZPOS64_T;
typedef unsigned short code;
typedef unsigned int z_crc_t;

static const z_crc_t table[4] = {1, 2, 3, 4};

local void write_table(FILE *out, const z_crc_t FAR *t, int k)
{
    int n;
    for (n = 0; n < k; n++) /* @loop write_table */
        fprintf(out, "%u%s", t[n], n == k - 1 ? "\n" : ", ");
}

extern ZPOS64_T ZEXPORT position_of(const char *s);
extern ZPOS64_T ZEXPORT position_of(const char *s)
{
    code const FAR *c = (code const FAR *)0;
    return (ZPOS64_T)strlen(s) + (c == 0);
}

local unsigned count_in(z_const unsigned char **buf, unsigned n)
{
    unsigned i, s = 0;
    for (i = 0; i < n; i++) /* @loop count_in */
        s += buf[0][i];
    return s;
}

SQLITE_PRIVATE void print_op(FILE *out, int pc)
{
    fprintf(out, "op %d\n", pc);
}

static long ZCALLBACK __cdecl tell_func(void *opaque)
{
    (void)opaque;
    return 7;
}

static int run_script(const char *word)
{
    int r = 0, i;
    for (i = 0; i < 2; i++) { /* @loop run_script */
        if EQ("") return r;
        else if EQ("add") r += 2;
        else if EQ("sub") {
            r -= 1;
        }
    }
    return r;
}

static int has_double_sep(const char *path)
{
    return strstr(path, SEP SEP) != NULL;
}

static unsigned fill(const char *s)
{
    unsigned h = 0;
    size_t i;
    for (i = 0; s[i]; i++) { /* @loop fill */
        UPDATE(h, (unsigned char)s[i]);
#if MIN_MATCH != 3
        Call UPDATE() MIN_MATCH-3 more times
#endif
    }
    return h;
}

static int pick(int x)
{
    int s = 0, i;
#if defined(OLD_API) && OLD_API > 1
    not C either: OLD_API would need its own loop here
#else
    for (i = 0; i < x; i++) /* @loop pick */
        s += i;
#endif
    return s;
}

#if defined(_MSC_VER)
__declspec(naked) __inline unsigned long long __cdecl hwtime(void)
{
    __asm {
        rdtsc
        ret
    }
}
#endif

#if defined(__cplusplus) && !defined(USE_LONGJMP)
static void try_call(void (*f)(void))
{
    try {
        f();
    } catch (...) {
    }
}
#endif

int main(void)
{
    unsigned char bytes[3] = {1, 2, 3};
    unsigned char *rows[1] = {bytes};
    int r = 0;
    write_table(stdout, table, 4);
    print_op(stdout, 3);
    r += (int)position_of("abc");
    r += (int)count_in((z_const unsigned char **)rows, 3);
    r += (int)tell_func(NULL);
    r += run_script("add");
    r += has_double_sep("a;;b");
    r += (int)(fill("ab") & 0xff);
    r += pick(4);
    printf("r = %d\n", r);
    return r % 7;
}
