/* Statement-like macro uses without a trailing `;` as the unbraced body
 * of a statement head on the same line (`if (...) ERR_EXIT(x)`, as in
 * an AVI reader), and a file-scope macro that only declares (its
 * argument ends with the `;`, as Lua's `LUAI_DDEC(...)`). */
#include <stdio.h>
#include <string.h>

#define DDEC(dec) extern dec
#define ERR_EXIT(x) \
{ \
   fail_count++; \
   return (x); \
}
#define STEP(n) (n)++;

DDEC(const char *const tags_[3];)
const char *const tags_[3] = {"RIFF", "AVI ", "LIST"};

static int fail_count;

static int check(const char *data, int n)
{
   int i = 0, k;
   if( n < 4 ) ERR_EXIT(-1)
   if( strncmp(data, tags_[0], 4) != 0 ) ERR_EXIT(-2)
   else STEP(i)
   for (k = 0; k < 3; k++) STEP(i) /* @loop step_for */
   while (i < 6) STEP(i) /* @loop step_while */
   for (k = 0; k < 2; k++) { /* @loop scan */
      if( strncmp(data + 4, tags_[1], 4) == 0 ) STEP(i)
      else ERR_EXIT(-3)
   }
   return i;
}

int main(void)
{
   int s = check("RIFFAVI ", 8) + check("RIF", 3) + check("RIFXAVI ", 8)
         + check("RIFFLIST", 8);
   printf("s = %d, failures = %d\n", s, fail_count);
   return s & 7;
}
