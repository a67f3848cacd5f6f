//! A tiny grid: a struct with methods and a trait default method.

pub const ROWS: usize = 3;
pub const COLS: usize = 4;

pub struct Grid {
    cells: Vec<u64>,
}

pub trait Labelled {
    fn name(&self) -> &'static str;

    /// Default method: instrumented where the trait defines it.
    fn label(&self) -> String {
        format!("<{}>", self.name())
    }
}

impl Labelled for Grid {
    fn name(&self) -> &'static str {
        "grid"
    }
}

impl Grid {
    pub fn fill(rows: usize, cols: usize) -> Grid {
        let mut cells = Vec::new();
        'rows: for r in 0..rows {
            for c in 0..cols {
                if c == cols {
                    continue 'rows;
                }
                cells.push(crate::cell(r, c));
            }
        }
        Grid { cells }
    }

    pub fn sum(&self) -> u64 {
        self.cells.iter().sum()
    }
}
