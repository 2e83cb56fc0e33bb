//! `soft`: the portable constant-time backend, available everywhere.
//!
//! It is the reference every other backend is tested against and the fallback on CPUs
//! without AES instructions. AES is bit-sliced four blocks at a time (`aes.rs`), GHASH
//! multiplies with masked integer multiplies (`ghash.rs`); neither indexes memory with
//! secret data. Counter blocks are generated four at a time so the bit-sliced AES always
//! runs full; the unused lanes of a short final group are computed and discarded.

mod aes;
mod ghash;
mod short;

use crate::backend::{Backend, Direction, Material, Plain, PublicCtr};
use crate::secret::wipe_bytes;
use aes::BitslicedKey;
pub(crate) use ghash::GhashKey;

#[repr(C)]
#[derive(Clone, Copy)]
struct SoftKey {
    aes: BitslicedKey,
    ghash: GhashKey,
}

// SAFETY: both members are `#[repr(C)]` aggregates of u64s.
unsafe impl Plain for SoftKey {}

pub(crate) struct Soft;

/// Writes the next `n` counter blocks (inc32) into `out` and advances `ctr`.
#[inline]
fn counter_blocks(ctr: &mut [u8; 16], out: &mut [[u8; 16]; 4], n: usize) {
    let mut c = u32::from_be_bytes(ctr[12..].try_into().unwrap());
    for block in out.iter_mut().take(n) {
        *block = *ctr;
        block[12..].copy_from_slice(&c.to_be_bytes());
        c = c.wrapping_add(1);
    }
    ctr[12..].copy_from_slice(&c.to_be_bytes());
}

/// Encrypts up to four counter blocks and XORs the keystream into `src` → `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `16 * n` bytes, equal or disjoint.
#[inline]
unsafe fn ctr_group(k: &SoftKey, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, n: usize) {
    let mut ks = [[0u8; 16]; 4];
    counter_blocks(ctr, &mut ks, n);
    aes::encrypt4(&k.aes, &mut ks);
    for (i, ks_block) in ks.iter().enumerate().take(n) {
        // SAFETY: i < n, so the 16 bytes at offset 16*i are inside both buffers; reads
        // and writes are unaligned-tolerant and src == dst is fine byte by byte.
        unsafe {
            let mut b = core::ptr::read_unaligned(src.add(16 * i) as *const [u8; 16]);
            for (x, k) in b.iter_mut().zip(ks_block) {
                *x ^= k;
            }
            core::ptr::write_unaligned(dst.add(16 * i) as *mut [u8; 16], b);
        }
    }
    crate::secret::wipe_bytes(ks.as_flattened_mut());
}

impl Backend for Soft {
    const NAME: &'static core::ffi::CStr = c"soft";
    const KEY_BYTES: usize = core::mem::size_of::<SoftKey>();

    fn is_available() -> bool {
        true
    }

    fn init(m: &mut Material, key: &[u8]) {
        let k: &mut SoftKey = m.view_mut();
        aes::expand_key(key, &mut k.aes);
        let mut h = [[0u8; 16]; 4];
        aes::encrypt4(&k.aes, &mut h);
        k.ghash = GhashKey::new(&h[0]);
        crate::secret::wipe_bytes(h.as_flattened_mut());
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        let k: &SoftKey = m.view();
        let mut b = [*block, [0; 16], [0; 16], [0; 16]];
        aes::encrypt4(&k.aes, &mut b);
        *block = b[0];
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        let k: &SoftKey = m.view();
        let mut blocks = [*a, *b, [0; 16], [0; 16]];
        aes::encrypt4(&k.aes, &mut blocks);
        (*a, *b) = (blocks[0], blocks[1]);
        crate::secret::wipe_bytes(blocks.as_flattened_mut());
    }

    unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize) {
        let k: &SoftKey = m.view();
        // SAFETY: the caller guarantees `data` is readable for 16*blocks bytes.
        let data = unsafe { core::slice::from_raw_parts(data, 16 * blocks) };
        k.ghash.update(y, data);
    }

    unsafe fn crypt(
        m: &Material,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
        _at: PublicCtr,
    ) {
        let k: &SoftKey = m.view();
        if let Some(j0) = j0 {
            Self::encrypt_block(m, j0);
        }
        let mut done = 0;
        while done < blocks {
            let n = (blocks - done).min(4);
            // SAFETY: blocks done..done+n lie inside the caller's buffers. Decryption
            // hashes the ciphertext before it may be overwritten in place; encryption
            // reads back the ciphertext it just wrote.
            unsafe {
                let (s, d) = (src.add(16 * done), dst.add(16 * done));
                if dir == Direction::Decrypt {
                    k.ghash.update(y, core::slice::from_raw_parts(s, 16 * n));
                }
                ctr_group(k, ctr, s, d, n);
                if dir == Direction::Encrypt {
                    k.ghash.update(y, core::slice::from_raw_parts(d, 16 * n));
                }
            }
            done += n;
        }
    }

    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
        let k: &SoftKey = m.view();
        let mut done = 0;
        while done < blocks {
            let n = (blocks - done).min(4);
            // SAFETY: blocks done..done+n lie inside the caller's buffers.
            unsafe { ctr_group(k, ctr, src.add(16 * done), dst.add(16 * done), n) };
            done += n;
        }
    }

    const SHORT_DATA_BLOCKS: usize = short::DATA_BLOCKS;
    // No powers of H to run out of: GHASH goes block by block.
    const SHORT_HASH_BLOCKS: usize = usize::MAX;

    unsafe fn crypt_short(
        m: &Material,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> [u8; 16] {
        // SAFETY: forwarded contract.
        unsafe { short::crypt(m.view(), dir, j0, aad, src, dst, len, None).0 }
    }

    unsafe fn open_short(
        m: &Material,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        tag: &[u8],
    ) -> bool {
        // SAFETY: forwarded contract.
        let (mut full, ok) = unsafe {
            short::crypt(
                m.view(),
                Direction::Decrypt,
                j0,
                aad,
                src,
                dst,
                len,
                Some(tag),
            )
        };
        wipe_bytes(&mut full);
        ok
    }
}
