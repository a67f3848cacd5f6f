# Sourced by scripts/bench_throttle.sh and bench_throttle_cg.sh after
# bench_setup.sh: builds of two fetched real codes (never committed here),
# each plain and instrumented with the default regions, so that the
# throttle benchmarks measure them by script, not by hand.
#
# - XSBench (https://github.com/ANL-CESAR/XSBench, openmp-threading/): a
#   Monte Carlo cross-section lookup proxy app, C + OpenMP. Built with the
#   flags of its Makefile (-O3 -std=gnu99 -flto -fopenmp -DOPENMP).
# - CloverLeaf_ref (https://github.com/UK-MAC/CloverLeaf_ref): a 2-D
#   structured-grid (stencil) hydrodynamics mini-app, Fortran 90 + C,
#   OpenMP + MPI. Built with its own Makefile (`make COMPILER=GNU`:
#   mpif90/mpicc -O3 -march=native -funroll-loops -fopenmp); it cannot be
#   built without MPI (clover.f90 uses the mpi module), so it runs as one
#   MPI rank (singleton, no mpirun) with OMP_NUM_THREADS threads. Its
#   Makefile has no library variable after the sources, so the runtime is
#   linked with -Wl,--no-as-needed in OPTIONS (notes/handoff-h-realcode.md).

# clover_input CELLS STEPS: CloverLeaf's test problem 2 on a CELLS x CELLS
# grid for STEPS steps, as clover.in.
clover_input() {
    cat << EOF
*clover
 state 1 density=0.2 energy 1.0
 state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0
 x_cells=$1
 y_cells=$1
 xmin=0.0
 ymin=0.0
 xmax=10.0
 ymax=10.0
 initial_timestep=0.04
 timestep_rise=1.5
 max_timestep=0.04
 end_step=$2
 test_problem 2
*endclover
EOF
}

# build_clover SRC_DIR OUT [INSTRUMENT_ARGS...]: CloverLeaf of SRC_DIR as
# the binary OUT; with INSTRUMENT_ARGS (e.g. `--small-functions`, or `-`
# for none) the tree is instrumented first and linked with the runtime.
build_clover() {
    local src=$1 out=$2 dir
    shift 2
    dir=$(mktemp -d "$tmp/clover.XXXX")
    if [ $# -eq 0 ]; then
        cp -r "$src/." "$dir"
        make -s -C "$dir" COMPILER=GNU > "$dir/make.log" 2>&1
    else
        [ "$1" = - ] && shift
        "$instrument" "$src" "$@" --out "$dir" > /dev/null
        # shellcheck disable=SC2086
        make -s -C "$dir" COMPILER=GNU C_OPTIONS="$cflags" \
            OPTIONS="-Wl,--no-as-needed $libs" > "$dir/make.log" 2>&1
    fi
    # Its Makefile ends the link with `; echo`, so make succeeds without
    # a binary when the link fails.
    [ -x "$dir/clover_leaf" ] || { cat "$dir/make.log" >&2; return 1; }
    # The tree stays (removed with $tmp): an instrumented binary reads its
    # IDF (regio.idf.json) there at start-up.
    cp "$dir/clover_leaf" "$out"
}

# add_realcode_programs SMALL: adds XSBench (XSBENCH_DIR, a checkout of
# the repository) and CloverLeaf (CLOVER_DIR) to the caller's programs,
# argv, workdir and status, built with the caller's `build` and
# build_clover; SMALL=yes also builds CloverLeaf with --small-functions.
add_realcode_programs() {
    if [ -n "${XSBENCH_DIR:-}" ]; then
        cp -r "$XSBENCH_DIR/openmp-threading" "$tmp/xsbench.src"
        build xsbench "$tmp/xsbench.src" -O3 -std=gnu99 -flto -DOPENMP
        programs+=(xsbench)
        argv[xsbench]="-s small -t 2 -m event -l 200000 -g 1000 -G nuclide"
        status[xsbench]=1 # its checksum is checked only for the default inputs
    fi
    if [ -n "${CLOVER_DIR:-}" ]; then
        build_clover "$CLOVER_DIR" "$tmp/clover.plain"
        build_clover "$CLOVER_DIR" "$tmp/clover.regio" -
        if [ "$1" = yes ]; then
            build_clover "$CLOVER_DIR" "$tmp/clover.small" --small-functions
        fi
        mkdir -p "$tmp/clover.wd"
        clover_input 120 40 > "$tmp/clover.wd/clover.in"
        programs+=(clover)
        argv[clover]=""
        workdir[clover]=$tmp/clover.wd
    fi
}
