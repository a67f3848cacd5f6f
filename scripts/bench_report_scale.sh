#!/usr/bin/env bash
# The analysis commands at MPI scale, as users run them:
#
#   scripts/bench_report_scale.sh [RANKS] [NODES] [RUNS]
#
# Writes a synthetic run directory of RANKS rank profiles x NODES DRG nodes
# (the generator of analysis/benches/merge_scale.rs, `--write`) and a
# one-rank baseline of the same shape, then times the release `instrument`
# binary on them with /usr/bin/time (wall seconds and peak resident set
# size of the whole process): `report` (text), `report --format json`
# (written to /dev/null) and `overhead BASELINE RUN`. Each command runs
# RUNS times; the lowest wall time and the highest peak are printed.
#
# Defaults: RANKS=1024 NODES=500 RUNS=3. Needs cargo and GNU time
# (Debian `time`). INSTRUMENT may name another instrument binary.
set -euo pipefail
RANKS="${1:-1024}"
NODES="${2:-500}"
RUNS="${3:-3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -x /usr/bin/time ]; then
    echo "bench_report_scale: needs GNU time (apt-get install time)" >&2
    exit 2
fi
cargo build --release -q -p instrument
INSTRUMENT="${INSTRUMENT:-$ROOT/target/release/instrument}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/regio-report-scale.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cargo bench -q -p regio-analysis --bench merge_scale -- "$RANKS" "$NODES" --write "$WORK/run"
cargo bench -q -p regio-analysis --bench merge_scale -- 1 "$NODES" --write "$WORK/base"

# measure NAME CMD...: RUNS runs; prints NAME, min wall s, max peak MiB.
measure() {
    local name="$1"
    shift
    local best="" peak=0 i wall kib
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null
        read -r wall kib <"$WORK/time"
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then
            best="$wall"
        fi
        if [ "$kib" -gt "$peak" ]; then peak="$kib"; fi
    done
    printf '%-28s %8.2f s %10.1f MiB\n' "$name" "$best" "$(awk -v k="$peak" 'BEGIN{print k/1024}')"
}

echo "instrument: $INSTRUMENT ($(git -C "$ROOT" rev-parse --short HEAD)); $RANKS ranks x $NODES nodes, $RUNS runs, min wall / max peak RSS"
measure "report (text)" "$INSTRUMENT" report "$WORK/run"
measure "report --format json" "$INSTRUMENT" report --format json "$WORK/run"
measure "overhead (text)" "$INSTRUMENT" overhead "$WORK/base" "$WORK/run"
measure "overhead --format json" "$INSTRUMENT" overhead --format json "$WORK/base" "$WORK/run"
