# Sourced (`. "$(dirname "$0")/bench_setup.sh"`) by the bench scripts that
# time release builds of instrumented programs: sets here, root, cc (CC or
# gcc), tmp (a scratch directory removed at exit), instrument (INSTRUMENT
# or the release build), REGIO_LIB_DIR (the release runtime) and the word
# lists cflags and libs of `instrument flags`.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "${INSTRUMENT:-}" ]; then
    # Any build of the instrumenter writes the same probes; only the
    # runtime's build matters for the timings.
    (cd "$root" && cargo build -q --release -p regio-rt)
else
    (cd "$root" && cargo build -q --release -p regio-rt -p instrument)
fi
instrument=${INSTRUMENT:-$root/target/release/instrument}
export REGIO_LIB_DIR=$root/target/release
# The flags are word lists: unquoted on purpose where they are used.
cflags=$("$instrument" flags --cflags)
libs=$("$instrument" flags --libs)
