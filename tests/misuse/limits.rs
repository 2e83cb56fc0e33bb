//! The SP 800-38D limit of 2^36 - 32 bytes of data per IV. The check must come before any
//! work, so it is tested with buffers that really are that large: address space backed by
//! one small memfd mapped over and over (genuinely readable and writable, yet costing no
//! memory unless touched). A watchdog aborts if a call starts processing the data instead
//! of refusing it. (The nettle ABI has no limit, as nettle has none: its counter wrap is a
//! case in nettle.rs.)

use crate::common::*;
use crate::{same, Case, MIXED, NOT_HERE};
use stitchgcm::{open, seal, Error, Key, Message};

const KEY: [u8; 16] = [7; 16];
const IV: [u8; 12] = [9; 12];

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod region {
    use core::ptr::null_mut;

    const CHUNK: usize = 64 << 20;

    pub struct Aliased {
        base: *mut u8,
        len: usize,
    }

    impl Aliased {
        /// `len` bytes (a multiple of CHUNK) of address space, every CHUNK mapping the
        /// same shared memory; `None` where the platform refuses.
        pub fn new(len: usize) -> Option<Aliased> {
            assert!(len % CHUNK == 0);
            // SAFETY: memfd_create takes a NUL-terminated name and flags.
            let fd = unsafe { libc::memfd_create(c"stitchgcm-limit".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            // SAFETY: `fd` is our memfd; ftruncate sizes it (sparse, no memory used).
            if unsafe { libc::ftruncate(fd, CHUNK as libc::off_t) } != 0 {
                // SAFETY: closes our own descriptor.
                unsafe { libc::close(fd) };
                return None;
            }
            // SAFETY: a fresh PROT_NONE reservation; nothing existing is affected.
            let base = unsafe {
                libc::mmap(
                    null_mut(),
                    len,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                // SAFETY: closes our own descriptor.
                unsafe { libc::close(fd) };
                return None;
            }
            let region = Aliased {
                base: base as *mut u8,
                len,
            };
            for off in (0..len).step_by(CHUNK) {
                // SAFETY: MAP_FIXED replaces only pages of our own reservation above.
                let p = unsafe {
                    libc::mmap(
                        region.base.add(off).cast(),
                        CHUNK,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED | libc::MAP_FIXED,
                        fd,
                        0,
                    )
                };
                if p == libc::MAP_FAILED {
                    // SAFETY: closes our own descriptor; `region` unmaps on drop.
                    unsafe { libc::close(fd) };
                    return None;
                }
            }
            // SAFETY: the mappings keep the memfd alive; the descriptor is ours.
            unsafe { libc::close(fd) };
            Some(region)
        }

        pub fn base(&self) -> *mut u8 {
            self.base
        }
    }

    impl Drop for Aliased {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly our reservation (and the views inside it).
            unsafe { libc::munmap(self.base.cast(), self.len) };
        }
    }

    /// Aborts the process if not dropped within `secs` seconds.
    pub struct Watchdog(Option<std::sync::mpsc::Sender<()>>);

    impl Watchdog {
        pub fn new(secs: u64) -> Watchdog {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            std::thread::spawn(move || {
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    rx.recv_timeout(std::time::Duration::from_secs(secs))
                {
                    eprintln!("data_length_limit: a call over the GCM length limit did not return at once: it is processing the data instead of refusing it");
                    std::process::abort();
                }
            });
            Watchdog(Some(tx))
        }
    }

    impl Drop for Watchdog {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }
}

/// The mapped region `(base, len)`, made once (mapping 128 GiB of aliased views takes
/// seconds under qemu-user), or why there is none.
static REGION: std::sync::OnceLock<Result<(usize, usize), String>> = std::sync::OnceLock::new();

/// Maps the region, unless this target or run cannot use it. The limit is the mode's,
/// checked before any backend runs, so it is tested with the default backend only.
pub fn prepare() {
    REGION.get_or_init(|| {
        let forced = std::env::var("STITCHGCM_IMPL").unwrap_or_default();
        let best = stitchgcm::cpu::available()[0].name();
        if !forced.is_empty() && forced != best {
            return Err(format!(
                "checked with the default backend ({best}) only: the limit is the mode's"
            ));
        }
        map()
    });
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn map() -> Result<(usize, usize), String> {
    let over = stitchgcm::gcm::MAX_DATA as usize + 1;
    let span = (2 * over).div_ceil(64 << 20) * (64 << 20);
    let r = region::Aliased::new(span).ok_or(format!(
        "cannot map {} GiB of aliased address space here",
        span >> 30
    ))?;
    let view = (r.base() as usize, span);
    core::mem::forget(r); // lives until the process ends
    Ok(view)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn map() -> Result<(usize, usize), String> {
    Err("a single call cannot pass 2^36 - 32 bytes with a 32-bit size_t".into())
}

/// Why the region is not there (empty if it is).
pub fn unavailable() -> String {
    match REGION.get() {
        Some(Err(why)) => why.clone(),
        _ => String::new(),
    }
}

/// Two disjoint views `(a, b)` of `MAX_DATA + 1` mapped bytes each.
fn with_region(f: impl FnOnce(&mut [u8], &mut [u8]) -> u32) -> u32 {
    let (base, len) = match REGION.get() {
        Some(Ok(v)) => *v,
        Some(Err(_)) => return NOT_HERE, // the runner prints `unavailable()`
        None => panic!("limits::prepare() was not called"),
    };
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    let _dog = region::Watchdog::new(60);
    // SAFETY: the whole range is mapped readable and writable (aliased shared pages); the
    // misuse test runs these cases one at a time on one thread.
    let all = unsafe { core::slice::from_raw_parts_mut(base as *mut u8, len) };
    let over = stitchgcm::gcm::MAX_DATA as usize + 1;
    let (a, rest) = all.split_at_mut(over);
    let rc = f(a, &mut rest[..over]);
    // Nothing was written (every view shows the same memfd page at offset 0).
    // SAFETY: as above; `a` and `rest` are no longer used.
    if rc != 0 && !all_zero(unsafe { core::slice::from_raw_parts(base as *const u8, 4096) }) {
        return MIXED;
    }
    rc
}

fn all_zero(b: &[u8]) -> bool {
    b.iter().all(|&x| x == 0)
}

fn code(r: Result<(), Error>) -> u32 {
    r.err().map_or(0, |e| e.code())
}

pub fn cases() -> Vec<Case> {
    let case = |front, name, run| Case { front, name, run };
    vec![
        case("handle", "data over the limit in one call", || {
            with_region(|a, b| {
                let h = CHandle::open(16);
                assert_eq!(h.setkey(&KEY), 0);
                assert_eq!(h.setiv(&IV), 0);
                let rc = same(&[
                    h.encrypt_in_place(a),
                    h.decrypt_in_place(a),
                    h.encrypt_to(a, b),
                ]);
                // The refused calls changed nothing: still in the AAD phase.
                if h.authenticate(b"x") != 0 {
                    return MIXED;
                }
                rc
            })
        }),
        case("seal", "data over the limit in one call", || {
            with_region(|a, b| {
                let mut tag = [0u8; 16];
                same(&[
                    c_seal(&KEY, &IV, b"", a, b, &mut tag),
                    c_seal_in_place(&KEY, &IV, b"", a, &mut tag),
                ])
            })
        }),
        case("open", "data over the limit in one call", || {
            with_region(|a, b| {
                let tag = [0u8; 16];
                same(&[
                    c_open(&KEY, &IV, b"", a, b, &tag),
                    c_open_in_place(&KEY, &IV, b"", a, &tag),
                ])
            })
        }),
        case("rust", "data over the limit in one call", || {
            with_region(|a, b| {
                let key = Key::new(&KEY).unwrap();
                let mut m = Message::new(&key, &IV).unwrap();
                let mut tag = [0u8; 16];
                let rc = same(&[
                    code(m.encrypt(&key, a)),
                    code(m.decrypt(&key, a)),
                    code(m.encrypt_to(&key, a, b)),
                    code(m.decrypt_to(&key, a, b)),
                    code(seal(&key, &IV, b"", a, b, &mut tag)),
                    code(open(&key, &IV, b"", a, b, &tag)),
                ]);
                // Nothing consumed: still in the AAD phase, the tag of the AAD alone.
                m.aad(&key, b"still in the AAD phase").unwrap();
                m.tag(&key, &mut tag).unwrap();
                if tag
                    != oracle_seal(&KEY, &IV, b"still in the AAD phase", b"")
                        .unwrap()
                        .1
                {
                    return MIXED;
                }
                rc
            })
        }),
        case("aead-seal", "data over the limit in one call", || {
            with_region(|a, b| {
                let h = CHandle::open(16);
                assert_eq!(h.setkey(&KEY), 0);
                let mut tag = [0u8; 16];
                same(&[
                    h.aead_seal(&IV, b"", Some(a), b, &mut tag),
                    h.aead_seal(&IV, b"", None, a, &mut tag),
                ])
            })
        }),
        case("aead-open", "data over the limit in one call", || {
            with_region(|a, b| {
                let h = CHandle::open(16);
                assert_eq!(h.setkey(&KEY), 0);
                let tag = [0u8; 16];
                same(&[
                    h.aead_open(&IV, b"", Some(a), b, &tag),
                    h.aead_open(&IV, b"", None, a, &tag),
                ])
            })
        }),
        case("handle", "data over the limit after 16 bytes", || {
            with_region(|a, _| {
                let h = CHandle::open(16);
                assert_eq!(h.setkey(&KEY), 0);
                assert_eq!(h.setiv(&IV), 0);
                assert_eq!(h.encrypt_in_place(&mut [0u8; 16]), 0);
                let over = a.len() - 16; // 16 + (2^36 - 32 - 16 + 1): one byte too many
                let rc = h.encrypt_in_place(&mut a[..over]);
                let mut t = [0u8; 16];
                assert_eq!(h.gettag(&mut t), 0);
                if t != oracle_seal(&KEY, &IV, b"", &[0u8; 16]).unwrap().1 {
                    return MIXED;
                }
                rc
            })
        }),
        case("rust", "data over the limit after 16 bytes", || {
            with_region(|a, _| {
                let key = Key::new(&KEY).unwrap();
                let mut m = Message::new(&key, &IV).unwrap();
                m.encrypt(&key, &mut [0u8; 16]).unwrap();
                let over = a.len() - 16;
                let rc = code(m.encrypt(&key, &mut a[..over]));
                if m.data_len() != 16 {
                    return MIXED;
                }
                rc
            })
        }),
    ]
}
