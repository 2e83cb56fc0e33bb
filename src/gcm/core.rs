//! [`Core`]: the 64-byte state of one message, laid out as nettle's `struct gcm_ctx`, and
//! [`BlockKey`], what it needs from a key.
//!
//! A core takes AAD, then data, in whole blocks plus at most one final partial block per
//! phase (nettle's rule; `Message` buffers around it for callers who split anywhere).
//! Whole blocks go to the fused kernel of the key; a partial block is one keystream
//! block XORed here and zero-padded for GHASH. The tag is GHASH of the lengths block,
//! masked with E(K, J0).

use super::{inc32, xor_keystream, Direction, BLOCK};
use crate::backend::partial::store_block;
use crate::secret::wipe_block;

/// What [`Core`] needs from a key: one-block encryption, GHASH, and the fused CTR+GHASH
/// over whole blocks. [`super::Key`] implements it with a backend's kernels,
/// [`super::generic::Engine`] for any block cipher, so the GCM rules live here either way.
pub(crate) trait BlockKey {
    fn encrypt_block(&self, block: &mut [u8; 16]);

    /// Encrypts two independent blocks (a keystream block and J0 for the tag mask).
    fn encrypt_block2(&self, a: &mut [u8; 16], b: &mut [u8; 16]) {
        self.encrypt_block(a);
        self.encrypt_block(b);
    }

    /// y = GHASH_H(y, data); `data` is whole blocks.
    fn ghash(&self, y: &mut [u8; 16], data: &[u8]);

    /// y = GHASH_H(y, lens); returns E(K, j0) ^ y (the tag).
    fn tag(&self, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
        tag_by_parts(self, j0, y, lens)
    }

    /// y = GHASH_H(y, data zero-padded to whole blocks).
    fn ghash_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        padded(y, data, |y, blocks| self.ghash(y, blocks));
    }

    /// CTR over `blocks` whole blocks from `ctr` (advanced, inc32), with GHASH of the
    /// ciphertext into `y`; with `j0`, also E(K, J0) in place.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; equal or disjoint.
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
    );
}

/// [`BlockKey::tag`] from one-block encryption and GHASH.
pub(crate) fn tag_by_parts(
    key: &(impl BlockKey + ?Sized),
    j0: &[u8; 16],
    y: &mut [u8; 16],
    lens: &[u8; 16],
) -> [u8; 16] {
    let mut mask = *j0;
    key.encrypt_block(&mut mask);
    key.ghash(y, lens);
    for (t, y) in mask.iter_mut().zip(y.iter()) {
        *t ^= y;
    }
    mask
}

/// GHASH of `data` zero-padded to whole blocks with a whole-block GHASH `ghash`.
pub(crate) fn padded(y: &mut [u8; 16], data: &[u8], ghash: impl Fn(&mut [u8; 16], &[u8])) {
    let whole = data.len() / BLOCK * BLOCK;
    if whole > 0 {
        ghash(y, &data[..whole]);
    }
    if whole < data.len() {
        let mut last = [0u8; 16];
        last[..data.len() - whole].copy_from_slice(&data[whole..]);
        ghash(y, &last);
    }
}

/// Per-message state, laid out as nettle's `struct gcm_ctx` (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Core {
    /// J0, the pre-counter block; E(K, J0) masks the tag.
    pub j0: [u8; 16],
    /// The next counter block.
    pub ctr: [u8; 16],
    /// GHASH accumulator (big-endian field element as in the spec).
    pub y: [u8; 16],
    /// AAD bytes absorbed.
    pub aad_len: u64,
    /// Text bytes processed.
    pub data_len: u64,
}

impl Core {
    /// An all-zero state (no message).
    pub(crate) const fn zeroed() -> Core {
        Core {
            j0: [0; 16],
            ctr: [0; 16],
            y: [0; 16],
            aad_len: 0,
            data_len: 0,
        }
    }

    /// Starts a message: J0 = IV‖0^31‖1 for 96-bit IVs, else GHASH(IV‖pad‖[len(IV)]64).
    /// Any IV length is accepted here (nettle accepts 0); callers enforce their rules.
    pub(crate) fn start(key: &impl BlockKey, iv: &[u8]) -> Core {
        if let Ok(iv96) = <&[u8; 12]>::try_from(iv) {
            return Core::start_96(iv96);
        }
        let mut j0 = [0u8; 16];
        key.ghash_padded(&mut j0, iv);
        let mut last = [0u8; 16];
        last[8..].copy_from_slice(&(iv.len() as u64).wrapping_mul(8).to_be_bytes());
        key.ghash(&mut j0, &last);
        Core::with_j0(j0)
    }

    /// [`Core::start`] for a 96-bit IV, which needs no key: J0 = IV‖0^31‖1.
    #[inline(always)]
    pub(crate) fn start_96(iv: &[u8; 12]) -> Core {
        let mut core = Core::zeroed();
        core.restart_96(iv);
        core
    }

