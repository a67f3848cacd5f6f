#!/usr/bin/env bash
# What C and Fortran users pay per probe pair, measured in programs built
# the way users build them:
#
#   scripts/bench_c_probe.sh [N] [RUNS] [REPS]
#
# Instruments scripts/bench_c_probe/probe_cost.c with
# `instrument --regions functions` (only `tiny` becomes a region; its exit
# goes through the regio_guard_exit cleanup, as in every instrumented C
# function), builds it with `instrument flags --cflags/--libs` against the
# release libregio.so and libregio.a, and builds the original with
# `gcc -finstrument-functions` and hooks that read rdtsc once each (two reads
# per call, the cheapest timing peer). The `fortran_*` variants call the
# Fortran twins in tiny_f.f90 instead (instrumented the same way, built with
# `instrument flags --fflags`, gfortran), from the same C driver compiled
# without probes (needs gfortran). Each process times, interleaved, N
# calls of `tiny` (probed), N calls of an identical function without probes
# (plain) and N pairs of back-to-back rdtsc reads (the floor of any probe
# that timestamps), REPS times; each variant runs RUNS processes. Added cost
# per probe pair = probed - plain of the same repetition. Prints min and
# median over all repetitions and added / rdtsc pair (x_min, x_med: the
# minima and medians of each column; x_paired: the median of the ratio per
# repetition, whose two loops ran back to back, the steadier figure on a
# loaded machine).
#
# Defaults: N=20000000 RUNS=3 REPS=3. Variants run in turn within each run,
# so load on a shared machine hits them alike. Needs gcc and cargo; builds
# the release runtime (`cargo build --release -p regio-rt`) and the
# `instrument` binary if needed. CC, CFLAGS (default -O2) and INSTRUMENT
# (path of the instrument binary) may be set; BASE_LIB_DIR (a directory
# holding another build's libregio.so and libregio.a) adds the variants
# `base_shared` and `base_static` built against it, for an A/B of a change
# (when that libregio.so has no `regio_gates`, their probes are written back
# to the text before the probe gates; else they are regio_*'s probes; only
# these C rows are run against it, like `regio_*`: REGIO_THROTTLE=off).
# The `*_disabled`, `*_filtered`, `*_masked` and `*_throttled` variants run
# the same binaries as regio_shared / regio_static (and fortran_regio_shared
# for the filtered and masked ones) with REGIO_DISABLE=1, with
# REGIO_FILTER excluding `tiny` (`tiny_f`), with REGIO_EVENTS=loops (no
# function region recorded), and with REGIO_THROTTLE at its default (so
# `tiny` stops being measured after its first 100,000 calls; the minimum
# over repetitions is past that point); every other variant runs with
# REGIO_THROTTLE=off. Before timing, the script shows what each of these
# measures: `objdump -d` of `tiny` in both builds (the two probe calls) and
# the `tiny` line of `instrument report` after a short run of each
# variant (throttled: "[throttled at ... calls]"; filtered, masked and disabled: no
# line). OBJDUMP=0 skips that.
#
# UNGATED=1 adds `ungated_shared` and `ungated_static`: the same
# instrumented copy with its constructor no longer asking for the probe
# gates (`regio_gates`), so every probe calls the runtime after finding its
# gate open in the block the pointer starts with (`regio_no_gates`, all
# open): the A/B of the gate check in the instrumented code against one
# runtime. (The `UNBASED=1` A/B of the per-object base worked
# on the probe text before the gates and is gone with it.)
# NOPLT=1 adds `noplt_shared`: regio_shared's source built with -fno-plt
# as well (the probe calls go through the GOT, no PLT stub).
# MODEL=1 adds `inline_model`: probe_cost.c uninstrumented with
# -DREGIO_MODEL, linked with bench_c_probe/inline_model.c, a model (not a
# runtime) of the probe fast path compiled inline into the probe site (the
# runtime's memory work per pair, an initial-exec TLS thread pointer, no
# call): what a `static inline` fast path in the prelude could reach;
# `lean_model` (bench_c_probe/lean_model.c), the same work laid out for the
# shortest chains of dependent loads (the TLS slot holds the top frame, the
# child cache is in the frame, the exit loads before its clock read); and
# `bound_model` (bound_model.c), a lower bound that keeps only a frame
# stack, calls and inclusive time (no gate, busy flag, exclusive, min, max:
# not a probe Regio could ship).
# PAIRED=1 runs bench_c_probe/paired.c after the table: the real probe
# (regio_shared's code), the three models and a two-call rdtsc hook pair,
# all in one process, interleaved, each ratio taken against the rdtsc pair
# timed right after it (300000 calls x 100 repetitions; PAIRED_N and
# PAIRED_REPS change them): the comparison least blurred by load.
# SHADOW=1 runs bench_c_probe/rdtsc_shadow.c after the table: what some
# fixed work (dependent and independent adds, loads from one line, from 8
# lines, from 8 pages, chains of dependent loads) adds when it sits between
# two rdtsc reads, and what it costs in a loop alone (there iterations
# overlap: a throughput, not a latency). On the reference VM the first is
# not proportional to the work and changed between runs of one day (see
# notes/handoff-h-probe12.md); the probe's instruction count is the stable
# measure.
# CALLGRIND=1 adds instructions per probe pair (valgrind callgrind, inside
# `tiny` against `tiny_plain`, 100000 calls): a count that load on a shared
# machine cannot blur (the throttled variants there with
# REGIO_THROTTLE=1000,1000000, so 99 % of the counted calls are throttled).
set -euo pipefail
n=${1:-20000000}
runs=${2:-3}
reps=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
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

