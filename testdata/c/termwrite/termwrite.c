/* A program with a DRG of about two thousand nodes (six functions calling
 * each other through a table, to depth 5) and buffered output, that ends with
 * exit(0) from inside its regions. The test sends SIGTERM or SIGINT while
 * the exit-time profile is being written. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long visits;

static void f0(int d);
static void f1(int d);
static void f2(int d);
static void f3(int d);
static void f4(int d);
static void f5(int d);

static void (*const fs[6])(int) = {f0, f1, f2, f3, f4, f5};

/* Each function has its own body (no shared callee), so every call path
 * of distinct functions is a DRG node of its own. */
#define VISIT(self, d)                                                     \
    do {                                                                   \
        visits++;                                                          \
        if ((d) > 0)                                                       \
            for (int k = 0; k < 6; k++)                                    \
                if (k != (self))                                           \
                    fs[k]((d)-1);                                          \
    } while (0)

static void f0(int d) { VISIT(0, d); }
static void f1(int d) { VISIT(1, d); }
static void f2(int d) { VISIT(2, d); }
static void f3(int d) { VISIT(3, d); }
static void f4(int d) { VISIT(4, d); }
static void f5(int d) { VISIT(5, d); }

static void finish(void)
{
    printf("visits %lu\n", visits);
    exit(0);
}

int main(void)
{
    for (int i = 0; i < 6; i++)
        fs[i](5);
    for (int i = 0; i < 60; i++)
        printf("line %d of the program's buffered output\n", i);
    finish();
    return 1;
}
