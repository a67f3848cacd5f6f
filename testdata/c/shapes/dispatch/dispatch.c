/* An interpreter loop written with macros, as Lua's lvm.c writes it:
 * `vmdispatch (op) {` expands to a `switch`, `vmcase(OP_X) {` to a case
 * label and a block. tree-sitter reads those blocks as nested function
 * definitions; they are none, and function probes there would be left by
 * `break` (or a computed `goto`) without their exit. The function is read
 * again with each macro read as what it starts, and measured whole. */
#define vmdispatch(o) switch (o)
#define vmcase(l) case l:
#define vmbreak break
#define vmfetch() { i = *pc++; }

enum { OP_LOAD, OP_ADD, OP_RET };

static int helper(int x) { return x + 1; }

static int run(const int *pc, int n)
{
    int r = 0;
    for (;;) { /* @loop vm_loop */
        int i;
        vmfetch();
        vmdispatch (i) {
            vmcase(OP_LOAD) {
                r = helper(r);
                vmbreak;
            }
            vmcase(OP_ADD) {
                r += n;
                vmbreak;
            }
            vmcase(OP_RET) {
                return r;
            }
        }
    }
}

int main(void)
{
    static const int prog[] = { OP_LOAD, OP_ADD, OP_LOAD, OP_RET };
    int r = 0;
    for (int k = 0; k < 1000; k++) /* @loop runs */
        r = run(prog, 3);
    return r;
}
