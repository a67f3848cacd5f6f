/* Every OpenMP construct `--regions omp` instruments, with the visits the
 * report must show, known by construction from the team size T. An
 * `expect` comment names the regions of the directive on the next line:
 *   KIND: N        N calls in all (over every thread)
 *   KIND: each N   N calls on every one of the T threads
 * where N is an integer, `T` or `<integer>T`. tests/omp_end_to_end.rs
 * reads them. Stdout is the same for a given T whatever the schedule. */
#include <omp.h>
#include <stdio.h>

#define N 100

static int tp_counter;
#pragma omp threadprivate(tp_counter)

static long squares[16];
static int data[32];

/* Orphaned work-sharing: the for binds to the caller's team. */
static void orphan(long *sum)
{
    /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        *sum += i;
    }
}

int main(void)
{
    long total = 0, combined = 0;
    int team = 0, sect = 0, masters = 0, tasks = 0, grouped = 0, locked = 0, nested = 0, copied = 0;
    volatile int flag = 0;
    omp_lock_t lock;
    omp_nest_lock_t nlock;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nlock);

    /* expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1 */
#pragma omp parallel default(none) shared(total, team, sect, masters, tasks, grouped, locked, \
                                           nested, copied, flag, lock, nlock, squares)
    {
        /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single
        team = omp_get_num_threads();

        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for schedule(static) reduction(+ : total)
        for (int i = 0; i < N; i++)
            total += i;

        /* expect omp_sections: each 1, omp_implicit_barrier: each 1 */
#pragma omp sections
        {
            /* expect omp_section: 1 */
#pragma omp section
            {
                /* expect omp_atomic: 1 */
#pragma omp atomic
                sect += 1;
            }
            /* expect omp_section: 1 */
#pragma omp section
            {
#pragma omp atomic
                sect += 10;
            }
        }

        /* expect omp_master: 1 */
#pragma omp master
        masters++;

        /* expect omp_masked: 1 */
#pragma omp masked
        masters++;

        /* expect omp_barrier: each 1 */
#pragma omp barrier

        /* expect omp_critical: each 1, omp_critical_wait: each 1 */
#pragma omp critical
        total += 1;

        /* expect omp_critical: each 1, omp_critical_wait: each 1 */
#pragma omp critical(named)
        {
            total += 2;
        }

        /* expect omp_lock: each 1 */
        omp_set_lock(&lock);
        locked++;
        /* expect omp_unlock: each 1 */
        omp_unset_lock(&lock);
        /* expect omp_lock: each 1 */
        omp_set_nest_lock(&nlock);
        omp_set_nest_lock(&nlock);
        nested++; /* its own counter: `lock` guards `locked` */
        omp_unset_nest_lock(&nlock);
        omp_unset_nest_lock(&nlock);
        /* expect omp_lock: each 1 */
        if (omp_test_lock(&lock))
            omp_unset_lock(&lock);

        /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single nowait
        copied += 100;

        {
            int mine = 0;
            /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single copyprivate(mine)
            mine = 7;
#pragma omp atomic
            copied += mine;
        }

        /* expect omp_for: each 1 */
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 16; i++) {
            /* expect omp_ordered: 16, omp_ordered_wait: 16 */
#pragma omp ordered
            squares[i] = (long)i * i;
        }

        /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single
        {
            for (int k = 0; k < 4; k++) {
                /* expect omp_task_create: 4, omp_task: 4 */
#pragma omp task shared(tasks)
                {
#pragma omp atomic
                    tasks++;
                }
            }
            /* expect omp_taskwait: 1 */
#pragma omp taskwait
        }

        /* expect omp_taskgroup: each 1 */
#pragma omp taskgroup
        {
#pragma omp task shared(grouped)
            {
#pragma omp atomic
                grouped++;
            }
        }

        tp_counter = omp_get_thread_num() + 1;

        /* A spin-wait on a flag with flush: thread 0 sets it, the others
         * wait for it (nobody waits when alone). */
        if (omp_get_thread_num() == 0) {
            flag = 1;
            /* expect omp_flush: 1 */
#pragma omp flush
        } else {
            int seen = 0;
            while (!seen) {
#pragma omp flush
                seen = flag;
            }
        }
    }

    long orphaned = 0;
    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(orphaned)
    orphan(&orphaned);

    /* Combined constructs, split in two. */
    /* expect omp_parallel: each 1, omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp parallel for reduction(+ : combined) schedule(dynamic, 4) collapse(2)
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            combined += i * j;

    int a = 0, b = 0;
    /* expect omp_parallel: each 1, omp_sections: each 1 */
#pragma omp parallel sections
    {
#pragma omp section
        a = 1;
#pragma omp section
        b = 2;
    }

    /* A construct whose body is another directive, no braces. */
    /* expect omp_parallel: each 1 */
#pragma omp parallel
#pragma omp for
    for (int i = 0; i < 32; i++)
        data[i] = 2 * i;

    int two = 0;
    /* Blanks after `#`, continuation lines, clauses (a team of 2). */
    /* expect omp_parallel: 2 */
#   pragma omp parallel \
        num_threads(2) if(1) \
        reduction(+ : two)
    two += 1;

    long sum_data = 0;
    for (int i = 0; i < 32; i++)
        sum_data += data[i];
    long sum_sq = 0;
    for (int i = 0; i < 16; i++)
        sum_sq += squares[i];
    printf("team %d total %ld sections %d masters %d locked %d nested %d copied %d tasks %d grouped %d\n",
           team, total, sect, masters, locked, nested, copied, tasks, grouped);
    printf("orphaned %ld combined %ld sections %d %d data %ld squares %ld two %d\n", orphaned,
           combined, a, b, sum_data, sum_sq, two);
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nlock);
    return 0;
}
