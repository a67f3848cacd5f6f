/* Old-style heads of real code (Rodinia's getopt.c and meschach):
 * - a K&R definition whose messages continue over a backslash and a
 *   DOS line end (CR LF) inside string literals: the parser reads the
 *   function as loose pieces the first time;
 * - alternative K&R / ANSI heads (`#ifndef ANSI_C`) nested in another
 *   group (`#ifndef MEX`), and `#ifdef WIDE` / `#else` heads;
 * - register, struct and several-names-per-line parameter declarations,
 *   with comments between them, and an implicit-int K&R helper. */
#include <stdio.h>

struct opt { const char *name; int has_arg; };
typedef struct row { int len; double *val; } ROW;

static int
twice(n)
     register n;                /* implicit int */
{
  return 2 * n;
}

int
scan (argc, argv, o, k)
     int argc;              /* the count */
     char *const *argv;
     const struct opt *o;
     register int k;
{
  int i, s = 0;
  for (i = 0; i < argc; i++) /* @loop scan */
    s += o->has_arg * twice(k);
  if (s > 100)
    {
      if (argv[0][0] == '-')
        {
#if defined USE_LIBIO
          fputs ("--", stderr);
          fprintf (stderr, "%s: option `--%s' doesn't allow \
an argument\n", argv[0], o->name);
#else
          fprintf (stderr, "%s: option `--%s' doesn't allow \
an argument\n", argv[0], o->name);
#endif
        }
      else
        {
#if defined USE_LIBIO
          fputs ("-", stderr);
          fprintf (stderr, "%s: option `%c%s' doesn't allow \
an argument\n", argv[0], argv[0][0], o->name);
#else
          fprintf (stderr, "%s: option `%c%s' doesn't allow \
an argument\n", argv[0], argv[0][0], o->name);
#endif
        }
    }
  while (s > 10) /* @loop scan_fold */
    s -= 10;
  return s;
}

#ifndef MEX
/* row_sum: the sum of a row */
#ifndef ANSI_C
double row_sum(r, from, to)
ROW *r;
int from, to;   /* several names, one line */
#else
double row_sum(const ROW *r, int from, int to)
#endif
{
   int j;
   double s = 0;
   if ( ! r )
   {       printf("*** NULL row ***\n");   return 0; }
   for ( j = from; j < to; j++ ) /* @loop row_sum */
     s += r->val[j];
   return s;
}
#endif /* MEX */

#ifdef WIDE
static long last(long k)
#else
static int last(int k)
#endif
{
    int i, s = 0;
    for (i = 0; i < k; i++) /* @loop last */
        s += i;
    return s;
}

int main(argc, argv)
int argc;
char **argv;
{
    struct opt o = { "x", 1 };
    double v[3] = { 1, 2, 3 };
    ROW r;
    int s;
    r.len = 3;
    r.val = v;
    (void)r;
    s = scan(argc, argv, &o, 1) + (int)last(3);
#ifndef MEX
    s += (int)row_sum(&r, 0, 3);
#endif
    printf("s = %d\n", s);
    return s % 5;
}
