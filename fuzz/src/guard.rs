//! Buffers framed by guard bytes, at a chosen offset from 16-byte alignment.
//!
//! The bytes around the region are filled with a position-dependent pattern (a stray write
//! of any constant shows) and, under AddressSanitizer, poisoned with
//! `__asan_poison_memory_region`, so that an access into them from instrumented code —
//! the library's Rust and intrinsics code — is reported at the faulting instruction. Code
//! that ASan does not see (inline assembly) is still caught writing by [`Guarded::check`].
//! ASan tracks 8-byte granules: the granule holding the region's first byte stays
//! addressable, so the poisoned frame may start up to 7 bytes early; the pattern check
//! covers those bytes.

/// Guard bytes on each side (more than one AES block, the widest stray access we expect
/// from a single instruction is a 64-byte vector).
pub const GUARD: usize = 64;

#[cfg(sanitize = "address")]
extern "C" {
    fn __asan_poison_memory_region(addr: *const core::ffi::c_void, size: usize);
    fn __asan_unpoison_memory_region(addr: *const core::ffi::c_void, size: usize);
}

fn poison(p: *const u8, len: usize, on: bool) {
    #[cfg(sanitize = "address")]
    // SAFETY: `p..p+len` lies inside a live allocation owned by the caller.
    unsafe {
        if on {
            __asan_poison_memory_region(p.cast(), len)
        } else {
            __asan_unpoison_memory_region(p.cast(), len)
        }
    }
    #[cfg(not(sanitize = "address"))]
    let _ = (p, len, on);
}

fn pattern(i: usize) -> u8 {
    (i as u8).wrapping_mul(37).wrapping_add(0x5b)
}

/// A `len`-byte region whose address is `offset` (0..16) past a multiple of 16.
pub struct Guarded {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Guarded {
    /// The region holds `init` (its length is `init.len()`).
    pub fn new(init: &[u8], offset: usize) -> Guarded {
        let len = init.len();
        let mut buf: Vec<u8> = (0..len + 2 * GUARD + 16).map(pattern).collect();
        let base = buf.as_ptr() as usize + GUARD;
        let start = GUARD + (offset % 16 + 16 - base % 16) % 16;
        buf[start..start + len].copy_from_slice(init);
        let g = Guarded { buf, start, len };
        g.poison_frame(true);
        g
    }

    /// A region of `len` bytes filled with `byte`.
    pub fn filled(len: usize, byte: u8, offset: usize) -> Guarded {
        Guarded::new(&vec![byte; len], offset)
    }

    fn poison_frame(&self, on: bool) {
        let p = self.buf.as_ptr();
        let end = self.start + self.len;
        poison(p, self.start, on);
        // SAFETY: `end` ≤ buf.len(), so the pointer stays inside the allocation.
        poison(unsafe { p.add(end) }, self.buf.len() - end, on);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn ptr(&self) -> *const u8 {
        self.buf[self.start..].as_ptr()
    }

    pub fn mut_ptr(&mut self) -> *mut u8 {
        self.buf[self.start..].as_mut_ptr()
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }

    /// Whether every guard byte still holds its pattern.
    pub fn frame_intact(&self) -> bool {
        self.poison_frame(false);
        let end = self.start + self.len;
        let ok = (0..self.start)
            .chain(end..self.buf.len())
            .all(|i| self.buf[i] == pattern(i));
        self.poison_frame(true);
        ok
    }

    /// Panics (a crash for libFuzzer) naming `what` if a guard byte changed.
    pub fn check(&self, what: &str) {
        assert!(
            self.frame_intact(),
            "{what}: bytes around the buffer were written"
        );
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.poison_frame(false);
    }
}
