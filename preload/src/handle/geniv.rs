//! libgcrypt 1.11's IV generation on a handle (`gcry_cipher_setup_geniv`,
//! `gcry_cipher_geniv`), as cipher.c does it: IV = fixed part ‖ counter, set with setiv,
//! then the counter incremented big-endian.

use super::code::*;
use super::GcmHandle;

/// 1.11's `gcry_cipher_setup_geniv` state (METHOD_CONCAT: IV = fixed ‖ counter).
#[derive(Default)]
pub(super) struct Geniv {
    on: bool,
    fixed: [u8; 16],
    fixed_len: usize,
    counter: [u8; 16],
    counter_len: usize,
}

impl GcmHandle {
    /// 1.11's `gcry_cipher_setup_geniv`: only METHOD_CONCAT (1), at most 16 bytes in all.
    ///
    /// # Safety
    /// `fixed` and `counter` are NULL or readable for their lengths.
    pub unsafe fn setup_geniv(
        &mut self,
        method: i32,
        fixed: *const u8,
        fixed_len: usize,
        counter: *const u8,
        counter_len: usize,
    ) -> u32 {
        if method != 1 || fixed_len.checked_add(counter_len).is_none_or(|n| n > 16) {
            return INV_ARG;
        }
        if (fixed.is_null() && fixed_len > 0) || (counter.is_null() && counter_len > 0) {
            return INV_ARG; // libgcrypt would read through NULL
        }
        let g = &mut self.geniv;
        *g = Geniv {
            on: true,
            fixed_len,
            counter_len,
            ..Geniv::default()
        };
        if fixed_len > 0 {
            // SAFETY: non-NULL and readable for `fixed_len` ≤ 16 bytes.
            unsafe { core::ptr::copy_nonoverlapping(fixed, g.fixed.as_mut_ptr(), fixed_len) };
        }
        if counter_len > 0 {
            // SAFETY: non-NULL and readable for `counter_len` ≤ 16 bytes.
            unsafe { core::ptr::copy_nonoverlapping(counter, g.counter.as_mut_ptr(), counter_len) };
        }
        0
    }

    /// 1.11's `gcry_cipher_geniv`: IV = fixed ‖ counter, written to `iv` and set; then the
    /// counter is incremented (big-endian), whether or not the IV was accepted.
    ///
    /// # Safety
    /// `iv` is NULL or writable for `len` bytes.
    pub unsafe fn geniv(&mut self, iv: *mut u8, len: usize) -> u32 {
        let g = &mut self.geniv;
        if !g.on || len != g.fixed_len + g.counter_len {
            return INV_ARG;
        }
        if iv.is_null() && len > 0 {
            return INV_ARG; // libgcrypt would write through NULL
        }
        let mut next = [0u8; 16];
        next[..g.fixed_len].copy_from_slice(&g.fixed[..g.fixed_len]);
        next[g.fixed_len..len].copy_from_slice(&g.counter[..g.counter_len]);
        for b in g.counter[..g.counter_len].iter_mut().rev() {
            *b = b.wrapping_add(1);
            if *b != 0 {
                break;
            }
        }
        if len > 0 {
            // SAFETY: non-NULL and writable for `len` ≤ 16 bytes (caller's contract).
            unsafe { core::ptr::copy_nonoverlapping(next.as_ptr(), iv, len) };
        }
        // SAFETY: `iv` now holds `len` readable bytes.
        unsafe { self.setiv(iv, len) }
    }
}
