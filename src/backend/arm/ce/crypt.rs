//! How `arm-ce` splits a call over its kernels.
//!
//! Whole groups of four blocks go through the stitched loop of the key size and
//! direction; the 1..=3 blocks left over (all of a message of at most four blocks that
//! brings its J0) go through one straight-line "lanes" kernel, whose blocks run their AES
//! rounds side by side, E(K, J0) as one more lane, and then one aggregated GHASH of
//! those blocks with H^n..H^1 and a single reduction (before the lanes when decrypting,
//! so that in-place decryption hashes the ciphertext, after them when encrypting).
//! GHASH alone runs eight blocks per iteration, the rest through the same 1..=8-block
//! kernel. Counter blocks are built here (inc32 on the last word) into a 16-byte
//! aligned scratch area the kernels read with plain loads; the loops then write the
//! next group's counter words themselves.
//!
//! Short messages in one call (`Backend::crypt_short`): `short.rs`, over these entries.

use super::kernels;
use super::key::CeKey;
use crate::backend::arm::common::{add_ctr, counter};

/// Counter blocks (or blocks to encrypt) for the kernels, and the GHASH state of the
/// stitched loops after the first four (`gen_kernels.py`: `SCR_Y`).
#[repr(C, align(16))]
pub(super) struct Scratch(pub(super) [[u8; 16]; 5]);

impl Scratch {
    pub(super) fn new() -> Scratch {
        Scratch([[0; 16]; 5])
    }

    pub(super) fn ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr() as *mut u8
    }

    /// Counter blocks `ctr`, inc32(`ctr`), … into entries `0..n`.
    fn counters(&mut self, ctr: &[u8; 16], n: usize) {
        let c = counter(ctr);
        for (i, b) in self.0.iter_mut().take(n).enumerate() {
            b[..12].copy_from_slice(&ctr[..12]);
            b[12..].copy_from_slice(&c.wrapping_add(i as u32).to_be_bytes());
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // E(K, J0), encrypted blocks and the GHASH state may be left here.
        crate::secret::wipe_bytes(self.0.as_flattened_mut());
    }
}

/// The GHASH state in the kernels' form: the block as a big-endian integer, stored
/// little-endian (the bytes reversed). The conversion is its own inverse.
fn kernel_form(y: &[u8; 16]) -> [u8; 16] {
    let mut r = *y;
    r.reverse();
    r
}

const GROUP: usize = 4;

type Loop = unsafe fn(*const u8, *const u8, *mut u8, usize, *mut u8, u32);

fn stitched(rounds: u32, encrypt: bool) -> Loop {
    use kernels::*;
    match (rounds, encrypt) {
        (10, true) => kernel_enc_aes128,
        (12, true) => kernel_enc_aes192,
        (_, true) => kernel_enc_aes256,
        (10, false) => kernel_dec_aes128,
        (12, false) => kernel_dec_aes192,
        (_, false) => kernel_dec_aes256,
    }
}

fn ctr_loop(rounds: u32) -> Loop {
    match rounds {
        10 => kernels::kernel_ctr_aes128,
        12 => kernels::kernel_ctr_aes192,
        _ => kernels::kernel_ctr_aes256,
    }
}

/// Runs a group loop over `blocks / 4` groups; returns the number of blocks done.
///
/// # Safety
/// `src`/`dst` hold `16 * blocks` bytes, equal or disjoint.
unsafe fn groups(
    k: &CeKey,
    f: Loop,
    s: &mut Scratch,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) -> usize {
    let groups = blocks / GROUP;
    if groups > 0 {
        s.counters(ctr, GROUP);
        let next = counter(ctr).wrapping_add(GROUP as u32);
        // SAFETY: the scratch area holds the first group's counters (and the state);
        // the buffers are the caller's contract.
        unsafe { f(k.ptr(), src, dst, groups, s.ptr(), next) };
        add_ctr(ctr, (GROUP * groups) as u32);
    }
    GROUP * groups
}

/// CTR over `n` ≤ 4 blocks with the next counters, and E(K, J0) in place as one more
/// lane when `j0` is given (`n` + 1 ≤ 5 lanes).
///
/// # Safety
/// `src`/`dst` hold `16 * n` bytes, equal or disjoint.
unsafe fn lanes(
    k: &CeKey,
    s: &mut Scratch,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    s.counters(ctr, n);
    let with_j0 = j0.is_some();
    if let Some(j) = &j0 {
        s.0[n] = **j;
    }
    use kernels::*;
    let f: unsafe fn(*const u8, *mut u8, *const u8, *mut u8) = match (n, with_j0) {
        (0, _) => lanes_1_0,
        (1, false) => lanes_1_1,
        (1, true) => lanes_2_1,
        (2, false) => lanes_2_2,
        (2, true) => lanes_3_2,
        (3, false) => lanes_3_3,
        (3, true) => lanes_4_3,
        (_, false) => lanes_4_4,
        (_, true) => lanes_5_4,
    };
    // SAFETY: the scratch area holds the n (+1) blocks; the buffers are the caller's.
    unsafe { f(k.ptr(), s.ptr(), src, dst) };
    if let Some(j) = j0 {
        *j = s.0[n];
    }
    add_ctr(ctr, n as u32);
}

