/* Conditional groups nested in the branches of others inside functions
 * (SQLite's `sqlite3_release_memory` with an `#if 0` inside an
 * `#ifdef ... #else`, zlib's braided CRC loop whose body holds `#if N > 1`
 * groups inside `#ifdef W`, SQLite's `unixSync` with alternative `if`
 * heads under `#ifndef`, Rodinia's `do { ... }` whose `} while (...);`
 * tail has alternatives, as the body of a `for`): the loops and calls
 * inside are measured, each nested group whole in its branches; a macro
 * word or the alternative heads send each function to the second
 * reading. Built with and without the macros. */
#include <stdio.h>

#define SQLITE_API
#define ZEXPORT
#define local static
#define FAR

static int released;

static int release_some(int n)
{
    released += n;
    return n / 2;
}

SQLITE_API int release_memory(int n)
{
#ifdef MEMORY_MANAGEMENT
    int got = 0;
#if 0
    got += release_some(n * 100);
#endif
    got += release_some(n - got);
    return got;
#else
    (void)n;
    return 0;
#endif
}

#ifndef N
#define N 3
#endif

local unsigned long ZEXPORT braided(const unsigned char FAR *buf, int len)
{
    unsigned long crc = 0;
#ifdef W
    unsigned c0 = 0, c1 = 0, c2 = 0;
    int blks = len / N;
    while (blks-- > 0) { /* @loop braid */
        c0 = c0 * 31 + buf[0];
#if N > 1
        c1 = c1 * 37 + buf[1];
#if N > 2
        c2 = c2 * 41 + buf[2];
#endif
#endif
        buf += N;
        len -= N;
    }
    crc = c0 ^ c1 ^ c2;
#endif
    while (len-- > 0) /* @loop tail */
        crc = crc * 33 + *buf++;
    return crc;
}

static int sync_dir(int fd)
{
    int rc = 0;
    (void)fd;
#ifndef DISABLE_DIRSYNC
    if (fd >= 0) {
        int i;
        for (i = 0; i < fd; i++) /* @loop sync_each */
            rc += release_some(i);
#ifdef VXWORKS
        if (release_some(fd) == -1)
#else
        if (release_some(fd))
#endif
        {
            rc = -rc;
        }
    }
#endif
    return rc;
}

local int read_all(int n)
{
    int i, tries = 0;
    for (i = 0; i < n; i++) /* @loop read_each */
        do { /* @loop retry */
            tries++;
#ifdef FLOAT_INPUT
        } while (release_some(tries) % 3 != 0);
#else
        } while (tries % 3 != 0);
#endif
    return tries;
}

int main(void)
{
    static const unsigned char data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int r = release_memory(8);
    unsigned long c = braided(data, 10);
    r += sync_dir(3);
    r += read_all(2);
    printf("r = %d c = %lu released = %d\n", r, c, released);
    return (r + (int)(c % 5)) & 7;
}
