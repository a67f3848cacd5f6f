//! Region kinds, serialised as the strings SPEC.md fixes (`function`,
//! `omp_parallel`, `mpi_send`, ...).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of code a region is. MPI kinds carry the call name so that
/// a new MPI routine needs no change to this type; OpenMP kinds that are
/// measured are a closed set ([`OmpKind`]), so that every place that reads
/// them (the overhead classification, the front ends' construct table)
/// must name a new one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegionKind {
    Program,
    Function,
    Loop,
    Call,
    Io,
    User,
    /// `omp_<kind>`: a measured OpenMP region.
    Omp(OmpKind),
    /// `omp_<words>`: an OpenMP directive listed in the IDF but not
    /// measured (`aux.not_measured` says why), e.g. `omp_target_teams` or
    /// `omp_declare_simd`. Never entered, so never in a profile. Built by
    /// [`RegionKind::omp_directive`], which gives a name that is also a
    /// measured kind as [`RegionKind::Omp`] (one value per string).
    OmpDirective(String),
    /// `mpi_<call>`, the field holds the lower-case call without `MPI_`.
    Mpi(String),
}

/// Declares [`OmpKind`] with its names, so a new kind is one line.
macro_rules! omp_kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// The measured OpenMP region kinds (`omp_<name>`), named as SPEC.md
        /// and notes/OPENMP.md fix them. Which construct gets which of
        /// them, and where their probes go, is
        /// `instrumenter/src/omp_constructs.rs`; the overhead
        /// classification (`analysis/src/overhead/classify.rs`) matches on
        /// them exhaustively.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum OmpKind {
            $($(#[$doc])* $variant,)*
        }

        impl OmpKind {
            /// Every kind.
            pub const ALL: &'static [OmpKind] = &[$(OmpKind::$variant,)*];

            /// The name after `omp_` (equal to the serde name, which a
            /// test checks).
            pub fn name(self) -> &'static str {
                match self {
                    $(OmpKind::$variant => $name,)*
                }
            }
        }
    };
}

omp_kinds! {
    Parallel = "parallel",
    /// From the fork on the encountering thread to the start of the team
    /// thread's work (`regio_omp_begin`).
    Fork = "fork",
    /// From the end of a team thread's work to the join (`regio_omp_end`).
    Join = "join",
    /// An implicit barrier made explicit (instrumented `barrier`).
    ImplicitBarrier = "implicit_barrier",
    /// The C work-sharing loop.
    For = "for",
    /// The Fortran work-sharing loop.
    Do = "do",
    Sections = "sections",
    Section = "section",
    Loop = "loop",
    Workshare = "workshare",
    Single = "single",
    /// A single's block, on the one thread that runs it.
    SingleBody = "single_body",
    Master = "master",
    Masked = "masked",
    Critical = "critical",
    /// Waiting to enter a critical section.
    CriticalWait = "critical_wait",
    Ordered = "ordered",
    /// Waiting for an ordered block's turn.
    OrderedWait = "ordered_wait",
    Atomic = "atomic",
    Barrier = "barrier",
    /// A task's execution.
    Task = "task",
    /// Creating a task, on the encountering thread.
    TaskCreate = "task_create",
    Taskwait = "taskwait",
    Taskgroup = "taskgroup",
    Flush = "flush",
    Taskloop = "taskloop",
    /// One iteration of a taskloop's innermost bound loop.
    TaskloopBody = "taskloop_body",
    Teams = "teams",
    /// A host teams body, once per team.
    TeamsBody = "teams_body",
    /// A run-time region for one team number (the runtime's `teams`).
    Team = "team",
    Distribute = "distribute",
    /// Waiting to acquire an OpenMP lock (`omp_set_lock`, ...).
    Lock = "lock",
    /// `omp_unset_lock`, `omp_unset_nest_lock`.
    Unlock = "unlock",
}

impl OmpKind {
    /// The kind named `name` (without `omp_`), if it is a measured one
    /// (through the derived serde names, so a new variant needs no entry
    /// here).
    pub fn from_name(name: &str) -> Option<OmpKind> {
        use serde::de::IntoDeserializer;
        let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            name.into_deserializer();
        OmpKind::deserialize(de).ok()
    }
}

impl fmt::Display for OmpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown region kind `{0}` (expected program, function, loop, call, io, user, omp_<construct> or mpi_<call>)")]
pub struct UnknownKind(pub String);

impl RegionKind {
    pub fn as_string(&self) -> String {
        self.to_string()
    }

    /// The kind of an OpenMP directive listed by its words joined with
    /// `_` (`target_teams`): a measured kind when the words name one.
    pub fn omp_directive(words: &str) -> RegionKind {
        match OmpKind::from_name(words) {
            Some(k) => RegionKind::Omp(k),
            None => RegionKind::OmpDirective(words.to_string()),
        }
    }

    /// Whether this is an OpenMP kind (measured or listed).
    pub fn is_omp(&self) -> bool {
        matches!(self, RegionKind::Omp(_) | RegionKind::OmpDirective(_))
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
            RegionKind::Omp(k) => write!(f, "omp_{}", k.name()),
            RegionKind::OmpDirective(c) => write!(f, "omp_{c}"),
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
                    RegionKind::omp_directive(c)
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
    fn omp_kinds_have_their_serde_names_and_parse_as_measured() {
        for &k in OmpKind::ALL {
            let json = serde_json::to_value(k).unwrap();
            assert_eq!(json, serde_json::Value::from(k.name()));
            let kind: RegionKind = format!("omp_{k}").parse().unwrap();
            assert_eq!(kind, RegionKind::Omp(k));
        }
        let listed: RegionKind = "omp_target_teams".parse().unwrap();
        assert_eq!(listed, RegionKind::OmpDirective("target_teams".into()));
        assert_eq!(listed.to_string(), "omp_target_teams");
        assert_eq!(
            RegionKind::omp_directive("parallel"),
            RegionKind::Omp(OmpKind::Parallel)
        );
    }

    #[test]
    fn malformed_kinds_are_rejected() {
        for name in ["", "Function", "omp_", "mpi_Send", "loops"] {
            assert!(name.parse::<RegionKind>().is_err(), "{name} accepted");
        }
    }
}
