//! Which kinds of regions the user asked for (`--regions LIST`).

use std::fmt;
use std::str::FromStr;

/// Kinds of regions selected on the command line. `user` directives are
/// honoured whatever this says (SPEC); the flag only records the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Selection {
    pub functions: bool,
    pub loops: bool,
    pub calls: bool,
    pub io: bool,
    pub omp: bool,
    pub mpi: bool,
    pub user: bool,
    /// Small functions (`crate::small_functions`) are measured too:
    /// `--small-functions`, or `all`. Not a kind: `names()` leaves it out.
    pub small_functions: bool,
}

pub const DEFAULT_REGIONS: &str = "functions,user,omp,mpi";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown region class `{0}` in --regions (expected functions, loops, calls, io, omp, mpi, user, all or none)")]
pub struct UnknownClass(pub String);

impl FromStr for Selection {
    type Err = UnknownClass;

    fn from_str(list: &str) -> Result<Self, Self::Err> {
        let mut s = Selection::default();
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word.to_ascii_lowercase().as_str() {
                "functions" | "function" => s.functions = true,
                "loops" | "loop" => s.loops = true,
                "calls" | "call" => s.calls = true,
                "io" => s.io = true,
                "omp" | "openmp" => s.omp = true,
                "mpi" => s.mpi = true,
                "user" => s.user = true,
                "all" => {
                    s = Selection {
                        functions: true,
                        loops: true,
                        calls: true,
                        io: true,
                        omp: true,
                        mpi: true,
                        user: true,
                        small_functions: true,
                    }
                }
                "none" => s = Selection::default(),
                _ => return Err(UnknownClass(word.to_string())),
            }
        }
        Ok(s)
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.names();
        f.write_str(&names.join(","))
    }
}

impl Selection {
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.functions, "functions"),
            (self.loops, "loops"),
            (self.calls, "calls"),
            (self.io, "io"),
            (self.omp, "omp"),
            (self.mpi, "mpi"),
            (self.user, "user"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_in_order_with_all_and_none() {
        let s: Selection = "functions,loops".parse().unwrap();
        assert!(s.functions && s.loops && !s.io);
        let s: Selection = "all,none,io".parse().unwrap();
        assert_eq!(s.names(), vec!["io"]);
        assert!("functions,bogus".parse::<Selection>().is_err());
        // `all` is every region Regio can place, small functions too;
        // a later `none` or list word does not bring them back.
        assert!("all".parse::<Selection>().unwrap().small_functions);
        assert!(!"functions".parse::<Selection>().unwrap().small_functions);
        assert!(
            !"all,none,functions"
                .parse::<Selection>()
                .unwrap()
                .small_functions
        );
    }
}