src=$here/bench_c_probe/probe_cost.c
fsrc=$here/bench_c_probe/tiny_f.f90
# --small-functions: `tiny` is the kind of function the default leaves
# unprobed (straight-line, one statement), and its probes are what is timed.
"$instrument" --regions functions --small-functions --out "$tmp/inst" "$src" "$fsrc" > /dev/null 2>&1
inst=$(find "$tmp/inst" -name probe_cost.c | head -n 1)
finst=$(find "$tmp/inst" -name tiny_f.f90 | head -n 1)
if ! grep -q 'regio__guard(' "$inst"; then
    echo "bench_c_probe.sh: the instrumented copy of probe_cost.c has no probe in tiny" >&2
    exit 1
fi

# Builds the instrumented program against the libregio in $2 (shared, or
# static when $3 is "static") as $1; $4, if given, is the instrumented C
# file to build instead of $inst.
build_regio() {
    local lib=$2 csrc=${4:-$inst}
    if [ "$3" = static ]; then
        lib=$tmp/static-$1
        mkdir -p "$lib"
        ln -s "$2/libregio.a" "$lib/libregio.a"
    fi
    # The flags are word lists: unquoted on purpose.
    # shellcheck disable=SC2046,SC2086
    $cc $cflags $(REGIO_LIB_DIR=$lib "$instrument" flags --cflags) "$csrc" \
        $(REGIO_LIB_DIR=$lib "$instrument" flags --libs) -o "$tmp/$1"
    if command -v gfortran > /dev/null; then
        # shellcheck disable=SC2046,SC2086
        {
            gfortran $cflags $(REGIO_LIB_DIR=$lib "$instrument" flags --fflags) -c "$finst" \
                -o "$tmp/$1.tiny_f.o"
            $cc $cflags -DREGIO_FORTRAN -c "$src" -o "$tmp/$1.driver.o"
            gfortran "$tmp/$1.driver.o" "$tmp/$1.tiny_f.o" \
                $(REGIO_LIB_DIR=$lib "$instrument" flags --libs) -o "$tmp/fortran_$1"
        }
    fi
}
build_regio regio_shared "$release" shared
build_regio regio_static "$release" static
variants=(regio_shared regio_static regio_shared_disabled regio_static_disabled
    regio_shared_filtered regio_static_filtered regio_shared_masked regio_static_masked
    regio_shared_throttled regio_static_throttled gcc_cyg_rdtsc2)
printf 'exclude region tiny\nexclude region tiny_f\n' > "$tmp/tiny.filter"
if command -v gfortran > /dev/null; then
    variants+=(fortran_regio_shared fortran_regio_static fortran_regio_shared_filtered
        fortran_regio_shared_masked)
fi
if [ "${UNGATED:-0}" = 1 ]; then
    sed 's/ regio__gate_v = regio_gates(regio__base_v);//' "$inst" > "$tmp/ungated_probe_cost.c"
    if cmp -s "$inst" "$tmp/ungated_probe_cost.c"; then
        echo "UNGATED=1: the prelude has no regio_gates call to take out" >&2
        exit 1
    fi
    build_regio ungated_shared "$release" shared "$tmp/ungated_probe_cost.c"
    build_regio ungated_static "$release" static "$tmp/ungated_probe_cost.c"
    variants+=(ungated_shared ungated_static)
