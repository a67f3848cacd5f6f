#!/bin/sh
# Instructions per Fortran MPI probe (callgrind, load-independent): the
# collective probe with the buffer's address (regio_mpi_coll_buf_, the
# MPI_IN_PLACE check) against the one without (regio_mpi_coll_, the same
# program with a name `loc` declared, which keeps the capture from writing
# LOC), and the Test probe (regio_mpi_test_status_). One rank (Open MPI
# singleton), release runtime, REGIO_MODE=trace REGIO_THROTTLE=off. Per
# call = (inclusive instructions at 2N iterations - at N) / N.
# Usage: scripts/bench_fortran_mpi_probes.sh [N]   (from the repository root)
set -eu
N=${1:-1000}
ROOT=$(pwd)
W=$(mktemp -d /tmp/regio-bench-fprobes.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
# The instrumenter's speed does not matter here: its debug build.
cargo build -p instrument >/dev/null 2>&1
cargo build --release -p regio-rt >/dev/null 2>&1
I=$ROOT/target/debug/instrument
R=$ROOT/target/release
mkdir -p "$W/buf" "$W/noloc"
cp testdata/trace/bench_fortran_probes.f90 "$W/buf/"
sed 's/^  logical :: flag$/  logical :: flag\n  integer :: loc/' testdata/trace/bench_fortran_probes.f90 > "$W/noloc/bench_fortran_probes.f90"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for v in buf noloc; do
  "$I" "$W/$v" --out "$W/$v-inst" --regions mpi >/dev/null
  (cd "$W" && mpif90 -O2 "$W/$v-inst/bench_fortran_probes.f90" -L"$R" -Wl,-rpath,"$R" -lregio -o "$W/$v.exe")
  for n in "$N" $((2 * N)); do
    (cd "$W" && REGIO_MODE=trace REGIO_THROTTLE=off REGIO_DIR="$W/run-$v-$n" \
      valgrind --tool=callgrind --callgrind-out-file="$W/cg.$v.$n" "$W/$v.exe" "$n" >/dev/null 2>&1)
  done
done
incl() { # file function -> inclusive instructions (the function list line)
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null \
    | awk -v f=":$2 [" 'index($0, f) {gsub(",", "", $1); print $1; exit}'
}
for pair in "buf regio_mpi_coll_buf_" "noloc regio_mpi_coll_" "buf regio_mpi_test_status_" "buf regio_mpi_reqs_"; do
  set -- $pair
  a=$(incl "$W/cg.$1.$N" "$2"); b=$(incl "$W/cg.$1.$((2 * N))" "$2")
  echo "$2 ($1): $(( (b - a) / N )) instructions per call (inclusive, MPI's own work included)"
done
# Test calls per iteration (the loop polls until the flag is true).
"$I" report "$W/run-buf-$((2 * N))" | grep -i "mpi_test" | head -3
