#!/bin/sh
# Installs Regio into PREFIX (usage: scripts/install.sh PREFIX, or
# `make install PREFIX=...`):
#   PREFIX/bin/instrument
#   PREFIX/lib/libregio.a, PREFIX/lib/libregio.so
#   PREFIX/include/regio.h
#   PREFIX/lib/pkgconfig/regio.pc            (pkg-config --cflags --libs regio)
#   PREFIX/lib/cmake/Regio/RegioConfig.cmake  (find_package(Regio): Regio::regio)
# The install is relocatable: nothing in it names PREFIX. `instrument`
# finds the runtime at ../lib and ../include from its own place, regio.pc
# from ${pcfiledir}, RegioConfig.cmake from its own directory; so the tree
# can be moved or copied anywhere as a whole.
# Fortran needs no module or include file: the probes call the runtime's
# external procedures (`regio_enter_`, ...) with implicit interfaces.
#
# REGIO_BUILT=DIR installs what is already built in DIR (a cargo
# target/<profile> directory) instead of running `cargo build --release`.
set -eu
prefix=${1:?usage: scripts/install.sh PREFIX}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${REGIO_BUILT:-}" ]; then
    built=$REGIO_BUILT
else
    cargo build --release --manifest-path "$root/Cargo.toml" -p instrument -p regio-rt
    built=${CARGO_TARGET_DIR:-$root/target}/release
fi
# Cargo copies a package's libraries up to target/<profile> only when the
# package itself is built; as a dependency they stay in deps/.
built_file() {
    if [ -f "$built/$1" ]; then
        echo "$built/$1"
    elif [ -f "$built/deps/$1" ]; then
        echo "$built/deps/$1"
    else
        echo "install.sh: $built/$1 is missing; build first" >&2
        exit 1
    fi
}
bin=$(built_file instrument)
lib_a=$(built_file libregio.a)
lib_so=$(built_file libregio.so)
version=$("$bin" --version | awk '{print $2}')

mkdir -p "$prefix/bin" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/Regio" "$prefix/include"
install -m 755 "$bin" "$prefix/bin/instrument"
install -m 644 "$lib_a" "$prefix/lib/libregio.a"
install -m 755 "$lib_so" "$prefix/lib/libregio.so"
install -m 644 "$root/runtime/include/regio.h" "$prefix/include/regio.h"
sed "s/@VERSION@/$version/" "$root/scripts/install/regio.pc.in" >"$prefix/lib/pkgconfig/regio.pc"
install -m 644 "$root/scripts/install/RegioConfig.cmake" "$prefix/lib/cmake/Regio/RegioConfig.cmake"
sed "s/@VERSION@/$version/" "$root/scripts/install/RegioConfigVersion.cmake.in" \
    >"$prefix/lib/cmake/Regio/RegioConfigVersion.cmake"
echo "installed Regio $version into $prefix"