fi
if [ "${NOPLT:-0}" = 1 ]; then
    cflags_saved=$cflags
    cflags="$cflags -fno-plt"
    build_regio noplt_shared "$release" shared
    cflags=$cflags_saved
    variants+=(noplt_shared)
fi
if [ "${MODEL:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    for m in inline lean bound; do
        $cc $cflags -DREGIO_MODEL "$src" "$here/bench_c_probe/${m}_model.c" -o "$tmp/${m}_model"
        variants+=("${m}_model")
    done
fi
if [ -n "${BASE_LIB_DIR:-}" ]; then
    # Not `nm | grep -q`: grep stops at the first match, nm dies of
    # SIGPIPE, and under pipefail a runtime with gates looked like one
    # without (its rows then measured the old probe text).
    if nm -D "$BASE_LIB_DIR/libregio.so" | grep -c ' [BDR] regio_no_gates$' > /dev/null; then
        # A runtime with the probe gates as they are now: the same probes
        # as regio_*.
        cp "$inst" "$tmp/old_probe_cost.c"
    else
        # The probe text before the gates (a runtime of that time has no
        # regio_gates / regio_enter_gated, or gates that may be null, which
        # today's probes no longer test): the same copy, its probes written
        # back as they were.
        sed -E -e 's/regio__guard\(([0-9]+)u\)/(regio_enter(regio__base() + \1u), regio__base() + \1u)/g' \
            -e 's/cleanup\(regio__leave\)/cleanup(regio_guard_exit)/g' \
            -e 's/regio__enter\(([0-9]+)u\)/regio_enter(regio__base() + \1u)/g' \
            -e 's/regio__exit\(([0-9]+)u\)/regio_exit(regio__base() + \1u)/g' \
            -e 's/ = regio_no_gates;/;/' \
            -e 's/ regio__gate_v = regio_gates\(regio__base_v\);//' "$inst" > "$tmp/old_probe_cost.c"
    fi
    build_regio base_shared "$BASE_LIB_DIR" shared "$tmp/old_probe_cost.c"
    build_regio base_static "$BASE_LIB_DIR" static "$tmp/old_probe_cost.c"
    variants+=(base_shared base_static)
fi
# shellcheck disable=SC2086
{
    $cc $cflags -c "$here/bench_c_probe/cyg_hooks.c" -o "$tmp/cyg_hooks.o"
    $cc $cflags -finstrument-functions "$src" "$tmp/cyg_hooks.o" -o "$tmp/gcc_cyg_rdtsc2"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $cc $cflags; N=$n RUNS=$runs REPS=$reps; libregio from $release"
printf '%-22s %9s %9s %9s %9s %9s %9s %8s %8s %4s %8s\n' variant \
    plain_min probed_min rdtsc2_min added_min added_med rdtsc2_med \
    'x_min' 'x_med' n 'x_paired'

# The binary of variant $1 and the environment it runs with.
variant_env() {
    local b=$1
    b=${b%_disabled}
    b=${b%_filtered}
    b=${b%_masked}
    b=${b%_throttled}
    bin=$tmp/$b
    case $1 in
        *_disabled) env=(REGIO_DISABLE=1 REGIO_THROTTLE=off) ;;
        *_filtered) env=(REGIO_FILTER="$tmp/tiny.filter" REGIO_THROTTLE=off) ;;
        # Function regions masked by the run-time event list.
        *_masked) env=(REGIO_EVENTS=loops REGIO_THROTTLE=off) ;;
        *_throttled) env=(REGIO_FILTER=) ;;
        *) env=(REGIO_THROTTLE=off) ;;
    esac
}

run_variant() { # NAME: one process, its lines appended to NAME.txt
    local bin env
    variant_env "$1"
    env -u REGIO_THROTTLE "${env[@]}" REGIO_DIR="$tmp/run" "$bin" "$n" "$reps" >> "$tmp/$1.txt"
}

if [ "${OBJDUMP:-1}" = 1 ]; then
    for b in regio_shared regio_static; do
        echo "# objdump -d $b: tiny"
        objdump -d --no-show-raw-insn "$tmp/$b" |
            awk '/^[0-9a-f]+ <tiny>:/ { on = 1 } on && /^$/ { on = 0 } on' | sed 's/^/#   /'
    done
    for v in regio_shared regio_shared_disabled regio_shared_filtered regio_shared_masked \
        regio_shared_throttled; do
        variant_env "$v"
        rm -rf "$tmp/check"
        env -u REGIO_THROTTLE "${env[@]}" REGIO_DIR="$tmp/check" "$bin" 300000 1 > /dev/null
        line=$("$instrument" report "$tmp/check" 2> /dev/null | grep -E '^ *tiny ' || true)
        echo "# $v (300000 calls): ${line:-no tiny line (nothing measured)}"
    done
