//! The list of backends and the choice among them, in one place.
//!
//! `backends!` below is the only list: it defines [`BackendId`] (the byte stored in a
//! key), [`COMPILED`] (every backend of this build, best first — the order of the list)
//! and `with_backend!` (the dispatch `match`). Adding a backend is its folder plus one
//! line here.
//!
//! The choice is made once per process: `STITCHGCM_IMPL=<name>` if set, else the first
//! backend of the list this CPU can run and prefers (`Backend::is_preferred`: a CPU that
//! runs 512-bit vectors at a lower clock keeps `x86_64-vaes`). An unknown or unavailable forced name is an
//! error ([`Error::NotSupported`]) for every key set up afterwards, never a silent
//! fallback: a test that believes it exercises a kernel must not quietly run another.

use super::Backend;
use crate::error::Error;
use core::ffi::CStr;
use core::sync::atomic::{AtomicU8, Ordering};

/// Defines the id enum, the compiled list and the dispatch macro from one list of
/// `[cfg] Variant = id => type`. `$d` is a literal `$`, passed in so that the generated
/// `macro_rules!` can have metavariables of its own.
macro_rules! backends {
    ($d:tt $( $(#[$cfg:meta])* $variant:ident = $id:literal => $ty:ty, )+) => {
        /// Identifies a backend inside a key. Stored as a byte so keys stay plain data.
        #[repr(u8)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BackendId {
            $( $(#[$cfg])* $variant = $id, )+
        }

        /// Every backend compiled into this build, best first.
        pub(crate) const COMPILED: &[BackendId] = &[ $( $(#[$cfg])* BackendId::$variant, )+ ];

        impl BackendId {
            /// Decodes a stored id; `None` for bytes that name no backend of this build
            /// (a context that was never keyed, or memory that is not ours). One `match`
            /// on the byte: it is on the path of every kernel call.
            #[inline(always)]
            pub(crate) const fn from_u8(v: u8) -> Option<BackendId> {
                match v {
                    $( $(#[$cfg])* $id => Some(BackendId::$variant), )+
                    _ => None,
                }
            }
        }

        /// Runs `$body` with `$B` bound to the backend type named by `$id`.
        macro_rules! with_backend {
            ($d id:expr, $d B:ident => $d body:expr) => {
                match $d id {
                    $( $(#[$cfg])* $crate::backend::BackendId::$variant => {
                        type $d B = $ty;
                        $d body
                    } )+
                }
            };
        }
        pub(crate) use with_backend;
    };
}

backends! { $
    #[cfg(target_arch = "aarch64")]
    Aarch64CeEor3 = 3 => crate::backend::aarch64::ce::Aarch64Ce<true>,
    #[cfg(target_arch = "aarch64")]
    Aarch64Ce = 2 => crate::backend::aarch64::ce::Aarch64Ce<false>,
    #[cfg(target_arch = "x86_64")]
    X86Vaes512 = 9 => crate::backend::x86_64::vaes512::X86Vaes512,
    #[cfg(target_arch = "x86_64")]
    X86Vaes = 5 => crate::backend::x86_64::vaes::X86Vaes,
    #[cfg(target_arch = "x86_64")]
    X86Aesni = 4 => crate::backend::x86_64::aesni::X86Aesni,
    #[cfg(target_arch = "arm")]
    ArmCe = 8 => crate::backend::arm::ce::ArmCe,
    #[cfg(target_arch = "arm")]
    ArmNeon = 6 => crate::backend::arm::neon::ArmNeon,
    #[cfg(target_arch = "aarch64")]
    Aarch64Neon = 7 => crate::backend::aarch64::neon::Aarch64Neon,
    Soft = 1 => crate::backend::soft::Soft,
}

impl BackendId {
    /// Whether this CPU can run the backend.
    pub fn is_available(self) -> bool {
        with_backend!(self, B => B::is_available())
    }

    /// Whether the automatic choice may take the backend on this CPU.
    pub(crate) fn is_preferred(self) -> bool {
        with_backend!(self, B => B::is_preferred())
    }

    /// The backend's name, as accepted by `STITCHGCM_IMPL`.
    pub fn name(self) -> &'static str {
        // Backend names are ASCII literals.
        self.name_nul().to_str().unwrap_or("?")
    }

    pub(crate) fn name_nul(self) -> &'static core::ffi::CStr {
        with_backend!(self, B => B::NAME)
    }
}

/// Every backend compiled into this build, best first.
pub fn compiled() -> &'static [BackendId] {
    COMPILED
}

/// The backends this CPU can run, best first: the ones the automatic choice may take
/// here before the others (so the first is the one [`selected`] picks without
/// `STITCHGCM_IMPL`: on a CPU that lowers its clock for 512-bit vectors `x86_64-vaes`
/// comes before `x86_64-vaes512`), each part in the order of the list.
pub fn available() -> Vec<BackendId> {
    let runs = COMPILED.iter().copied().filter(|id| id.is_available());
    let (mut first, rest): (Vec<_>, Vec<_>) = runs.partition(|id| id.is_preferred());
    first.extend(rest);
    first
}

/// Looks a backend up by name; only backends this CPU can run are returned.
pub fn by_name(name: &str) -> Result<BackendId, Error> {
    by_name_bytes(name.as_bytes())
}

fn by_name_bytes(name: &[u8]) -> Result<BackendId, Error> {
    COMPILED
        .iter()
        .copied()
        .find(|id| id.name_nul().to_bytes() == name)
        .filter(|id| id.is_available())
        .ok_or(Error::NotSupported)
}

/// The backend new keys use: `STITCHGCM_IMPL` if set, else the best available one.
/// Decided once per process.
pub fn selected() -> Result<BackendId, Error> {
    // 0: not decided yet; `REFUSED`: a forced name this build or CPU cannot run; else the
    // id. Threads that race here compute the same answer (it depends on the environment
    // and the CPU only), so a plain atomic does what a lock would. (std's `OnceLock` and
    // `env::var` would link a futex lock, an environment lock and C-string conversions
    // for it: `docs/footprint.md`.)
    const REFUSED: u8 = 0xff;
    static CHOICE: AtomicU8 = AtomicU8::new(0);
    let known = CHOICE.load(Ordering::Relaxed);
    let choice = match BackendId::from_u8(known) {
        Some(id) => return Ok(id),
        None if known == REFUSED => return Err(Error::NotSupported),
        None => match forced_name() {
            Some(name) if !name.is_empty() => by_name_bytes(name),
            _ => Ok(best()),
        },
    };
    CHOICE.store(choice.map_or(REFUSED, |id| id as u8), Ordering::Relaxed);
    choice
}

/// `STITCHGCM_IMPL`'s value, if set. Read with C's `getenv`, as the C libraries this one
/// stands in for read theirs: like them it must not race a `setenv` in another thread.
fn forced_name() -> Option<&'static [u8]> {
    // SAFETY: the name is NUL-terminated; getenv returns NULL or a NUL-terminated string
    // that lives as long as the environment entry (not changed by this library).
    let value = unsafe { libc::getenv(c"STITCHGCM_IMPL".as_ptr()) };
    // SAFETY: non-null, NUL-terminated (above).
    (!value.is_null()).then(|| unsafe { CStr::from_ptr(value) }.to_bytes())
}

fn best() -> BackendId {
    COMPILED
        .iter()
        .copied()
        .find(|id| id.is_preferred())
        .unwrap_or(BackendId::Soft)
}
