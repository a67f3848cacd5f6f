//! (being written: see the helper's task)
