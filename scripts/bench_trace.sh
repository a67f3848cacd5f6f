#!/bin/sh
# Trace mode against profile mode against the plain build (issue 15):
# wall time of a 4-rank MPI program (testdata/trace/bench_mpi.c, Open MPI)
# an OpenMP program (testdata/trace/bench_omp.c, 4 threads) and an MPI +
# OpenMP program (testdata/trace/bench_hybrid.c, 2 ranks x 2 threads), each run
# REPEAT times per build/mode (median printed); for the trace runs the
# trace bytes, events (`instrument export`), bytes per event, trace bytes
# per second of run and the time the threads spent flushing their buffers
# (sum of `buffer_flush` durations; REGIO_TRACE_BUFFER=$BUFFER, default
# 256K, so that buffers do flush during these short runs).
#
#   scripts/bench_trace.sh [REPEAT] [MPI_STEPS] [OMP_REPS] [HYBRID_STEPS]
#
# Needs mpicc/mpirun (Open MPI), gcc with OpenMP, python3, a built
# `instrument` ($INSTRUMENT, else target/release, else target/debug) and
# the runtime it finds (REGIO_LIB_DIR=target/release after `cargo build
# --release -p regio-rt` to measure the optimised runtime with a debug
# `instrument`). Instrumented with --regions mpi,functions (MPI),
# omp,functions --small-functions (OpenMP) and mpi,omp,functions
# --small-functions (MPI + OpenMP); -O2.
set -eu
REPEAT=${1:-5}
STEPS=${2:-4000}
REPS=${3:-30}
HYBRID_STEPS=${4:-400}
BUFFER=${BUFFER:-256K}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INSTRUMENT=${INSTRUMENT:-$ROOT/target/release/instrument}
[ -x "$INSTRUMENT" ] || INSTRUMENT=$ROOT/target/debug/instrument
[ -x "$INSTRUMENT" ] || { echo "build instrument first"; exit 1; }
command -v mpicc >/dev/null || { echo "SKIPPED: needs mpicc (libopenmpi-dev)"; exit 0; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CFLAGS=$("$INSTRUMENT" flags --cflags)
LIBS=$("$INSTRUMENT" flags --libs)

mkdir -p "$WORK/src"
cp "$ROOT/testdata/trace/bench_mpi.c" "$ROOT/testdata/trace/bench_omp.c" \
    "$ROOT/testdata/trace/bench_hybrid.c" "$WORK/src/"
"$INSTRUMENT" "$WORK/src/bench_mpi.c" --out "$WORK/mpi" --regions mpi,functions >/dev/null 2>&1
# --small-functions: the loop's f is a small function, which would
# otherwise get no probes and leave the trace nothing but OpenMP events.
"$INSTRUMENT" "$WORK/src/bench_omp.c" --out "$WORK/omp" --regions omp,functions --small-functions >/dev/null 2>&1
mpicc -O2 "$WORK/src/bench_mpi.c" -o "$WORK/mpi_plain"
mpicc -O2 $CFLAGS "$WORK/mpi/bench_mpi.c" $LIBS -o "$WORK/mpi_inst"
gcc -O2 -fopenmp "$WORK/src/bench_omp.c" -o "$WORK/omp_plain"
gcc -O2 -fopenmp $CFLAGS "$WORK/omp/bench_omp.c" $LIBS -o "$WORK/omp_inst"
"$INSTRUMENT" "$WORK/src/bench_hybrid.c" --out "$WORK/hybrid" --regions mpi,omp,functions \
    --small-functions >/dev/null 2>&1
mpicc -O2 -fopenmp "$WORK/src/bench_hybrid.c" -o "$WORK/hybrid_plain"
mpicc -O2 -fopenmp $CFLAGS "$WORK/hybrid/bench_hybrid.c" $LIBS -o "$WORK/hybrid_inst"

now() { date +%s%N; }

# run NAME MODE CMD...: wall ns of one run (MODE: plain, profile, trace).
run_once() {
    mode=$1; shift
    dir="$WORK/run-$mode-$$-$(now)"
    t0=$(now)
    case "$mode" in
    plain) "$@" >/dev/null 2>&1 ;;
    *) REGIO_MODE=$mode REGIO_DIR=$dir REGIO_TRACE_BUFFER=$BUFFER "$@" >/dev/null 2>&1 ;;
    esac
    t1=$(now)
    echo $((t1 - t0)) "$dir"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

stats() { # DIR WALL_NS: trace bytes, events, flush time
    bytes=$(cat "$1"/trace-*.rtrace | wc -c)
    "$INSTRUMENT" export --format perfetto "$1" --out "$1.json" >"$1.out" 2>/dev/null
    events=$(sed -n 's/.* \([0-9]*\) events.*/\1/p' "$1.out")
    flush_ns=$(python3 -c "
import json,sys
d = json.load(open('$1.json'))
print(int(sum(e['args'].get('duration_ns', 0) for e in d['traceEvents'] if e.get('name') == 'trace buffer flush')))")
    flushes=$(python3 -c "
import json
d = json.load(open('$1.json'))
print(sum(1 for e in d['traceEvents'] if e.get('name') == 'trace buffer flush'))")
    awk -v b="$bytes" -v e="$events" -v w="$2" -v f="$flush_ns" -v n="$flushes" 'BEGIN {
        printf "    trace: %d bytes, %d events, %.2f bytes/event, %.1f MB/s of run, %d flushes taking %.2f ms in total\n",
            b, e, b / e, b / (w / 1e9) / 1e6, n, f / 1e6 }'
}

bench() { # LABEL CMD...
    label=$1; shift
    template=$*
    echo "$label"
    for mode in plain profile trace; do
        exe_cmd=$(echo "$template" | sed "s#@EXE@#$( [ $mode = plain ] && echo plain || echo inst )#")
        : >"$WORK/times"
        last=""
        i=0
        while [ $i -lt "$REPEAT" ]; do
            set -- $exe_cmd
            out=$(run_once "$mode" "$@")
            echo "${out% *}" >>"$WORK/times"
            last=${out#* }
            i=$((i + 1))
        done
        med=$(median <"$WORK/times")
        eval "med_$mode=$med"
        printf "  %-8s median %8.1f ms\n" "$mode" "$(echo "$med" | awk '{ print $1 / 1e6 }')"
        if [ "$mode" = trace ]; then stats "$last" "$med"; fi
    done
    awk -v p="$med_plain" -v r="$med_profile" -v t="$med_trace" 'BEGIN {
        printf "  slowdown: profile %.2fx, trace %.2fx of plain; trace %.2fx of profile\n", r / p, t / p, t / r }'
}

# The command template's @EXE@ becomes plain or inst.
bench "MPI: bench_mpi.c, 4 ranks, $STEPS steps, Open MPI" \
    "mpirun --oversubscribe -np 4 -x REGIO_MODE -x REGIO_DIR -x REGIO_TRACE_BUFFER $WORK/mpi_@EXE@ $STEPS"
OMP_NUM_THREADS=4 bench "OpenMP: bench_omp.c, 4 threads, $REPS loops" "$WORK/omp_@EXE@ $REPS"
OMP_NUM_THREADS=2 bench "MPI+OpenMP: bench_hybrid.c, 2 ranks x 2 threads, $HYBRID_STEPS steps, Open MPI" \
    "mpirun --oversubscribe -np 2 -x OMP_NUM_THREADS -x REGIO_MODE -x REGIO_DIR -x REGIO_TRACE_BUFFER $WORK/hybrid_@EXE@ $HYBRID_STEPS"
