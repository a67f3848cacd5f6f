#!/bin/sh
# Time `instrument --regions omp` against OPARI2 on the same OpenMP
# testdata (C and Fortran), in the same run, and print the ratio.
#
#   benches/benches/omp_vs_opari2.sh [REPEAT]
#
# Both tools see the same files in the same scratch directory. Each
# repetition runs `instrument` once over the whole set (one process, as
# users run it on a tree) and `opari2` once per file (its interface takes
# one file). OPARI2 2.0.x loops without end on a C directive continued
# inside a clause's parentheses, so both get the C files with `\`
# continuations joined (line numbers kept). Needs opari2 on PATH and a
# built `instrument` (cargo build --release -p instrument, or $INSTRUMENT).
set -eu
REPEAT=${1:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
INSTRUMENT=${INSTRUMENT:-$ROOT/target/release/instrument}
[ -x "$INSTRUMENT" ] || INSTRUMENT=$ROOT/target/debug/instrument
command -v opari2 >/dev/null || { echo "SKIPPED: needs opari2"; exit 0; }
[ -x "$INSTRUMENT" ] || { echo "build instrument first (cargo build --release -p instrument)"; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/src"
for f in "$ROOT"/testdata/omp/*.c "$ROOT"/testdata/omp/*.f90 "$ROOT"/testdata/omp/*.f; do
    [ -e "$f" ] || continue
    case "$f" in
    *.c) awk '/\\$/ { sub(/\\$/, ""); printf "%s ", $0; n++; next }
              { print; while (n > 0) { print ""; n-- } }' "$f" >"$WORK/src/$(basename "$f")" ;;
    *) cp "$f" "$WORK/src/" ;;
    esac
done
FILES=$(cd "$WORK/src" && ls)
LINES=$(cat "$WORK"/src/* | wc -l)

now() { date +%s%N; }

run_instrument() {
    rm -rf "$WORK/out"
    "$INSTRUMENT" "$WORK/src" --out "$WORK/out" --regions omp >/dev/null 2>&1
}

# Like-for-like with opari2's one process per file.
run_instrument_per_file() {
    # No clean-up between calls: opari2 overwrites its outputs too.
    for f in $FILES; do
        "$INSTRUMENT" "$WORK/src/$f" --out "$WORK/out1" --regions omp >/dev/null 2>&1
    done
}

run_opari2() {
    (cd "$WORK/src" && for f in $FILES; do
        case "$f" in
        *.c) out="${f%.c}.mod.c" ;;
        *.f) out="${f%.f}.mod.F" ;;
        *) out="${f%.*}.mod.F90" ;;
        esac
        opari2 "$f" "$WORK/$out" >/dev/null 2>&1
        rm -f "$f.opari.inc"
    done)
}

# Warm up (page cache, first-run costs), then alternate the two tools so
# both see the same machine state.
run_instrument
run_instrument_per_file
run_opari2
t_ins=0
t_pf=0
t_op=0
i=0
while [ "$i" -lt "$REPEAT" ]; do
    a=$(now); run_instrument; b=$(now); run_opari2; c=$(now)
    run_instrument_per_file; d=$(now)
    t_ins=$((t_ins + b - a))
    t_op=$((t_op + c - b))
    t_pf=$((t_pf + d - c))
    i=$((i + 1))
done
n=$(echo "$FILES" | wc -w)
echo "files: $n ($LINES lines): $(echo $FILES)"
echo "repetitions: $REPEAT"
awk -v a="$t_ins" -v b="$t_op" -v p="$t_pf" -v r="$REPEAT" 'BEGIN {
    printf "instrument --regions omp (one call for the tree): %.2f ms per run\n", a / r / 1e6
    printf "instrument --regions omp (one call per file): %.2f ms per run\n", p / r / 1e6
    printf "opari2 (one call per file): %.2f ms per run\n", b / r / 1e6
    printf "ratio instrument/opari2, tree: %.2f, per file: %.2f\n", a / b, p / b
}'
