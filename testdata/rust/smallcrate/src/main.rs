//! Functions, loops with known trip counts, a user region, a method and a
//! trait default method. Output is deterministic.

mod grid;

use grid::{Grid, Labelled};

/// Called `ROWS * COLS` times through `Grid::fill`.
fn cell(r: usize, c: usize) -> u64 {
    (r * 10 + c) as u64
}

fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

fn first_square_above(limit: u64) -> u64 {
    let mut k = 0;
    let found = loop {
        k += 1;
        if k * k > limit {
            break k * k;
        }
    };
    found
}

fn main() {
    let g = Grid::fill(grid::ROWS, grid::COLS);
    println!("grid sum {}", g.sum());
    println!("grid label {}", g.label());

    // regio: begin collatz
    let mut total = 0;
    for n in 1..=6u64 {
        total += collatz_steps(n);
    }
    // regio: end collatz
    println!("collatz steps {total}");
    println!("first square above 50: {}", first_square_above(50));
}
