//! The shared library's panic and out-of-memory handlers. A panic here is a bug (the
//! release profile aborts on one anyway); std's reporter would print the message and a
//! backtrace, and links about 270 KB of symbolizer for it. `build.rs` points core's panic
//! entry and alloc's out-of-memory call at these functions in the cdylib only
//! (`docs/footprint.md`): they name what happened and abort.

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn on_panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut line = [0u8; 20];
    let (file, digits) = match info.location() {
        Some(l) => (l.file().as_bytes(), decimal(l.line().into(), &mut line)),
        None => (&b"?"[..], &b"?"[..]),
    };
    abort_with(&[
        b"stitchgcm: internal error (panic) at ",
        file,
        b":",
        digits,
        b"; aborting\n",
    ])
}

/// The shared library's out-of-memory handler (`build.rs`): std's would abort too, after a
/// message.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn on_alloc_error(_size: usize, _align: usize) -> ! {
    abort_with(&[b"stitchgcm: memory allocation failed; aborting\n"])
}

/// Writes `parts` to stderr and aborts: the library's last word, without the formatting
/// machinery (std's `Write for Stderr` links `core::fmt` and a lock: `docs/footprint.md`).
#[cold]
pub(crate) fn abort_with(parts: &[&[u8]]) -> ! {
    for part in parts {
        // SAFETY: writes `part.len()` initialised bytes from a live slice to stderr.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: abort takes no arguments and does not return.
    unsafe { libc::abort() }
}

/// `v` in decimal, in the tail of `buf`.
pub(crate) fn decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[i..];
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/panic_wrap.rs"));
