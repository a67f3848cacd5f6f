/* Wall time of whole processes, for scripts/bench_startup.sh.
 *
 *   spawn_time ROUNDS LIST
 *
 * LIST has one variant per line: NAME, a tab, then the command's words
 * separated by tabs; words of the form VAR=value before the program are
 * added to the environment. Each round runs every variant once, in turn
 * (so load on a shared machine hits them alike), stdout and stderr to
 * /dev/null, timed from posix_spawn to wait4 with CLOCK_MONOTONIC, and its
 * CPU time (user + system, from wait4's rusage), which load from other
 * processes disturbs less than wall time. One warm-up round is not
 * counted. Prints per variant: NAME, wall min, wall median, CPU median
 * (microseconds) and the number of runs; a run that does not exit with
 * status 0 is an error. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

#define MAX_VARIANTS 32
#define MAX_WORDS 64

struct variant {
    char *name;
    char *argv[MAX_WORDS];
    char **envp;
    double *us;
    double *cpu;
};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double min_of(double *v, int n) {
    qsort(v, n, sizeof(double), cmp);
    return v[0];
}

static char **with_env(char **extra, int n) {
    int base = 0;
    while (environ[base]) base++;
    char **envp = calloc(base + n + 1, sizeof *envp);
    int k = 0;
    for (int i = 0; i < n; i++) envp[k++] = extra[i];
    for (int i = 0; i < base; i++) {
        int shadowed = 0;
        for (int j = 0; j < n; j++) {
            size_t len = strchr(extra[j], '=') - extra[j] + 1;
            if (strncmp(environ[i], extra[j], len) == 0) shadowed = 1;
        }
        if (!shadowed) envp[k++] = environ[i];
    }
    return envp;
}

static double tv_us(struct timeval t) { return t.tv_sec * 1e6 + t.tv_usec; }

static double run(struct variant *v, posix_spawn_file_actions_t *fa, double *cpu) {
    pid_t pid;
    int status;
    struct rusage ru;
    double t0 = now_us();
    if (posix_spawn(&pid, v->argv[0], fa, NULL, v->argv, v->envp) != 0) {
        fprintf(stderr, "spawn_time: cannot run %s\n", v->argv[0]);
        exit(2);
    }
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "spawn_time: %s failed (status %d)\n", v->name, status);
        exit(2);
    }
    double wall = now_us() - t0;
    *cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
    return wall;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: spawn_time ROUNDS LIST\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    FILE *f = fopen(argv[2], "r");
    if (rounds < 1 || !f) {
        fprintf(stderr, "spawn_time: bad rounds or list\n");
        return 2;
    }
    static struct variant vs[MAX_VARIANTS];
    int nv = 0;
    char line[8192];
    while (nv < MAX_VARIANTS && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        struct variant *v = &vs[nv];
        char *save, *w = strtok_r(strdup(line), "\t", &save);
        v->name = w;
        char *env[MAX_WORDS];
        int ne = 0, na = 0;
        while ((w = strtok_r(NULL, "\t", &save)) && na < MAX_WORDS - 1) {
            if (na == 0 && strchr(w, '=') && w[0] != '/' && ne < MAX_WORDS)
                env[ne++] = w;
            else
                v->argv[na++] = w;
        }
        if (na == 0) {
            fprintf(stderr, "spawn_time: no command for %s\n", v->name);
            return 2;
        }
        v->envp = with_env(env, ne);
        v->us = calloc(rounds, sizeof(double));
        v->cpu = calloc(rounds, sizeof(double));
        nv++;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    double ignored;
    for (int i = 0; i < nv; i++) run(&vs[i], &fa, &ignored);
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nv; i++) vs[i].us[r] = run(&vs[i], &fa, &vs[i].cpu[r]);
    for (int i = 0; i < nv; i++) {
        printf("%s %.1f %.1f %.1f %d\n", vs[i].name, min_of(vs[i].us, rounds),
               median(vs[i].us, rounds), median(vs[i].cpu, rounds), rounds);
    }
    return 0;
}
