//! Region kinds, serialised as the strings SPEC.md fixes (`function`,
//! `omp_parallel`, `mpi_send`, ...).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of code a region is. OpenMP and MPI kinds carry the construct
/// or call name so that later front ends need no change to this type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegionKind {
    Program,
    Function,
    Loop,
    Call,
    Io,
    User,
    /// `omp_<construct>`, the field holds `<construct>` (e.g. `parallel`).
    Omp(String),
    /// `mpi_<call>`, the field holds the lower-case call without `MPI_`.
    Mpi(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown region kind `{0}` (expected program, function, loop, call, io, user, omp_<construct> or mpi_<call>)")]
pub struct UnknownKind(pub String);

impl RegionKind {
    pub fn as_string(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for RegionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegionKind::Program => f.write_str("program"),
            RegionKind::Function => f.write_str("function"),
            RegionKind::Loop => f.write_str("loop"),
            RegionKind::Call => f.write_str("call"),
            RegionKind::Io => f.write_str("io"),
            RegionKind::User => f.write_str("user"),
            RegionKind::Omp(c) => write!(f, "omp_{c}"),
            RegionKind::Mpi(c) => write!(f, "mpi_{c}"),
        }
    }
}

fn is_suffix(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl FromStr for RegionKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "program" => RegionKind::Program,
            "function" => RegionKind::Function,
            "loop" => RegionKind::Loop,
            "call" => RegionKind::Call,
            "io" => RegionKind::Io,
            "user" => RegionKind::User,
            _ => {
                if let Some(c) = s.strip_prefix("omp_").filter(|c| is_suffix(c)) {
                    RegionKind::Omp(c.to_string())
                } else if let Some(c) = s.strip_prefix("mpi_").filter(|c| is_suffix(c)) {
                    RegionKind::Mpi(c.to_string())
                } else {
                    return Err(UnknownKind(s.to_string()));
                }
            }
        })
    }
}

impl Serialize for RegionKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RegionKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The strings [`RegionKind`] reads and writes, as a regular expression (the
/// JSON Schema of the IDF uses it for `kind`).
pub const KIND_PATTERN: &str =
    "^(program|function|loop|call|io|user|omp_[a-z0-9_]+|mpi_[a-z0-9_]+)$";

// Written by hand because serde (de)serialises the kind as one string, which
// a derive would describe as a tagged enum.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for RegionKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RegionKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Region kind: program, function, loop, call, io, user, omp_<construct> or mpi_<call>.",
            "type": "string",
            "pattern": KIND_PATTERN,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_spec_names() {
        for name in [
            "program",
            "function",
            "loop",
            "call",
            "io",
            "user",
            "omp_parallel",
            "omp_implicit_barrier",
            "mpi_allreduce",
        ] {
            let kind: RegionKind = name.parse().unwrap();
            assert_eq!(kind.to_string(), name);
        }
    }

    #[test]
    fn malformed_kinds_are_rejected() {
        for name in ["", "Function", "omp_", "mpi_Send", "loops"] {
            assert!(name.parse::<RegionKind>().is_err(), "{name} accepted");
        }
    }
}
