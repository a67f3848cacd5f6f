#!/usr/bin/env bash
# What default regions cost on OpenMP codes with automatic throttling on
# (REGIO_THROTTLE unset: the default) and off, against the plain build:
#
#   scripts/bench_throttle.sh [RUNS] [COMD_DIR] [LUA_DIR]
#
# Programs:
# - md: testdata/scaling/md.c with its `#pragma regio skip` lines removed
#   (no hand-written filter: dist, v, dv and the pair loops, called once
#   per particle pair, become regions like everything else);
#   -DNP=1000 -DSTEPS=10.
# - comd: CoMD's src-openmp (a molecular-dynamics proxy app; pass a
#   checkout of https://github.com/exmatex/CoMD as COMD_DIR, never
#   committed here), built without MPI, run as `CoMD-openmp -x 12 -y 12
#   -z 12 -N 10 -n 5`. Skipped without COMD_DIR.
# - lua: the Lua interpreter (pass a checkout of https://github.com/lua/lua
#   as LUA_DIR, never committed here), built with its own makefile
#   (`MYCFLAGS="-std=c99 -DLUA_USE_LINUX"`, the instrumented builds with
#   `instrument flags` added to MYCFLAGS/MYLIBS), running
#   scripts/bench_throttle.lua (sort, integer loops, closures, strings,
#   a coroutine, pcall). Skipped without LUA_DIR.
# - xsbench: XSBench's openmp-threading (set XSBENCH_DIR to a checkout of
#   https://github.com/ANL-CESAR/XSBench), `-s small -t 2 -m event -l
#   200000 -g 1000 -G nuclide` (exit status 1: XSBench checks its checksum
#   only for its default inputs, and says "invalid" for this one, in the
#   plain build too). Skipped without XSBENCH_DIR.
# - clover: CloverLeaf_ref (set CLOVER_DIR to a checkout of
#   https://github.com/UK-MAC/CloverLeaf_ref), test problem 2 on 120x120
#   cells, 40 steps, one MPI rank. Skipped without CLOVER_DIR. How both
#   are built: scripts/bench_realcode.sh.
# Each program is instrumented with the default `--regions`
# (functions,user,omp,mpi) and built with `instrument flags`
# (--cflags/--libs, the release libregio.so) and gcc -O2 -fopenmp; the
# plain build uses the same flags without probes. Variant `small` is the
# same program instrumented with `--small-functions` (every function
# measured, as before small functions were left out), default throttle;
# `default` and `off` use the default regions (small functions left
# unmeasured) with the throttle on and off. Variants run
# interleaved, RUNS times each (default 5), OMP_NUM_THREADS=2. Prints the
# median wall time and CPU time (user+sys) per variant and the ratio to
# plain, then the throttled regions of the last small and default runs
# (the "throttled regions" list of `instrument report`) and the small
# functions the default leaves out (IDF `aux.skipped`) with their calls
# in the small run. SETTING=CALLS,NS adds
# a variant `setting` run with REGIO_THROTTLE=$SETTING. BASE_LIB_DIR (a
# directory with another build's libregio.so) adds a variant `base`: the
# same instrumented copy with its probes written back to the text before
# the probe gates, against that runtime, default throttle (an A/B of the
# probe gates and the runtime's fast path). Needs gcc with
# OpenMP, cargo; CC and INSTRUMENT may be set (with INSTRUMENT, only the
# release runtime is built). SMALL=no leaves the `small` variant out
# (and its builds).
set -euo pipefail
runs=${1:-5}
comd=${2:-}
lua=${3:-}
. "$(dirname "$0")/bench_setup.sh"

