/* A second model of an inline probe fast path, for scripts/bench_c_probe.sh
 * MODEL=1 (variant `lean_model`; inline_model.c is the first): the same
 * work as the runtime's common entry and exit (gate byte, `busy` flag,
 * stack limit and slow flag, the parent's one-entry child cache, the
 * node's open count, calls and recursive calls, the frame, exclusive and
 * inclusive time, min, max, the parent frame's child time, the throttling
 * threshold, two rdtsc reads), laid out for the shortest chains of
 * dependent loads:
 * - the thread-local slot holds the top frame pointer itself (not a
 *   thread state that holds a stack and a depth);
 * - the one-entry child cache lives in the parent's frame (copied from the
 *   node when the frame is pushed), so an entry reads TLS -> top frame ->
 *   child node;
 * - the exit loads everything it updates before its clock read, so only
 *   arithmetic and stores follow the read.
 * It is not a runtime: one thread, a root frame and one node set up by
 * hand; every slow case calls a counting stub. Linked with probe_cost.c
 * built with -DREGIO_MODEL (which calls tiny_model / tiny_model_plain and
 * tiny_model_init). */
#include <stdint.h>
#include <stdlib.h>

typedef struct lean_node {
    uint64_t calls, recursive_calls, inclusive, exclusive, min, max;
    uint32_t open, cache_id;
    struct lean_node *cache_child;
} lean_node;

typedef struct {
    uint64_t key; /* region << 1 | recursive */
    lean_node *node;
    uint64_t start, child;
    uint64_t cache_id;
    lean_node *cache_child;
    uint64_t pad[2]; /* one frame per 64-byte line */
} lean_frame;

typedef struct {
    lean_frame *top, *limit;
    uint8_t busy, slow;
} lean_thread;

static __thread lean_thread lean_current __attribute__((tls_model("initial-exec")));
static unsigned char lean_gates[16];
static const unsigned char *lean_gate_v;
static unsigned int lean_base_v;
static uint64_t lean_throttle_calls = UINT64_MAX;
volatile uint64_t lean_slow_calls;

#define LEAN_BARRIER() __asm__ volatile("" ::: "memory")

/* With a memory clobber: the exit's loads stay before the read. */
static inline __attribute__((always_inline)) uint64_t lean_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

__attribute__((noinline)) static void lean_slow(unsigned int id)
{
    lean_slow_calls += id;
}

static inline __attribute__((always_inline)) unsigned int lean_enter(unsigned int local)
{
    const unsigned char *g = lean_gate_v;
    if (g && g[local])
        return 0;
    unsigned int id = lean_base_v + local;
    lean_thread *t = &lean_current;
    lean_frame *top = t->top;
    if (t->busy | t->slow || top == t->limit || top->cache_id != id) {
        lean_slow(id);
        return id;
    }
    t->busy = 1;
    LEAN_BARRIER();
    lean_node *c = top->cache_child;
    uint32_t open = c->open;
    c->open = open + 1;
    c->calls++;
    if (open)
        c->recursive_calls++;
    lean_frame *f = top + 1;
    f->key = (uint64_t)id << 1 | (open != 0);
    f->node = c;
    f->child = 0;
    f->cache_id = c->cache_id;
    f->cache_child = c->cache_child;
    t->top = f;
    LEAN_BARRIER();
    f->start = lean_rdtsc();
    LEAN_BARRIER();
    t->busy = 0;
    return id;
}

static inline __attribute__((always_inline)) void lean_leave(const unsigned int *v)
{
    unsigned int id = *v;
    if (!id)
        return;
    lean_thread *t = &lean_current;
    lean_frame *f = t->top;
    if (t->busy | t->slow || f->key >> 1 != id) {
        lean_slow(id);
        return;
    }
    t->busy = 1;
    LEAN_BARRIER();
    lean_node *n = f->node;
    uint64_t start = f->start, child = f->child, ex = n->exclusive, in = n->inclusive;
    uint64_t mn = n->min, mx = n->max, calls = n->calls, threshold = lean_throttle_calls;
    uint32_t open = n->open - 1;
    lean_frame *p = f - 1;
    uint64_t parent_child = p->child;
    int outermost = !(f->key & 1);
    uint64_t now = lean_rdtsc();
    uint64_t dur = now > start ? now - start : 0;
    n->exclusive = ex + (dur > child ? dur - child : 0);
    if (outermost) {
        n->inclusive = in + dur;
        if (dur < mn)
            n->min = dur;
        if (dur > mx)
            n->max = dur;
    }
    n->open = open;
    p->child = parent_child + dur;
    t->top = p;
    LEAN_BARRIER();
    t->busy = 0;
    if (outermost && !open && calls >= threshold)
        lean_slow(id);
}

__attribute__((noipa)) int tiny_model(int x)
{
    const unsigned int g __attribute__((cleanup(lean_leave))) = lean_enter(1u);
    return x * 3 + 1;
}

__attribute__((noipa)) int tiny_model_plain(int x)
{
    return x * 3 + 1;
}

/* One thread, its root frame with `tiny`'s node in its cache: the state
 * after the first call. */
void tiny_model_init(void)
{
    lean_frame *s = calloc(256, sizeof *s);
    lean_node *root = calloc(1, sizeof *root), *node = calloc(1, sizeof *node);
    if (!s || !root || !node)
        abort();
    lean_base_v = 0x400000u;
    lean_gate_v = lean_gates;
    node->min = UINT64_MAX;
    s[0].node = root;
    s[0].key = UINT64_MAX;
    s[0].cache_id = lean_base_v + 1u;
    s[0].cache_child = node;
    lean_current.top = s;
    lean_current.limit = s + 255;
}
