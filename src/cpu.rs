//! Backend selection as the front-ends and users see it: what this build and CPU can run,
//! and what new keys use (decided once per process; `STITCHGCM_IMPL=<name>` forces one).
//! The list and the choice live in `backend/registry.rs`.

pub use crate::backend::{available, by_name, compiled, selected, BackendId};
