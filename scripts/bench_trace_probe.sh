#!/bin/sh
# Instructions per probe pair, trace mode against profile mode (issue 15's
# "trace probe <= 1.5x the profile probe"), counted by callgrind, so the
# figure does not depend on the machine's load:
#   - bench_omp.c (testdata/trace), 1 thread, 30 loops: 600 000 calls of
#     its small function f (instrumented with --small-functions);
#     per pair = (instructions - the plain build's) / 600 000;
#   - a C loop of regio_enter(1); regio_exit(1): per pair = the difference
#     between 2 000 000 and 1 000 000 iterations / 1 000 000;
#   - the same loop in Fortran (call regio_enter(1); call regio_exit(1),
#     the Fortran twins regio_enter_/regio_exit_), if gfortran is there
#     (else its column says "-").
# REGIO_THROTTLE=off, REGIO_TRACE_BUFFER=256K.
#
#   scripts/bench_trace_probe.sh LIBDIR...
#
# Each LIBDIR holds a libregio.so (e.g. target/release after `cargo build
# --release -p regio-rt`, or a copy of another commit's); all are measured
# in one run. Needs valgrind, gcc with OpenMP and a built `instrument`
# ($INSTRUMENT, else target/release, else target/debug).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 LIBDIR..."; exit 2; }
command -v valgrind >/dev/null || { echo "SKIPPED: needs valgrind"; exit 0; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INSTRUMENT=${INSTRUMENT:-$ROOT/target/release/instrument}
[ -x "$INSTRUMENT" ] || INSTRUMENT=$ROOT/target/debug/instrument
[ -x "$INSTRUMENT" ] || { echo "build instrument first"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src"
cp "$ROOT/testdata/trace/bench_omp.c" "$WORK/src/"
"$INSTRUMENT" "$WORK/src/bench_omp.c" --out "$WORK/inst" --regions omp,functions \
    --small-functions >/dev/null 2>&1
cat >"$WORK/loop.c" <<'C'
#include <stdlib.h>
void regio_enter(unsigned id);
void regio_exit(unsigned id);
int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    for (long i = 0; i < n; i++) {
        regio_enter(1);
        regio_exit(1);
    }
    return 0;
}
C
cat >"$WORK/floop.f90" <<'F'
program floop
    implicit none
    integer :: i, n
    character(len=32) :: arg
    call get_command_argument(1, arg)
    read (arg, *) n
    do i = 1, n
        call regio_enter(1)
        call regio_exit(1)
    end do
end program floop
F
HAVE_FC=0
command -v gfortran >/dev/null && HAVE_FC=1
gcc -O2 -fopenmp "$WORK/src/bench_omp.c" -o "$WORK/plain"

count() { # CMD...: instructions callgrind counts
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : //p'
}

plain=$(OMP_NUM_THREADS=1 count "$WORK/plain" 30)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); plain bench_omp: $plain instructions"
printf "%-40s %8s %10s %10s %10s %10s %10s\n" lib mode omp_total omp_pair loop_pair f_loop_pair trace/prof
i=0
for lib in "$@"; do
    i=$((i + 1))
    gcc -O2 -fopenmp -I"$ROOT/runtime/include" "$WORK/inst/bench_omp.c" \
        -L"$lib" -Wl,-rpath,"$lib" -lregio -o "$WORK/omp$i"
    gcc -O2 "$WORK/loop.c" -L"$lib" -Wl,-rpath,"$lib" -lregio -o "$WORK/loop$i"
    if [ $HAVE_FC = 1 ]; then
        gfortran -O2 "$WORK/floop.f90" -L"$lib" -Wl,-rpath,"$lib" -lregio -o "$WORK/floop$i"
    fi
    for mode in profile trace; do
        export REGIO_MODE=$mode REGIO_THROTTLE=off REGIO_TRACE_BUFFER=256K
        export REGIO_DIR="$WORK/run"
        omp=$(OMP_NUM_THREADS=1 count "$WORK/omp$i" 30)
        l1=$(count "$WORK/loop$i" 1000000)
        l2=$(count "$WORK/loop$i" 2000000)
        f_pair=-
        if [ $HAVE_FC = 1 ]; then
            f1=$(count "$WORK/floop$i" 1000000)
            f2=$(count "$WORK/floop$i" 2000000)
            f_pair=$(awk -v a="$f1" -v b="$f2" 'BEGIN { printf "%.1f", (b - a) / 1000000 }')
        fi
        rm -rf "$WORK/run"
        omp_pair=$(awk -v t="$omp" -v p="$plain" 'BEGIN { printf "%.1f", (t - p) / 600000 }')
        loop_pair=$(awk -v a="$l1" -v b="$l2" 'BEGIN { printf "%.1f", (b - a) / 1000000 }')
        if [ $mode = profile ]; then
            p_omp=$omp_pair p_loop=$loop_pair p_f=$f_pair ratio="-"
        else
            # omp/C loop/Fortran loop
            ratio=$(awk -v a="$omp_pair" -v b="$p_omp" -v c="$loop_pair" -v d="$p_loop" \
                -v e="$f_pair" -v f="$p_f" 'BEGIN {
                    r = sprintf("%.2f/%.2f", a / b, c / d)
                    if (e != "-") r = r sprintf("/%.2f", e / f)
                    print r }')
        fi
        printf "%-40s %8s %10s %10s %10s %10s %10s\n" "$lib" "$mode" "$omp" "$omp_pair" "$loop_pair" "$f_pair" "$ratio"
    done
done
