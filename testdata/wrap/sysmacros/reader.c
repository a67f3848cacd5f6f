/* A reader in the style of old benchmark input routines: every function
 * uses a macro of a system header inside a statement (NULL, EOF, stderr),
 * where `cc -E` writes line markers in the middle of an expression. The
 * wrapper's preprocessed path must still measure these functions. */
#include <stdio.h>

static int count_lines(const char *name)
{
  FILE *fp = fopen(name, "r");
  int n = 0, c;
  if (fp == NULL)
    return -1;
  while ((c = fgetc(fp)) != EOF)
    if (c == '\n')
      n++;
  fclose(fp);
  return n;
}

static void report(int n)
{
  fprintf(stderr, "lines: %d\n", n);
  printf("%d\n", n);
}

int main(int argc, char **argv)
{
  int total = 0, i;
  for (i = 1; i < argc; i++) {
    int n = count_lines(argv[i]);
    report(n);
    total += n;
  }
  return total > 0 ? 0 : 3;
}
