//! Procedural macros for Regio.
//!
//! The `#[regio::traced]` attribute and `regio::region!` arrive with the Rust
//! issue; until then this crate only exists so the workspace layout is final.