fi

summarize() { # NAME
    awk -v name="$1" '
        function med(a, k,    i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        $1 == "rep" {
            k++; p[k] = $4; q[k] = $6; r[k] = $8; d[k] = $6 - $4
            x[k] = $8 > 0 ? ($6 - $4) / $8 : 0
        }
        END {
            pm = 1e18; qm = 1e18; rm = 1e18; dm = 1e18
            for (i = 1; i <= k; i++) {
                if (p[i] < pm) pm = p[i]; if (q[i] < qm) qm = q[i]
                if (r[i] < rm) rm = r[i]; if (d[i] < dm) dm = d[i]
            }
            dmed = med(d, k); rmed = med(r, k)
            printf "%-22s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.2f %8.2f %4d %8.2f\n",
                name, pm, qm, rm, dm, dmed, rmed, dm / rm, dmed / rmed, k, med(x, k)
        }' "$tmp/$1.txt"
}

for v in "${variants[@]}"; do : > "$tmp/$v.txt"; done
for _ in $(seq "$runs"); do
    for v in "${variants[@]}"; do run_variant "$v"; done
done
for v in "${variants[@]}"; do summarize "$v"; done
echo "# added = probed - plain per repetition (ns per call); x = added / rdtsc pair"
echo "# x_paired = median over repetitions of added / rdtsc pair of the same repetition"

if [ "${PAIRED:-0}" = 1 ]; then
    # shellcheck disable=SC2046,SC2086
    {
        $cc $cflags $(REGIO_LIB_DIR=$release "$instrument" flags --cflags) -Dtiny=tiny_real \
            -Dtiny_plain=tiny_plain_real -Dmain=probe_cost_main -Dsink=probe_cost_sink \
            -c "$inst" -o "$tmp/paired_real.o"
        for m in inline lean bound; do
            $cc $cflags -Dtiny_model=tiny_$m -Dtiny_model_plain=tiny_${m}_plain \
                -Dtiny_model_init=tiny_${m}_init -c "$here/bench_c_probe/${m}_model.c" \
                -o "$tmp/paired_$m.o"
        done
        $cc $cflags "$here/bench_c_probe/paired.c" "$tmp"/paired_*.o \
            $(REGIO_LIB_DIR=$release "$instrument" flags --libs) -o "$tmp/paired"
    }
    REGIO_THROTTLE=off REGIO_DIR="$tmp/run" "$tmp/paired" "${PAIRED_N:-300000}" "${PAIRED_REPS:-100}"
fi

if [ "${SHADOW:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    $cc $cflags "$here/bench_c_probe/rdtsc_shadow.c" -o "$tmp/rdtsc_shadow"
    "$tmp/rdtsc_shadow" 200000 40
fi

if [ "${CALLGRIND:-0}" = 1 ]; then
    calls=100000
    echo "# instructions per probe pair (callgrind, $calls calls + 1000 warm-up)"
    for v in "${variants[@]}"; do
        case $v in gcc_*) continue ;; esac
        fn=tiny plainfn=tiny_plain
        case $v in
            fortran_*) fn=tiny_f_ plainfn=tiny_f_plain_ ;;
            *_model) fn=tiny_model plainfn=tiny_model_plain ;;
        esac
        variant_env "$v"
        # Throttled from call 1000 on, so 99 % of the counted calls are.
        case $v in *_throttled) env+=(REGIO_THROTTLE=1000,1000000) ;; esac
        for f in "$fn" "$plainfn"; do
            env -u REGIO_THROTTLE "${env[@]}" REGIO_DIR="$tmp/run" \
                valgrind --tool=callgrind --toggle-collect="$f" \
                --callgrind-out-file="$tmp/cg.$v.$f" "$bin" "$calls" 1 > /dev/null 2>&1
        done
        probed=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$v.$fn")
        plain=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$v.$plainfn")
        awk -v v="$v" -v p="$probed" -v q="$plain" -v n=$((calls + 1000)) \
            'BEGIN { printf "%-22s %9.1f\n", v, (p - q) / n }'
    done
fi