# build NAME SRC_DIR ARGS...: plain and instrumented builds of the C files
# of SRC_DIR into $tmp/NAME.plain and $tmp/NAME.regio; ARGS are compiler
# arguments for both.
build() {
    local name=$1 src=$2
    shift 2
    mkdir -p "$tmp/$name.inst"
    # shellcheck disable=SC2086
    $cc -O2 -fopenmp "$@" "$src"/*.c -lm -o "$tmp/$name.plain"
    "$instrument" "$src" --out "$tmp/$name.inst" > /dev/null
    # shellcheck disable=SC2086
    $cc -O2 -fopenmp "$@" $cflags -I"$src" "$tmp/$name.inst"/*.c -lm $libs -o "$tmp/$name.regio"
    if [ "${SMALL:-}" != no ]; then
        mkdir -p "$tmp/$name.small.inst"
        "$instrument" "$src" --small-functions --out "$tmp/$name.small.inst" > /dev/null
        # shellcheck disable=SC2086
        $cc -O2 -fopenmp "$@" $cflags -I"$src" "$tmp/$name.small.inst"/*.c -lm $libs -o "$tmp/$name.small"
    fi
    if [ -n "${BASE_LIB_DIR:-}" ]; then
        # The same copy with its probes written back to the text before the
        # probe gates, against the other runtime (variant `base`).
        mkdir -p "$tmp/$name.old"
        for f in "$tmp/$name.inst"/*; do
            sed -E -e 's/regio__guard\(([0-9]+)u\)/(regio_enter(regio__base() + \1u), regio__base() + \1u)/g' \
                -e 's/cleanup\(regio__leave\)/cleanup(regio_guard_exit)/g' \
                -e 's/regio__enter\(([0-9]+)u\)/regio_enter(regio__base() + \1u)/g' \
                -e 's/regio__exit\(([0-9]+)u\)/regio_exit(regio__base() + \1u)/g' \
                -e 's/ = regio_no_gates;/;/' \
                -e 's/ regio__gate_v = regio_gates\(regio__base_v\);//' "$f" > "$tmp/$name.old/$(basename "$f")"
        done
        # shellcheck disable=SC2086
        $cc -O2 -fopenmp "$@" $cflags -I"$src" "$tmp/$name.old"/*.c -lm \
            $(REGIO_LIB_DIR=$BASE_LIB_DIR "$instrument" flags --libs) -o "$tmp/$name.base"
    fi
}

mkdir -p "$tmp/md.src"
grep -v '^ *#pragma regio skip' "$root/testdata/scaling/md.c" > "$tmp/md.src/md.c"
build md "$tmp/md.src" -DNP=1000 -DSTEPS=10
programs=(md)
declare -A argv=([md]="")
if [ -n "$comd" ]; then
    cp -r "$comd/src-openmp" "$tmp/comd.src"
    (cd "$tmp/comd.src" && bash generate_info_header CoMD-openmp "$cc" "-std=c99 -fopenmp -DDOUBLE" "-lm" > /dev/null 2>&1)
    build comd "$tmp/comd.src" -std=c99 -DDOUBLE
    programs+=(comd)
    argv[comd]="-x 12 -y 12 -z 12 -N 10 -n 5"
fi

# Per program: the directory it runs in (default $tmp) and the exit
# status it ends with (default 0).
declare -A workdir=() status=()
. "$here/bench_realcode.sh"
add_realcode_programs "$([ "${SMALL:-}" != no ] && echo yes || echo no)"

if [ -n "$lua" ]; then
    # build_lua DIR [CFLAGS LIBS]: the interpreter of DIR with its makefile.
    build_lua() {
        make -s -C "$1" MYCFLAGS="-std=c99 -DLUA_USE_LINUX ${2:-}" MYLIBS="-ldl ${3:-}" CWARNS= > /dev/null 2>&1
    }
    cp -r "$lua" "$tmp/lua.plain.src"
    build_lua "$tmp/lua.plain.src"
    cp "$tmp/lua.plain.src/lua" "$tmp/lua.plain"
    "$instrument" "$lua" --out "$tmp/lua.inst" 2> /dev/null
    build_lua "$tmp/lua.inst" "$cflags" "$libs"
    cp "$tmp/lua.inst/lua" "$tmp/lua.regio"
    if [ "${SMALL:-}" != no ]; then
        "$instrument" "$lua" --small-functions --out "$tmp/lua.small.inst" 2> /dev/null
        build_lua "$tmp/lua.small.inst" "$cflags" "$libs"
        cp "$tmp/lua.small.inst/lua" "$tmp/lua.small"
    fi
    cp "$here/bench_throttle.lua" "$tmp/bench.lua"
    programs+=(lua)
    argv[lua]="bench.lua"
fi

variants=(plain small default off)
[ "${SMALL:-}" = no ] && variants=(plain default off)
if [ -n "${SETTING:-}" ]; then
    variants+=(setting)
fi
if [ -n "${BASE_LIB_DIR:-}" ]; then
    variants+=(base)
fi
# timed OUT CMD ARGS...: runs CMD and writes "wall user sys" seconds of it
# (and the children it waited for) to OUT, with microsecond resolution
# (GNU time prints 10 ms steps, a tenth of some of these runs' CPU time);
# exits with CMD's status.
timed() {
    python3 -c 'import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write("%.6f %.6f %.6f\n" % (time.monotonic() - t, ru.ru_utime, ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}
one() { # PROGRAM VARIANT: appends "wall cpu" to $tmp/PROGRAM.VARIANT.t
    local bin=$tmp/$1.regio env=(REGIO_DIR="$tmp/run.$1.$2")
    case $2 in
        plain) bin=$tmp/$1.plain ;;
        base) bin=$tmp/$1.base ;;
        small) bin=$tmp/$1.small ;;
        off) env+=(REGIO_THROTTLE=off) ;;
        setting) env+=(REGIO_THROTTLE="$SETTING") ;;
    esac
    [ -x "$bin" ] || return 0 # `base` has no Lua or CloverLeaf build
    rm -rf "$tmp/run.$1.$2"
    local rc=0
    # shellcheck disable=SC2086
    (cd "${workdir[$1]:-$tmp}" && unset REGIO_THROTTLE && export "${env[@]}" OMP_NUM_THREADS=2 &&
        timed "$tmp/time" "$bin" ${argv[$1]} > /dev/null) || rc=$?
    if [ "$rc" != "${status[$1]:-0}" ]; then
        echo "$1 ($2) ended with status $rc" >&2
        return 1
    fi
    awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$tmp/time" >> "$tmp/$1.$2.t"
}

for _ in $(seq "$runs"); do
    for p in "${programs[@]}"; do
        for v in "${variants[@]}"; do one "$p" "$v"; done
    done
done

median() { # FILE COLUMN
    sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ a[NR] = $c } END {
        print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $cc -O2 -fopenmp, OMP_NUM_THREADS=2${OMP_WAIT_POLICY:+ OMP_WAIT_POLICY=$OMP_WAIT_POLICY}, RUNS=$runs, medians"
printf '%-6s %-8s %9s %9s %8s %8s\n' program variant wall_s cpu_s wall_x cpu_x
for p in "${programs[@]}"; do
    pw=$(median "$tmp/$p.plain.t" 1)
    pc=$(median "$tmp/$p.plain.t" 2)
    for v in "${variants[@]}"; do
        [ -f "$tmp/$p.$v.t" ] || continue
        w=$(median "$tmp/$p.$v.t" 1)
        c=$(median "$tmp/$p.$v.t" 2)
        awk -v p="$p" -v v="$v" -v w="$w" -v c="$c" -v pw="$pw" -v pc="$pc" \
            'BEGIN { printf "%-6s %-8s %9.3f %9.3f %8.3f %8.3f\n", p, v, w, c, w / pw, c / pc }'
    done
done
for p in "${programs[@]}"; do
    for v in small default ${SETTING:+setting} ${BASE_LIB_DIR:+base}; do
        [ -d "$tmp/run.$p.$v" ] || continue
        echo "# $p, $v run: throttled regions"
        "$instrument" report "$tmp/run.$p.$v" |
            awk '/^throttled regions:/ { on = 1 } on && /^$/ { on = 0 } on' | sed 's/^/#   /'
    done
    if [ -d "$tmp/run.$p.small" ]; then
    echo "# $p: small functions left unmeasured by default (IDF aux.skipped), with their calls in the small run:"
    python3 - "$tmp/run.$p.default/regio.idf.json" <("$instrument" report --format json "$tmp/run.$p.small") <<'PY'
import json, sys
idf = json.load(open(sys.argv[1]))
small = {r["name"]: r for r in idf["regions"] if r.get("aux", {}).get("skipped") == "small"}
calls = {}
def walk(ns):
    for n in ns:
        if n["name"] in small:
            calls[n["name"]] = calls.get(n["name"], 0) + n["calls"]
        walk(n["children"])
walk(json.load(open(sys.argv[2]))["runs"][0]["drg"])
listed = sorted(small, key=lambda n: -calls.get(n, 0))
print("#   %d small functions; %d of them called" % (len(small), sum(1 for n in small if calls.get(n))))
for n in listed[:8]:
    print("#   %s (%s:%d): %d statements, %d calls measured with --small-functions"
          % (n, small[n]["file"], small[n]["start"]["line"], small[n]["aux"]["statements"], calls.get(n, 0)))
PY
    fi
    calls=$("$instrument" report --format json "$tmp/run.$p.off" |
        python3 -c 'import json,sys
r = json.load(sys.stdin)["runs"][0]
t = 0
def walk(ns):
    global t
    for n in ns:
        t += n["calls"]; walk(n["children"])
walk(r["drg"]); print(t)')
    echo "# $p: $calls region entries with REGIO_THROTTLE=off"
done
