/* Call sites for `--regions io` and `--regions calls`: statement calls,
 * used values, discarded values (comma, cast to void, for update), calls
 * nested in arguments, calls through pointers, `?:` branches (left alone),
 * compile-time contexts (never calls), and a statement expression. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

static int counter;

static int next(void) { return ++counter; }
static void bump(int by) { counter += by; }
static int twice(int x) { return 2 * x; }

struct ops {
    int (*fn)(int);
};

static void log_value(int v)
{
    /* In a void function `return f();` discards the value. */
    if (v < 0)
        return bump(0);
    printf("value %d\n", v);
}

static int evaluate(int n)
{
    struct ops o;
    int i, a[4], total;
    o.fn = twice;
    total = next() + twice(next());
    bump(1);
    (void)next();
    total += (bump(2), next());
    for (i = 0; i < n; i = i + 1, bump(1))
        a[i % 4] = o.fn(i);
    total += (int)sizeof(next()) + MAX(a[0], a[1]);
    total += n > 2 ? twice(n) : next();
    total += __extension__ ({ int t = twice(3); t + 1; });
    log_value(total);
    return twice(total) + (int)strlen("abc");
}

static jmp_buf env;

static int with_setjmp(void)
{
    if (setjmp(env) == 0)
        longjmp(env, 1);
    return 1;
}

int main(void)
{
    char line[32];
    FILE *f = tmpfile();
    if (f == NULL)
        return 1;
    fputs("hello\n", f);
    rewind(f);
    if (fgets(line, sizeof line, f) != NULL)
        printf("read %s", line);
    fclose(f);
    printf("eval %d\n", evaluate(5));
    printf("setjmp %d counter %d\n", with_setjmp(), counter);
    return 0;
}
