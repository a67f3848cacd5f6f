#!/bin/sh
# Wall time of a probe pair in trace mode against profile mode and against
# two rdtsc reads, from C, paired so that a shared host's slow and fast
# phases hit both modes alike (issue 15's "trace probe <= 1.5x the profile
# probe", in ns rather than in instructions: scripts/bench_trace_probe.sh
# counts those).
#
#   scripts/bench_trace_pair_wall.sh [ROUNDS] [N] LIBDIR...
#
# Each LIBDIR holds a libregio.so (e.g. target/release after `cargo build
# --release -p regio-rt`, or a copy of another commit's). A C program
# times, in one process, N pairs of two back-to-back rdtsc reads, N calls
# of two empty non-inlined functions (the loop and call cost a probe call
# adds to) and N pairs regio_enter(1); regio_exit(1), five times each,
# and prints the minimum ns of each. Every round runs that program once
# in profile mode and once in trace mode per LIBDIR, back to back, pinned
# to one CPU (taskset, if there), REGIO_THROTTLE=off, the default
# REGIO_TRACE_BUFFER (its write-outs to the run directory included: the
# run directory is under $TMPDIR, or RUN_DIR, e.g. RUN_DIR=/dev/shm/regio
# to keep a disk's write-back out of the figure).
# Per round: added = probe pair - empty calls; ratio trace/profile of the
# same LIBDIR and round, and added / rdtsc pair. Prints the quartiles over
# the rounds. Defaults: ROUNDS=25, N=1000000. Needs gcc.
set -eu
ROUNDS=25
N=1000000
case ${1:-} in [0-9]*) ROUNDS=$1; shift ;; esac
case ${1:-} in [0-9]*) N=$1; shift ;; esac
[ $# -ge 1 ] || { echo "usage: $0 [ROUNDS] [N] LIBDIR..."; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/pair.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>
void regio_enter(unsigned id);
void regio_exit(unsigned id);
__attribute__((noinline)) void empty_enter(unsigned id) { __asm__ volatile("" ::"r"(id)); }
__attribute__((noinline)) void empty_exit(unsigned id) { __asm__ volatile("" ::"r"(id)); }
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    double best[3] = {1e30, 1e30, 1e30};
    volatile unsigned long long sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++) {
            unsigned long long a = __rdtsc();
            sink += __rdtsc() - a;
        }
        double t1 = now();
        for (long i = 0; i < n; i++) {
            empty_enter(1);
            empty_exit(1);
        }
        double t2 = now();
        for (long i = 0; i < n; i++) {
            regio_enter(1);
            regio_exit(1);
        }
        double t3 = now();
        double d[3] = {(t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n};
        for (int k = 0; k < 3; k++)
            if (d[k] < best[k])
                best[k] = d[k];
    }
    printf("%.3f %.3f %.3f\n", best[0], best[1], best[2]);
    return 0;
}
C
PIN=
command -v taskset >/dev/null && PIN="taskset -c $(($(nproc) - 1))"
i=0
for lib in "$@"; do
    i=$((i + 1))
    gcc -O2 "$WORK/pair.c" -L"$lib" -Wl,-rpath,"$lib" -lregio -o "$WORK/pair$i"
done
RUN=${RUN_DIR:-$WORK/run}
export REGIO_THROTTLE=off REGIO_DIR="$RUN"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); ROUNDS=$ROUNDS N=$N; $PIN; run directory $RUN"
r=0
while [ $r -lt "$ROUNDS" ]; do
    r=$((r + 1))
    i=0
    for lib in "$@"; do
        i=$((i + 1))
        for mode in profile trace; do
            echo "$i $mode $(REGIO_MODE=$mode $PIN "$WORK/pair$i" "$N")"
            rm -rf "$RUN"
        done
    done
done >"$WORK/rows"
quartiles() { # label: quartiles of the numbers on stdin
    sort -n | awk -v l="$1" '{ v[NR] = $1 } END {
        printf "%-44s %8.3f %8.3f %8.3f\n", l, v[int((NR + 3) / 4)], v[int((NR + 1) / 2)], v[int((3 * NR + 3) / 4)] }'
}
printf "%-44s %8s %8s %8s\n" "" q1 median q3
i=0
for lib in "$@"; do
    i=$((i + 1))
    # Rows of this lib: profile then trace, per round.
    awk -v i="$i" '$1 == i' "$WORK/rows" | paste - - >"$WORK/pairs$i"
    # Fields: 1 i 2 profile 3 rdtsc2 4 empty 5 probe 6 i 7 trace 8 rdtsc2 9 empty 10 probe
    awk '{ print $3 }' "$WORK/pairs$i" | quartiles "$lib rdtsc pair ns"
    awk '{ print $5 - $4 }' "$WORK/pairs$i" | quartiles "$lib profile added ns"
    awk '{ print $10 - $9 }' "$WORK/pairs$i" | quartiles "$lib trace added ns"
    awk '{ print ($5 - $4) / $3 }' "$WORK/pairs$i" | quartiles "$lib profile added / rdtsc pair"
    awk '{ print ($10 - $9) / $8 }' "$WORK/pairs$i" | quartiles "$lib trace added / rdtsc pair"
    awk '{ print ($10 - $9) / ($5 - $4) }' "$WORK/pairs$i" | quartiles "$lib trace / profile (added, paired)"
done
