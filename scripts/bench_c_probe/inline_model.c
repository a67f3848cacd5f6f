/* A model of a `static inline` probe fast path in the instrumented C code,
 * for scripts/bench_c_probe.sh MODEL=1: what the probe pair would cost if
 * the runtime's common entry and exit (existing node found through the
 * parent's one-entry cache, no counters, no trace) were compiled into the
 * probe site, with no call, no PLT and the thread pointer in an
 * initial-exec TLS slot. It is not a runtime: the thread state, one frame
 * stack and two nodes are set up by hand, and every slow case calls a stub.
 * It does the same memory work per pair as runtime/src/thread.rs
 * (`enter_fast`, `open_frame`, `pop_plain`): the gate byte, the `busy`
 * flag around the probe, the stack capacity and slow-path flag, the
 * parent's cache, the node's open count, calls and recursive calls, the
 * frame's key, node, start and child time, at the exit the exclusive and
 * inclusive time, min, max, the parent frame's child time and the
 * throttling threshold; two rdtsc reads.
 *
 * Linked with probe_cost.c built with -DREGIO_MODEL (its driver then
 * calls tiny_model / tiny_model_plain and tiny_model_init). */
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint64_t key; /* region << 1 | recursive */
    void *node;
    uint64_t start, child;
} model_frame;

typedef struct {
    uint64_t cache_key;
    void *cache_child;
    uint64_t calls, recursive_calls, inclusive, exclusive, min, max;
    uint32_t open;
} model_node;

typedef struct {
    model_frame *stack;
    uint32_t depth, capacity;
    uint8_t busy, slow;
} model_thread;

static __thread model_thread *model_current __attribute__((tls_model("initial-exec")));
static unsigned char model_gates[16];
static const unsigned char *model_gate_v;
static unsigned int model_base_v;
static uint64_t model_throttle_calls = UINT64_MAX;
volatile uint64_t model_slow_calls;

#define MODEL_BARRIER() __asm__ volatile("" ::: "memory")

static inline __attribute__((always_inline)) uint64_t model_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* The out-of-line cases (new node, new thread, busy, counters, trace,
 * another frame on top, throttling decision): not taken in the timed
 * loop, counted so a model that took them shows. */
__attribute__((noinline)) static void model_slow(unsigned int id)
{
    model_slow_calls += id;
}

static inline __attribute__((always_inline)) unsigned int model_enter(unsigned int local)
{
    const unsigned char *g = model_gate_v;
    if (g && g[local])
        return 0;
    unsigned int id = model_base_v + local;
    model_thread *t = model_current;
    if (!t || t->busy) {
        model_slow(id);
        return id;
    }
    t->busy = 1;
    MODEL_BARRIER();
    uint32_t d = t->depth;
    model_frame *s = t->stack;
    model_node *parent = s[d - 1].node;
    if (t->slow || d == t->capacity || parent->cache_key != id || !parent->cache_child) {
        MODEL_BARRIER();
        t->busy = 0;
        model_slow(id);
        return id;
    }
    model_node *c = parent->cache_child;
    uint32_t open = c->open;
    c->open = open + 1;
    c->calls++;
    if (open)
        c->recursive_calls++;
    model_frame *f = &s[d];
    f->key = (uint64_t)id << 1 | (open != 0);
    f->node = c;
    f->child = 0;
    f->start = model_rdtsc();
    MODEL_BARRIER();
    t->depth = d + 1;
    MODEL_BARRIER();
    t->busy = 0;
    return id;
}

static inline __attribute__((always_inline)) void model_leave(const unsigned int *v)
{
    unsigned int id = *v;
    if (!id)
        return;
    model_thread *t = model_current;
    if (!t || t->busy) {
        model_slow(id);
        return;
    }
    t->busy = 1;
    MODEL_BARRIER();
    uint32_t d = t->depth;
    model_frame *s = t->stack;
    model_frame *f = &s[d - 1];
    uint64_t key = f->key;
    if (t->slow || key >> 1 != id) {
        MODEL_BARRIER();
        t->busy = 0;
        model_slow(id);
        return;
    }
    uint64_t now = model_rdtsc();
    model_node *n = f->node;
    uint64_t start = f->start, child = f->child;
    uint64_t dur = now > start ? now - start : 0;
    n->exclusive += dur > child ? dur - child : 0;
    int outermost = !(key & 1);
    if (outermost) {
        n->inclusive += dur;
        if (dur < n->min)
            n->min = dur;
        if (dur > n->max)
            n->max = dur;
    }
    uint32_t open = n->open - 1;
    n->open = open;
    s[d - 2].child += dur;
    MODEL_BARRIER();
    t->depth = d - 1;
    MODEL_BARRIER();
    t->busy = 0;
    if (outermost && !open && n->calls >= model_throttle_calls)
        model_slow(id);
}

__attribute__((noipa)) int tiny_model(int x)
{
    const unsigned int g __attribute__((cleanup(model_leave))) = model_enter(1u);
    return x * 3 + 1;
}

__attribute__((noipa)) int tiny_model_plain(int x)
{
    return x * 3 + 1;
}

/* One thread, its root frame, and the node of `tiny` in the root's cache:
 * the state the runtime has after the first call. */
void tiny_model_init(void)
{
    model_thread *t = calloc(1, sizeof *t);
    model_node *root = calloc(1, sizeof *root), *node = calloc(1, sizeof *node);
    if (!t || !root || !node || !(t->stack = calloc(256, sizeof(model_frame))))
        abort();
    t->capacity = 256;
    t->depth = 1;
    model_base_v = 0x400000u;
    model_gate_v = model_gates;
    node->min = UINT64_MAX;
    root->cache_key = model_base_v + 1u;
    root->cache_child = node;
    t->stack[0].node = root;
    t->stack[0].key = UINT64_MAX;
    model_current = t;
}