/// The fused entry (see `Backend::crypt`).
///
/// # Safety
/// `src`/`dst` hold `16 * blocks` bytes, equal or disjoint.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn crypt(
    k: &CeKey,
    encrypt: bool,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    let mut s = Scratch::new();
    s.0[4] = kernel_form(y);
    // A message of at most four blocks with its J0: one straight-line pass.
    let done = if j0.is_some() && blocks <= GROUP {
        0
    } else {
        // SAFETY: the caller's contract.
        unsafe {
            groups(
                k,
                stitched(k.rounds, encrypt),
                &mut s,
                ctr,
                src,
                dst,
                blocks,
            )
        }
    };
    let mut yk = s.0[4];
    let n = blocks - done;
    if n > 0 || j0.is_some() {
        // SAFETY: the offsets stay inside the caller's buffers.
        let (src, dst) = unsafe { (src.add(16 * done), dst.add(16 * done)) };
        if n > 0 && !encrypt {
            // SAFETY: `src` holds n ≤ 4 blocks.
            unsafe { kernels::ghash_blocks(k.ptr(), src, n, yk.as_mut_ptr()) };
        }
        // SAFETY: `src`/`dst` hold n blocks.
        unsafe { lanes(k, &mut s, ctr, src, dst, n, j0) };
        if n > 0 && encrypt {
            // SAFETY: `dst` now holds the n ciphertext blocks.
            unsafe { kernels::ghash_blocks(k.ptr(), dst, n, yk.as_mut_ptr()) };
        }
    }
    *y = kernel_form(&yk);
    crate::secret::wipe_bytes(&mut yk);
}

/// GHASH only: eight blocks per iteration, the rest in one pass.
///
/// # Safety
/// `data` holds `16 * blocks` bytes.
pub(super) unsafe fn ghash(k: &CeKey, y: &mut [u8; 16], data: *const u8, blocks: usize) {
    let mut yk = kernel_form(y);
    let iters = blocks / 8;
    // SAFETY: `data` holds 16*blocks bytes; `yk` is the 16-byte state.
    unsafe {
        if iters > 0 {
            kernels::kernel_ghash(k.ptr(), data, iters, yk.as_mut_ptr());
        }
        if blocks % 8 > 0 {
            kernels::ghash_blocks(k.ptr(), data.add(128 * iters), blocks % 8, yk.as_mut_ptr());
        }
    }
    *y = kernel_form(&yk);
    crate::secret::wipe_bytes(&mut yk);
}

/// CTR only; with `j0`, E(K, J0) in place as one more lane of the last pass (a message
/// of at most four blocks then runs in one straight-line kernel).
///
/// # Safety
/// `src`/`dst` hold `16 * blocks` bytes, equal or disjoint.
pub(super) unsafe fn ctr(
    k: &CeKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    let mut s = Scratch::new();
    // SAFETY: the caller's contract; the offsets stay inside the buffers.
    unsafe {
        let done = if j0.is_some() && blocks <= GROUP {
            0
        } else {
            groups(k, ctr_loop(k.rounds), &mut s, ctr, src, dst, blocks)
        };
        if blocks > done || j0.is_some() {
            lanes(
                k,
                &mut s,
                ctr,
                src.add(16 * done),
                dst.add(16 * done),
                blocks - done,
                j0,
            );
        }
    }
}

/// Encrypts `blocks.len()` ≤ 2 blocks in place.
pub(super) fn encrypt_blocks(k: &CeKey, blocks: &mut [&mut [u8; 16]]) {
    let mut s = Scratch::new();
    for (e, b) in s.0.iter_mut().zip(blocks.iter()) {
        *e = **b;
    }
    let f = if blocks.len() == 1 {
        kernels::lanes_1_0
    } else {
        kernels::lanes_2_0
    };
    // SAFETY: the blocks are encrypted in place in the scratch area; no data lanes.
    unsafe { f(k.ptr(), s.ptr(), core::ptr::null(), core::ptr::null_mut()) };
    for (e, b) in s.0.iter().zip(blocks.iter_mut()) {
        **b = *e;
    }
}
