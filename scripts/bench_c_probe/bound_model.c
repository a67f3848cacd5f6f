/* A lower bound, not a probe Regio could ship, for scripts/bench_c_probe.sh
 * MODEL=1 (variant `bound_model`): the least a probe that keeps a stack of
 * frames does per pair. Entry: the thread-local top frame, the parent's
 * cached child compared with the region, calls + 1, push, rdtsc. Exit:
 * rdtsc, inclusive += duration, pop. No gate, no `busy` flag (so not
 * signal safe), no exclusive time, min, max, recursion, stack limit or
 * throttling. What it costs above two rdtsc is what any DRG probe pays at
 * least on the machine. Linked with probe_cost.c built with -DREGIO_MODEL. */
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint64_t calls, inclusive;
} bound_node;

typedef struct {
    bound_node *node;
    uint64_t start, cache_id;
    bound_node *cache_child;
} bound_frame;

static __thread bound_frame *bound_top __attribute__((tls_model("initial-exec")));
volatile uint64_t bound_slow_calls;

static inline __attribute__((always_inline)) uint64_t bound_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

__attribute__((noinline)) static void bound_slow(unsigned int id)
{
    bound_slow_calls += id;
}

static inline __attribute__((always_inline)) unsigned int bound_enter(unsigned int id)
{
    bound_frame *t = bound_top;
    if (t->cache_id != id) {
        bound_slow(id);
        return id;
    }
    bound_node *c = t->cache_child;
    c->calls++;
    bound_frame *f = t + 1;
    f->node = c;
    bound_top = f;
    f->start = bound_rdtsc();
    return id;
}

static inline __attribute__((always_inline)) void bound_leave(const unsigned int *v)
{
    (void)v;
    bound_frame *f = bound_top;
    bound_node *n = f->node;
    uint64_t start = f->start;
    uint64_t now = bound_rdtsc();
    n->inclusive += now - start;
    bound_top = f - 1;
}

__attribute__((noipa)) int tiny_model(int x)
{
    const unsigned int g __attribute__((cleanup(bound_leave))) = bound_enter(0x400001u);
    return x * 3 + 1;
}

__attribute__((noipa)) int tiny_model_plain(int x)
{
    return x * 3 + 1;
}

void tiny_model_init(void)
{
    bound_frame *s = calloc(64, sizeof *s);
    if (!s || !(s[0].cache_child = calloc(1, sizeof(bound_node))))
        abort();
    s[0].cache_id = 0x400001u;
    bound_top = s;
}