    /// Starts a message with a 96-bit IV in place (no temporary to copy).
    #[inline(always)]
    pub(crate) fn restart_96(&mut self, iv: &[u8; 12]) {
        // J0 and inc32(J0) are built in registers and each written with one 16-byte
        // store: the kernels load them as blocks right away, and a block assembled from
        // narrower stores would not be store-forwarded.
        let lo = u64::from_le_bytes(iv[..8].try_into().unwrap());
        let iv_hi = u64::from(u32::from_le_bytes(iv[8..].try_into().unwrap()));
        // SAFETY: `j0`, `ctr` and `y` are 16 writable bytes each.
        unsafe {
            // The big-endian counter's low byte is the block's last: bits 56.. of `hi`.
            store_block(self.j0.as_mut_ptr(), [lo, iv_hi | (1 << 56)]);
            store_block(self.ctr.as_mut_ptr(), [lo, iv_hi | (2 << 56)]);
            store_block(self.y.as_mut_ptr(), [0, 0]);
        }
        self.aad_len = 0;
        self.data_len = 0;
    }

    /// J0 alone, for callers that need no counter or accumulator (a one-pass message).
    #[inline(always)]
    pub(crate) fn j0(key: &impl BlockKey, iv: &[u8]) -> [u8; 16] {
        if let Ok(iv96) = <&[u8; 12]>::try_from(iv) {
            return Core::start_96(iv96).j0;
        }
        Core::start(key, iv).j0
    }

    pub(crate) fn with_j0(j0: [u8; 16]) -> Core {
        let mut ctr = j0;
        inc32(&mut ctr);
        Core {
            j0,
            ctr,
            y: [0; 16],
            aad_len: 0,
            data_len: 0,
        }
    }

    /// Absorbs AAD; all but the last call of a message must be multiples of 16 bytes
    /// (a partial block is zero-padded).
    pub(crate) fn aad(&mut self, key: &impl BlockKey, data: &[u8]) {
        key.ghash_padded(&mut self.y, data);
        self.aad_len = self.aad_len.wrapping_add(data.len() as u64);
    }

    /// Whole blocks through the fused kernel. With `mask` (holding J0 on entry), E(K, J0)
    /// is computed alongside and left in it.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; equal or disjoint.
    pub(crate) unsafe fn blocks(
        &mut self,
        key: &impl BlockKey,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        mask: Option<&mut [u8; 16]>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { key.crypt_blocks(dir, &mut self.ctr, &mut self.y, src, dst, blocks, mask) };
        self.data_len = self.data_len.wrapping_add((blocks * BLOCK) as u64);
    }

    /// Encrypts or decrypts `len` bytes; all but the last call of a message must be
    /// multiples of 16 bytes (nettle's rule).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(crate) unsafe fn crypt(
        &mut self,
        key: &impl BlockKey,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let blocks = len / BLOCK;
        if blocks > 0 {
            // SAFETY: both buffers hold `len` ≥ 16*blocks bytes.
            unsafe { self.blocks(key, dir, src, dst, blocks, None) };
        }
        let tail = len - blocks * BLOCK;
        if tail > 0 {
            let mut ks = self.next_keystream(key);
            let mut ct = [0u8; 16];
            // SAFETY: the last `tail` bytes of both buffers.
            unsafe {
                let off = blocks * BLOCK;
                xor_keystream(dir, src.add(off), dst.add(off), &ks[..tail], Some(&mut ct));
            }
            key.ghash(&mut self.y, &ct);
            self.data_len = self.data_len.wrapping_add(tail as u64);
            wipe_block(&mut ks);
            wipe_block(&mut ct);
        }
    }

    /// E(K, ctr), then ctr += 1.
    pub(crate) fn next_keystream(&mut self, key: &impl BlockKey) -> [u8; 16] {
        let mut ks = self.ctr;
        key.encrypt_block(&mut ks);
        inc32(&mut self.ctr);
        ks
    }

    /// E(K, ctr) and E(K, J0) together (a message whose first data is under a block);
    /// then ctr += 1.
    pub(crate) fn next_keystream_and_mask(&mut self, key: &impl BlockKey) -> ([u8; 16], [u8; 16]) {
        let (mut ks, mut mask) = (self.ctr, self.j0);
        key.encrypt_block2(&mut ks, &mut mask);
        inc32(&mut self.ctr);
        (ks, mask)
    }

    /// The full 16-byte tag: GHASH of the lengths block, masked with E(K, J0).
    /// Leaves `y` modified (as nettle's `gcm_digest` does).
    pub(crate) fn finish(&mut self, key: &impl BlockKey) -> [u8; 16] {
        let lens = self.lengths();
        key.tag(&self.j0, &mut self.y, &lens)
    }

    /// The lengths block (AAD and text lengths in bits, 64-bit big-endian each) as
    /// the little-endian halves `partial::store_block` writes.
    #[inline]
    pub(crate) fn lengths_halves(&self) -> [u64; 2] {
        // One 128-bit byte swap of data‖aad: two scalar byte swaps (two 64-bit swaps side
        // by side were vectorised into a long SSE2 shuffle).
        let (a, d) = (self.aad_len.wrapping_mul(8), self.data_len.wrapping_mul(8));
        let x = ((u128::from(a) << 64) | u128::from(d)).swap_bytes();
        [x as u64, (x >> 64) as u64]
    }

    /// The lengths block, written with one 16-byte store.
    pub(crate) fn lengths(&self) -> [u8; 16] {
        let mut lens = [0u8; 16];
        // SAFETY: `lens` is 16 writable bytes.
        unsafe { store_block(lens.as_mut_ptr(), self.lengths_halves()) };
        lens
    }

    pub fn wipe(&mut self) {
        wipe_block(&mut self.j0);
        wipe_block(&mut self.ctr);
        wipe_block(&mut self.y);
        self.aad_len = 0;
        self.data_len = 0;
    }
}
