//! Backend selection: detect CPU features once, pick the best backend, honour
//! `STITCHGCM_IMPL=<name>` (used by the tests to force each backend in turn).
//!
//! An unknown or unavailable forced name is an error ([`Error::NotSupported`]) for every
//! key set up afterwards, never a silent fallback: a test that believes it exercises a
//! kernel must not quietly run another one.

use crate::backend::{self, Backend, BackendId};
use crate::Error;
use std::sync::OnceLock;

/// Every backend compiled into this build, best first.
pub fn compiled() -> &'static [BackendId] {
    backend::COMPILED
}

/// The backends this CPU can run, best first.
pub fn available() -> Vec<BackendId> {
    compiled()
        .iter()
        .copied()
        .filter(|id| id.is_available())
        .collect()
}

/// Looks a backend up by name; only backends this CPU can run are returned.
pub fn by_name(name: &str) -> Result<BackendId, Error> {
    compiled()
        .iter()
        .copied()
        .find(|id| id.name() == name)
        .filter(|id| id.is_available())
        .ok_or(Error::NotSupported)
}

/// The backend new keys use: `STITCHGCM_IMPL` if set, else the best available one.
/// Decided once per process.
pub fn selected() -> Result<BackendId, Error> {
    static CHOICE: OnceLock<Result<BackendId, Error>> = OnceLock::new();
    *CHOICE.get_or_init(|| match std::env::var("STITCHGCM_IMPL") {
        Ok(name) if !name.is_empty() => by_name(&name),
        _ => Ok(best()),
    })
}

fn best() -> BackendId {
    compiled()
        .iter()
        .copied()
        .find(|id| id.is_available())
        .unwrap_or(BackendId::Soft)
}

impl BackendId {
    pub fn is_available(self) -> bool {
        crate::with_backend!(self, B => B::is_available())
    }
    /// The backend's name, as accepted by `STITCHGCM_IMPL`.
    pub fn name(self) -> &'static str {
        // Backend names are ASCII literals.
        self.name_nul().to_str().unwrap_or("?")
    }

    pub(crate) fn name_nul(self) -> &'static core::ffi::CStr {
        crate::with_backend!(self, B => B::NAME)
    }
}
