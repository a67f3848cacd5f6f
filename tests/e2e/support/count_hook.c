/* Ground truth for Regio's end-to-end tests.
 *
 * Link this into a program compiled with -finstrument-functions (-O0, so
 * nothing is inlined away). It rebuilds the dynamic call graph of functions
 * with the rules of the Regio runtime: a node is (parent node, function);
 * a function entered while already active on the stack is counted on that
 * existing node as a recursive call instead of growing the graph. At exit
 * (normal return from main or exit() from anywhere: destructors run in both
 * cases) the graph is written to the file named by $REGIO_COUNT_FILE, one
 * node per line:  <node> <parent or -1> <function address> <calls> <recursive>
 * Addresses are mapped to names by the test with `nm` (link with -no-pie).
 *
 * Single-threaded programs only: no locking. Fixed tables, so an overflow
 * is reported in the file rather than corrupting memory. */
#include <stdio.h>
#include <stdlib.h>

#define HOOK __attribute__((no_instrument_function))
#define MAX_NODES 16384
#define MAX_DEPTH 65536

struct node {
    void *fn;
    int parent;
    int first_child;
    int next_sibling;
    unsigned long calls;
    unsigned long recursive;
};

static struct node nodes[MAX_NODES];
static int n_nodes;
static int stack[MAX_DEPTH];
static int depth;
/* Entries we could not record (tables full): makes the dump fail loudly. */
static unsigned long lost;

void __cyg_profile_func_enter(void *fn, void *site) HOOK;
void __cyg_profile_func_exit(void *fn, void *site) HOOK;
static void dump(void) HOOK __attribute__((destructor));

static int child_of(int parent, void *fn) HOOK;
static int child_of(int parent, void *fn)
{
    int c = parent >= 0 ? nodes[parent].first_child : -1;
    int i;
    /* Roots are chained through next_sibling starting at node 0. */
    if (parent < 0)
        c = n_nodes > 0 ? 0 : -1;
    for (; c >= 0; c = nodes[c].next_sibling)
        if (nodes[c].fn == fn)
            return c;
    if (n_nodes >= MAX_NODES)
        return -1;
    i = n_nodes++;
    nodes[i].fn = fn;
    nodes[i].parent = parent;
    nodes[i].first_child = -1;
    nodes[i].next_sibling = -1;
    if (parent >= 0) {
        nodes[i].next_sibling = nodes[parent].first_child;
        nodes[parent].first_child = i;
    } else if (i > 0) {
        nodes[i].next_sibling = nodes[0].next_sibling;
        nodes[0].next_sibling = i;
    }
    return i;
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    int i, node = -1;
    (void)site;
    if (depth >= MAX_DEPTH) {
        lost++;
        depth++;
        return;
    }
    for (i = depth - 1; i >= 0; i--) {
        if (stack[i] >= 0 && nodes[stack[i]].fn == fn) {
            node = stack[i];
            nodes[node].recursive++;
            break;
        }
    }
    if (node < 0)
        node = child_of(depth > 0 ? stack[depth - 1] : -1, fn);
    if (node < 0)
        lost++;
    else
        nodes[node].calls++;
    stack[depth++] = node;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    if (depth > 0)
        depth--;
}

static void dump(void)
{
    const char *path = getenv("REGIO_COUNT_FILE");
    FILE *f;
    int i;
    if (!path)
        return;
    f = fopen(path, "w");
    if (!f)
        return;
    if (lost)
        fprintf(f, "lost %lu\n", lost);
    for (i = 0; i < n_nodes; i++)
        fprintf(f, "%d %d %lx %lu %lu\n", i, nodes[i].parent,
                (unsigned long)nodes[i].fn, nodes[i].calls, nodes[i].recursive);
    fclose(f);
}
