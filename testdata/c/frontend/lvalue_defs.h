/* Lower-case function-like macros that expand to lvalues. The front end
 * is given only lvalue.c (as when a header lies outside the tree), so
 * it cannot know these are macros. */
struct grid {
    int v[4];
};
#define tgp(g, t) ((g)->v[t])
#define cell(g) ((g)->v[0])
/* Keeps its argument: a `void` call in it looks like a used value. */
#define keep_value(x) x
