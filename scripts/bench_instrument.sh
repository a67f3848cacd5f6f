#!/usr/bin/env bash
# Instrumenter throughput, one binary against another, in the same run:
#
#   scripts/bench_instrument.sh OLD_BIN NEW_BIN [REPS] TREE...
#
# For each TREE, runs `BIN --regions all --out TMP TREE` REPS times (default
# 7) for each binary, alternating them so load on a shared machine hits
# both alike, and prints the fastest wall time of each, the MB/s of C and
# Fortran sources it gives, and NEW/OLD. Used for the BENCHMARKS.md row
# "Instrumenter speed after issue 13".
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_BIN NEW_BIN [REPS] TREE..." >&2; exit 2; }
old=$1 new=$2; shift 2
reps=7
if [[ $1 =~ ^[0-9]+$ ]]; then reps=$1; shift; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
printf '%-28s %8s %10s %10s %9s %9s %7s\n' tree MB old_s new_s old_MB/s new_MB/s new/old
for tree in "$@"; do
    bytes=$(find "$tree" -type f \( -name '*.c' -o -name '*.h' -o -name '*.f' -o -name '*.f90' \) \
        -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    best_old=999999 best_new=999999
    for _ in $(seq "$reps"); do
        for which in old new; do
            bin=$old; [ "$which" = new ] && bin=$new
            rm -rf "$tmp/out"
            t0=$(now)
            "$bin" --regions all --out "$tmp/out" "$tree" > /dev/null 2>&1 || true
            t=$(awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }')
            if [ "$which" = old ]; then
                best_old=$(awk -v t="$t" -v b="$best_old" 'BEGIN { print (t < b) ? t : b }')
            else
                best_new=$(awk -v t="$t" -v b="$best_new" 'BEGIN { print (t < b) ? t : b }')
            fi
        done
    done
    awk -v n="$(basename "$tree")" -v bytes="$bytes" -v o="$best_old" -v w="$best_new" 'BEGIN {
        mb = bytes / 1000000
        printf "%-28s %8.2f %10.3f %10.3f %9.2f %9.2f %7.2f\n", n, mb, o, w, mb / o, mb / w, w / o
    }'
done
