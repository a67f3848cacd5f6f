#!/usr/bin/env bash
# Instructions (callgrind, all threads) that default regions cost with
# automatic throttling, on the programs of scripts/bench_throttle.sh with
# smaller inputs (md -DNP=300 -DSTEPS=4; CoMD -x 8 -y 8 -z 8 -N 10 -n 5;
# Lua scripts/bench_throttle.lua; with XSBENCH_DIR XSBench at the input
# bench_throttle.sh times (`-s small -t 2 -m event -l 200000 -g 1000 -G
# nuclide`: at fewer lookups the calls timed before the throttle weigh
# more than in the timed run); with CLOVER_DIR CloverLeaf on
# the timed input too (120x120 cells, 40 steps, one MPI rank; see scripts/bench_realcode.sh): a
# load-independent companion of that script's time columns.
#
#   scripts/bench_throttle_cg.sh [COMD_DIR] [LUA_DIR]
#
# Variants: plain (no probes), default (default regions, release
# libregio.so), disabled (REGIO_DISABLE=1: only the gated probes' cost),
# and with BASE_LIB_DIR (another build's libregio.so, same probe ABI) `base`:
# the same binary with that runtime through LD_LIBRARY_PATH. Under
# valgrind every call is slow, so a mean-time limit would never throttle:
# default and base run with REGIO_THROTTLE=10000,1000000000 (the default
# CALLS: a region is throttled once it has 10,000 calls, whatever their
# time; regions a timed run keeps measured, e.g. XSBench's
# calculate_macro_xs at ~1-2 µs a call, are throttled here too). SETTING=CALLS
# adds a variant `setting`: default regions with
# REGIO_THROTTLE=CALLS,1000000000. The OpenMP runtime's spin-waiting is
# counted too and depends on how valgrind schedules the threads;
# OMP_WAIT_POLICY=passive in the environment takes it out. Prints
# instructions and the ratio to plain, and the number of throttled
# regions (and the first of them) in each measuring run. Needs gcc with
# OpenMP, valgrind; INSTRUMENT and CC may be set.
set -euo pipefail
comd=${1:-}
lua=${2:-}
. "$(dirname "$0")/bench_setup.sh"

build() { # NAME SRC_DIR ARGS...
    local name=$1 src=$2
    shift 2
    # shellcheck disable=SC2086
    $cc -O2 -fopenmp "$@" "$src"/*.c -lm -o "$tmp/$name.plain"
    "$instrument" "$src" --out "$tmp/$name.inst" > /dev/null
    # shellcheck disable=SC2086
    $cc -O2 -fopenmp "$@" $cflags -I"$src" "$tmp/$name.inst"/*.c -lm $libs -o "$tmp/$name.regio"
}
mkdir -p "$tmp/md.src"
grep -v '^ *#pragma regio skip' "$root/testdata/scaling/md.c" > "$tmp/md.src/md.c"
build md "$tmp/md.src" -DNP=300 -DSTEPS=4
programs=(md)
declare -A argv=([md]="")
if [ -n "$comd" ]; then
    cp -r "$comd/src-openmp" "$tmp/comd.src"
    (cd "$tmp/comd.src" && bash generate_info_header CoMD-openmp "$cc" "-std=c99 -fopenmp -DDOUBLE" "-lm" > /dev/null 2>&1)
    build comd "$tmp/comd.src" -std=c99 -DDOUBLE
    programs+=(comd)
    argv[comd]="-x 8 -y 8 -z 8 -N 10 -n 5"
fi
declare -A workdir=() status=()
. "$here/bench_realcode.sh"
add_realcode_programs no
if [ -n "$lua" ]; then
    build_lua() {
        make -s -C "$1" MYCFLAGS="-std=c99 -DLUA_USE_LINUX ${2:-}" MYLIBS="-ldl ${3:-}" CWARNS= > /dev/null 2>&1
    }
    cp -r "$lua" "$tmp/lua.plain.src"
    build_lua "$tmp/lua.plain.src"
    cp "$tmp/lua.plain.src/lua" "$tmp/lua.plain"
    "$instrument" "$lua" --out "$tmp/lua.inst" 2> /dev/null
    build_lua "$tmp/lua.inst" "$cflags" "$libs"
    cp "$tmp/lua.inst/lua" "$tmp/lua.regio"
    cp "$here/bench_throttle.lua" "$tmp/bench.lua"
    programs+=(lua)
    argv[lua]="bench.lua"
fi
variants=(plain default disabled)
[ -n "${BASE_LIB_DIR:-}" ] && variants+=(base)
[ -n "${SETTING:-}" ] && variants+=(setting)
# OFF=1: also default regions with REGIO_THROTTLE=off (everything timed).
[ "${OFF:-0}" = 1 ] && variants+=(off)

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $cc -O2 -fopenmp, OMP_NUM_THREADS=2${OMP_WAIT_POLICY:+ OMP_WAIT_POLICY=$OMP_WAIT_POLICY}, callgrind"
printf '%-6s %-9s %14s %8s  %s\n' program variant instructions x throttled
for p in "${programs[@]}"; do
    plain_ir=
    for v in "${variants[@]}"; do
        bin=$tmp/$p.regio
        env=(REGIO_DIR="$tmp/run.$p.$v" REGIO_THROTTLE=10000,1000000000)
        case $v in
            plain) bin=$tmp/$p.plain ;;
            disabled) env+=(REGIO_DISABLE=1) ;;
            base) env+=(LD_LIBRARY_PATH="$BASE_LIB_DIR") ;;
            setting) env+=(REGIO_THROTTLE="$SETTING,1000000000") ;;
            off) env+=(REGIO_THROTTLE=off) ;;
        esac
        rm -rf "$tmp/run.$p.$v"
        rc=0
        # shellcheck disable=SC2086
        (cd "${workdir[$p]:-$tmp}" && env -u REGIO_THROTTLE -u REGIO_DISABLE "${env[@]}" OMP_NUM_THREADS=2 \
            valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$bin" ${argv[$p]} > /dev/null 2> "$tmp/cg.err") || rc=$?
        if [ "$rc" != "${status[$p]:-0}" ]; then
            echo "$p ($v) ended with status $rc" >&2
            cat "$tmp/cg.err" >&2
            exit 1
        fi
        ir=$(cat "$tmp"/cg.* | awk '/^summary:/ { s += $2 } END { print s }')
        rm -f "$tmp"/cg.[0-9]*
        [ -z "$plain_ir" ] && plain_ir=$ir
        th=-
        if [ -d "$tmp/run.$p.$v" ]; then
            th=$("$instrument" report "$tmp/run.$p.$v" | awk '
                /^throttled regions:/ { n = $3; on = 1; next }
                on && /^ / && !first { sub(/^ +/, ""); first = $0 }
                on && /^$/ { on = 0 }
                END { printf "%d%s", n, first ? " (" first ")" : "" }')
        fi
        awk -v p="$p" -v v="$v" -v i="$ir" -v b="$plain_ir" -v t="$th" \
            'BEGIN { printf "%-6s %-9s %14.0f %8.3f  %s\n", p, v, i, i / b, t }'
    done
done
