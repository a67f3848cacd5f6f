#!/usr/bin/env bash
# The fixed cost the runtime adds to every instrumented process (start-up
# and exit: configuration, clock, hooks, the profile and IDF copy written
# at exit), measured on whole processes against the plain build:
#
#   scripts/bench_startup.sh [ROUNDS]
#
# Builds, from scripts/bench_startup/, a trivial C program (trivial.c) and a
# small OpenMP program (omp_small.c, two threads) plain and instrumented
# (`instrument` default regions, `instrument flags --cflags/--libs`),
# against the release libregio.so (shared) and libregio.a (static). Every
# process is timed from posix_spawn to waitpid by spawn_time.c, all
# variants in turn each round (load on a shared machine hits them alike),
# ROUNDS rounds (default 200) after one warm-up round; output to
# /dev/null, each instrumented variant writing its run directory under a
# scratch REGIO_DIR (one per variant, so from the second run on the IDF
# copy is there already, as for the ranks of an MPI job). Prints per
# variant the wall time's min and median and the median CPU time (user +
# system, which load from other processes disturbs less) in ms, and the
# added ms per process against the plain build of the same program
# (median - median for wall and CPU, min - min). The `_disabled` variants
# run the instrumented build with REGIO_DISABLE=1: what loading the
# runtime alone costs.
#
# MPI=1 adds mpi_small.c (a one-rank MPI_Init/Allreduce/Finalize built with
# mpicc, run as a singleton without mpirun) plain and instrumented, shared.
# BASE_LIB_DIR (a directory holding another build's libregio.so and
# libregio.a) adds the variants `base_*` built against it, for an A/B of a
# change. Needs gcc with OpenMP and cargo; builds the release runtime
# (`cargo build --release -p regio-rt`) and the `instrument` binary if
# needed. CC, CFLAGS (default -O2) and INSTRUMENT (path of the instrument
# binary) may be set.
set -euo pipefail
rounds=${1:-200}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
src=$here/bench_startup
cc=${CC:-gcc}
cflags=${CFLAGS:--O2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && cargo build -q --release -p regio-rt)
instrument=${INSTRUMENT:-$root/target/debug/instrument}
if [ ! -x "$instrument" ]; then
    (cd "$root" && cargo build -q -p instrument)
fi
release=$root/target/release

$cc -O2 "$src/spawn_time.c" -o "$tmp/spawn_time"
programs=(trivial omp_small)
if [ "${MPI:-0}" = 1 ]; then
    programs+=(mpi_small)
fi
for p in "${programs[@]}"; do
    "$instrument" --out "$tmp/inst-$p" "$src/$p.c" > /dev/null 2>&1
done

# compile PROGRAM OUT [EXTRA...]: the compiler and flags a program needs.
compile() {
    local p=$1 out=$2
    shift 2
    local c=$cc extra=()
    case $p in
        omp_*) extra=(-fopenmp) ;;
        mpi_*) c=mpicc ;;
    esac
    # shellcheck disable=SC2086
    $c $cflags "${extra[@]}" "$@" -o "$out"
}

# build_regio PROGRAM NAME LIBDIR shared|static: the instrumented build.
build_regio() {
    local p=$1 name=$2 lib=$3
    if [ "$4" = static ]; then
        lib=$tmp/static-$name
        mkdir -p "$lib"
        ln -s "$3/libregio.a" "$lib/libregio.a"
    fi
    # The flags are word lists: unquoted on purpose.
    # shellcheck disable=SC2046
    compile "$p" "$tmp/$name" $(REGIO_LIB_DIR=$lib "$instrument" flags --cflags) \
        "$tmp/inst-$p/$p.c" $(REGIO_LIB_DIR=$lib "$instrument" flags --libs)
}

list=$tmp/variants.txt
: > "$list"
tab=$'\t'
add() { # NAME WORDS...: one line of spawn_time's list
    local IFS=$tab
    echo "$*" >> "$list"
}
for p in "${programs[@]}"; do
    compile "$p" "$tmp/${p}_plain" "$src/$p.c"
    add "${p}_plain" "$tmp/${p}_plain"
    kinds=(shared static)
    case $p in mpi_*) kinds=(shared) ;; esac
    for k in "${kinds[@]}"; do
        build_regio "$p" "${p}_$k" "$release" "$k"
        add "${p}_$k" "REGIO_DIR=$tmp/run/${p}_$k" "$tmp/${p}_$k"
        if [ -n "${BASE_LIB_DIR:-}" ]; then
            build_regio "$p" "${p}_base_$k" "$BASE_LIB_DIR" "$k"
            add "${p}_base_$k" "REGIO_DIR=$tmp/run/${p}_base_$k" "$tmp/${p}_base_$k"
        fi
    done
    for k in "${kinds[@]}"; do
        add "${p}_${k}_disabled" REGIO_DISABLE=1 "$tmp/${p}_$k"
    done
done

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $cc $cflags; ROUNDS=$rounds; libregio from $release${BASE_LIB_DIR:+, base from $BASE_LIB_DIR}"
"$tmp/spawn_time" "$rounds" "$list" > "$tmp/times.txt"
# Check that every instrumented variant wrote its profile.
for d in "$tmp"/run/*; do
    if ! ls "$d"/profile-*.json > /dev/null 2>&1; then
        echo "bench_startup: no profile in $d" >&2
        exit 1
    fi
done
awk '
    { name[NR] = $1; lo[$1] = $2; med[$1] = $3; cpu[$1] = $4; n = $5 }
    END {
        printf "%-30s %8s %9s %8s %10s %10s %10s\n", "variant", "min_ms", "median_ms",
            "cpu_ms", "added_med", "added_cpu", "added_min"
        for (i = 1; i <= NR; i++) {
            v = name[i]; p = v
            sub(/_(base_)?(shared|static)(_disabled)?$/, "_plain", p)
            if (v == p) {
                printf "%-30s %8.3f %9.3f %8.3f %10s %10s %10s\n", v, lo[v] / 1e3,
                    med[v] / 1e3, cpu[v] / 1e3, "-", "-", "-"
            } else {
                printf "%-30s %8.3f %9.3f %8.3f %10.3f %10.3f %10.3f\n", v, lo[v] / 1e3,
                    med[v] / 1e3, cpu[v] / 1e3, (med[v] - med[p]) / 1e3,
                    (cpu[v] - cpu[p]) / 1e3, (lo[v] - lo[p]) / 1e3
            }
        }
        printf "# %d processes per variant; added = instrumented - plain of the same program, ms per process\n", n
    }' "$tmp/times.txt"
