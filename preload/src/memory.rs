//! Where our handles live. An ordinary handle is one heap allocation. A
//! `GCRY_CIPHER_SECURE` handle gets pages of its own, locked into memory with `mlock` and
//! kept out of core dumps (`MADV_DONTDUMP`); like libgcrypt's secure memory it carries on
//! unlocked when the lock limit refuses. Closing wipes the whole block; secure pages are
//! then kept for the next secure handle instead of being unmapped, so a closed secure
//! handle stays readable and is recognised as closed (its magic is zero) rather than
//! faulting.

use crate::handle::GcmHandle;
use core::ptr;
use std::alloc::{alloc, dealloc, Layout};
use std::sync::Mutex;

// glibc's large-file entry point: the same call for an anonymous mapping (offset 0), but
// a 32-bit build then references no non-LFS symbol (lintian's
// binary-file-built-without-LFS-support on armhf).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
use libc::mmap as mmap_anonymous;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
use libc::mmap64 as mmap_anonymous;

/// Secure blocks of closed handles (addresses), wiped, ready for reuse.
static SPARE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn secure_len() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    core::mem::size_of::<GcmHandle>().div_ceil(page) * page
}

/// Moves `h` into fresh memory (locked pages when `h.secure`); NULL if none is left.
pub fn place(h: GcmHandle) -> *mut GcmHandle {
    let p = if h.secure {
        secure_block()
    } else {
        heap_block()
    };
    if !p.is_null() {
        // SAFETY: `p` is writable, aligned memory for one GcmHandle, owned by nobody else.
        unsafe { ptr::write(p, h) };
    }
    p
}

fn heap_block() -> *mut GcmHandle {
    // SAFETY: GcmHandle has a non-zero size.
    unsafe { alloc(Layout::new::<GcmHandle>()) as *mut GcmHandle }
}

fn secure_block() -> *mut GcmHandle {
    if let Some(p) = SPARE.lock().unwrap_or_else(|e| e.into_inner()).pop() {
        return p as *mut GcmHandle;
    }
    let len = secure_len();
    // SAFETY: an anonymous private mapping; the result is checked; mlock/madvise only
    // affect that mapping (their failure leaves it usable, just not locked).
    unsafe {
        let p = mmap_anonymous(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return ptr::null_mut();
        }
        libc::mlock(p, len);
        libc::madvise(p, len, libc::MADV_DONTDUMP);
        p as *mut GcmHandle
    }
}

/// Drops the handle (key and message state wipe themselves), wipes its whole block and
/// releases it.
///
/// # Safety
/// `p` came from [`place`] and is released once.
pub unsafe fn release(p: *mut GcmHandle) {
    // SAFETY: `p` holds a live GcmHandle (caller's contract).
    let secure = unsafe { (*p).secure };
    // SAFETY: as above; it is not used again after the drop.
    unsafe { ptr::drop_in_place(p) };
    let len = if secure {
        secure_len()
    } else {
        core::mem::size_of::<GcmHandle>()
    };
    // SAFETY: the block is `len` writable bytes; explicit_bzero is not optimised away.
    unsafe { libc::explicit_bzero(p as *mut libc::c_void, len) };
    if secure {
        SPARE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(p as usize);
    } else {
        // SAFETY: allocated by `heap_block` with this layout.
        unsafe { dealloc(p as *mut u8, Layout::new::<GcmHandle>()) };
    }
}
