#!/usr/bin/env bash
# Compensation benchmark (issue 7): a C program with many tiny instrumented
# calls (benches/data/tiny_calls.c, 5 M calls of ~50-100 ns). Compares the
# uninstrumented run's wall time with the instrumented run's program time
# as `instrument overhead` reports it, compensated (after `instrument
# calibrate`) and with --no-compensation. Target: compensated within 5 % of
# the uninstrumented time, uncompensated not.
#
# Usage: benches/benches/compensation.sh [REPS] [CALLS] [BODY...]
#   BODY: chain and/or table (default both; see tiny_calls.c)
#   (from anywhere; builds `instrument` in release mode unless $INSTRUMENT
#   names a binary; $CC defaults to cc). Runs are interleaved
#   (plain, instrumented, plain, ...) and the medians compared, so a load
#   change on the machine hits both alike.
set -euo pipefail

reps=${1:-7}
calls=${2:-5000000}
shift $(($# < 2 ? $# : 2))
bodies=("$@")
[ ${#bodies[@]} -gt 0 ] || bodies=(chain table)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-cc}
if [ -z "${INSTRUMENT:-}" ]; then
    (cd "$root" && cargo build --release -q -p instrument)
    INSTRUMENT=$root/target/release/instrument
fi
# The script changes directory: make a relative $INSTRUMENT absolute.
INSTRUMENT=$(cd "$(dirname "$INSTRUMENT")" && pwd)/$(basename "$INSTRUMENT")
for tool in "$cc" jq; do
    command -v "$tool" >/dev/null || { echo "compensation.sh: needs $tool" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/regio-bench-compensation-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/data/tiny_calls.c" "$work/"
cd "$work"
"$INSTRUMENT" --regions functions tiny_calls.c --out inst 2>/dev/null
# shellcheck disable=SC2046 # the flags are words
"$cc" -O2 -fno-tree-vectorize tiny_calls.c -o plain
# shellcheck disable=SC2046
"$cc" -O2 -fno-tree-vectorize $("$INSTRUMENT" flags --cflags) inst/tiny_calls.c $("$INSTRUMENT" flags --libs) -o instrumented
"$INSTRUMENT" calibrate --out cal.json

now_ns() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
program_ns() { # RUNDIR [--no-compensation]
    "$INSTRUMENT" overhead --format json --processors 1 --calibration cal.json "${@:2}" "$1" "$1" |
        jq '.baseline_wall_ns'
}

echo "calibration: $(jq -c . cal.json)"
echo "calls: $calls, repetitions: $reps (medians), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for body in "${bodies[@]}"; do
    : >plain.txt
    : >comp.txt
    : >uncomp.txt
    : >inst_wall.txt
    for i in $(seq "$reps"); do
        t0=$(now_ns)
        ./plain "$calls" "$body" >/dev/null
        t1=$(now_ns)
        echo $((t1 - t0)) >>plain.txt
        rm -rf run
        REGIO_DIR=run ./instrumented "$calls" "$body" >/dev/null
        t2=$(now_ns)
        echo $((t2 - t1)) >>inst_wall.txt
        program_ns run >>comp.txt
        program_ns run --no-compensation >>uncomp.txt
    done
    awk -v body="$body" -v calls="$calls" -v p="$(median <plain.txt)" -v i="$(median <inst_wall.txt)" \
        -v c="$(median <comp.txt)" -v u="$(median <uncomp.txt)" 'BEGIN {
        ec = (c - p) / p * 100; eu = (u - p) / p * 100
        printf "[%s] uninstrumented wall          %8.1f ms  (%.1f ns per call)\n", body, p / 1e6, p / calls
        printf "[%s] instrumented wall            %8.1f ms  (%+.1f %%)\n", body, i / 1e6, (i - p) / p * 100
        printf "[%s] program time, uncompensated  %8.1f ms  (%+.1f %%)\n", body, u / 1e6, eu
        printf "[%s] program time, compensated    %8.1f ms  (%+.1f %%)\n", body, c / 1e6, ec
        printf "[%s] probe cost in this context: %.1f ns per call\n", body, (u - p) / calls
        printf "[%s] compensated within 5 %%: %s; uncompensated off by more than 5 %%: %s\n", body,
            (ec <= 5 && ec >= -5) ? "yes" : "NO", (eu > 5 || eu < -5) ? "yes" : "no"
    }'
done
