#!/usr/bin/env bash
# What a recursive function costs with automatic throttling: fib(N)
# (testdata/throttle/fib.c, N = 30 by default: 2,692,537 calls, all but
# one nested in another call of fib), default regions, release libregio.so:
#
#   scripts/bench_recursion.sh [RUNS] [N]
#
# Variants: plain (the same source without probes), off
# (REGIO_THROTTLE=off: every call timed), default (REGIO_THROTTLE unset),
# disabled (REGIO_DISABLE=1: every probe gated, the floor of what the
# instrumented code costs). BASE_LIB_DIR (a directory with another
# build's libregio.so) adds `base`: the same binary, default throttle,
# with that runtime (LD_LIBRARY_PATH; the rpath `instrument flags` writes
# is a RUNPATH, which LD_LIBRARY_PATH overrides) - e.g. the runtime from
# before recursive regions could be throttled in the middle of their
# recursion. Runs interleaved, prints medians of wall and CPU time
# (user+sys) and the ratio to plain, then fib's line of `instrument
# report` for the default run. CALLGRIND=1 adds the instruction count of
# one run of each variant (valgrind --tool=callgrind; with N = 25 unless
# CG_N is set; REGIO_THROTTLE=100000,1000000000 for default and base, so
# the decision does not depend on valgrind's slow clock). Needs gcc, cargo;
# CC and INSTRUMENT may be set.
set -euo pipefail
runs=${1:-5}
n=${2:-30}
. "$(dirname "$0")/bench_setup.sh"
src=$root/testdata/throttle/fib.c
$cc -O2 "$src" -o "$tmp/plain"
"$instrument" "$src" --out "$tmp/inst" > /dev/null
# shellcheck disable=SC2086
$cc -O2 $cflags "$tmp/inst/fib.c" $libs -o "$tmp/regio"
# grep reads all of readelf's output (no -q): under pipefail an early exit
# would kill readelf with SIGPIPE and read as "no RPATH".
if readelf -d "$tmp/regio" | grep RPATH > /dev/null; then
    echo "the binary has an RPATH, LD_LIBRARY_PATH cannot pick the base runtime" >&2
    exit 1
fi

variants=(plain off default disabled)
[ -n "${BASE_LIB_DIR:-}" ] && variants+=(base)
cmd() { # VARIANT: the environment and binary of a variant
    case $1 in
        plain) echo "env $tmp/plain" ;;
        off) echo "env REGIO_THROTTLE=off $tmp/regio" ;;
        default) echo "env $tmp/regio" ;;
        disabled) echo "env REGIO_DISABLE=1 $tmp/regio" ;;
        base) echo "env LD_LIBRARY_PATH=$BASE_LIB_DIR $tmp/regio" ;;
    esac
}
one() { # VARIANT
    rm -rf "$tmp/run.$1"
    # shellcheck disable=SC2046
    (cd "$tmp" && env -u REGIO_THROTTLE -u REGIO_DISABLE REGIO_DIR="$tmp/run.$1" \
        /usr/bin/time -f '%e %U %S' -o "$tmp/time" $(cmd "$1") "$n" > /dev/null)
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/time" >> "$tmp/$1.t"
}
for _ in $(seq "$runs"); do
    for v in "${variants[@]}"; do one "$v"; done
done
median() { # FILE COLUMN
    sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ a[NR] = $c } END {
        print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), fib($n), $cc -O2, RUNS=$runs, medians"
printf '%-9s %9s %9s %8s %8s\n' variant wall_s cpu_s wall_x cpu_x
pw=$(median "$tmp/plain.t" 1)
pc=$(median "$tmp/plain.t" 2)
for v in "${variants[@]}"; do
    w=$(median "$tmp/$v.t" 1)
    c=$(median "$tmp/$v.t" 2)
    awk -v v="$v" -v w="$w" -v c="$c" -v pw="$pw" -v pc="$pc" \
        'BEGIN { printf "%-9s %9.3f %9.3f %8.3f %8.3f\n", v, w, c, w / pw, c / pc }'
done
for v in default ${BASE_LIB_DIR:+base}; do
    echo "# $v run, fib's node:"
    "$instrument" report "$tmp/run.$v" | grep -E '^ *fib |throttled at' | sed 's/^/#   /'
done
if [ "${CALLGRIND:-0}" = 1 ]; then
    cg_n=${CG_N:-25}
    echo "# instructions (callgrind, fib($cg_n), one run each)"
    printf '%-9s %14s %8s\n' variant instructions x
    plain_ir=
    for v in "${variants[@]}"; do
        rm -rf "$tmp/run.cg"
        # The variant's variables (between `env` and the binary).
        envs=$(cmd "$v" | awk '{ for (i = 2; i < NF; i++) printf "%s ", $i }')
        bin=$(cmd "$v" | awk '{ print $NF }')
        th=100000,1000000000
        [ "$v" = off ] && th=off
        # shellcheck disable=SC2086
        (cd "$tmp" && env -u REGIO_THROTTLE -u REGIO_DISABLE REGIO_DIR="$tmp/run.cg" REGIO_THROTTLE=$th $envs \
            valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" "$cg_n" > /dev/null 2> "$tmp/cg.err")
        ir=$(grep -m1 '^summary:' "$tmp/cg.out" | awk '{ print $2 }')
        [ -z "$plain_ir" ] && plain_ir=$ir
        awk -v v="$v" -v i="$ir" -v p="$plain_ir" 'BEGIN { printf "%-9s %14.0f %8.2f\n", v, i, i / p }'
    done
fi
