//! MPI measurement beyond regions: argument capture (`probes`), the
//! per-node communication record (`stats`, with `requests` following
//! non-blocking messages and `world` translating ranks), clock
//! synchronisation (`sync`), and their part of the profile (`write`);
//! `events` sends a measured message to the profile's record and the
//! trace (`comms`: communicators' trace ids); `spawn` marks processes
//! started by `MPI_Comm_spawn`.
//! `pmpi` is the only module that calls the MPI library.

pub mod comms;
pub mod events;
pub mod pmpi;
pub mod probes;
pub mod requests;
pub mod spawn;
pub mod stats;
pub mod sync;
pub mod world;
pub mod write;
