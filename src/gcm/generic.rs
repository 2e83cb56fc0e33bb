//! GCM over any 128-bit block cipher, as nettle's generic `gcm_*` functions compute it,
//! next to the fused path of an expanded [`Key`] — one [`Engine`] for both, so the
//! nettle front-end calls the same [`super::Core`] code whichever it has.
//!
//! The generic side is what nettle does: GHASH keyed with H = E(0) taken when the key was
//! set up (here the portable constant-time GHASH of the `soft` backend), and the caller's
//! block function for the keystream, eight counter blocks per call. It serves ciphers
//! that are not AES (Camellia, SM4, a caller's own) and AES contexts that were re-keyed
//! behind GCM's back (whose H no longer matches the cipher, which nettle keeps using).

use super::core::{BlockKey, Core};
use super::{inc32, Direction, Key, BLOCK};
use crate::secret::wipe_bytes;

/// The portable GHASH key (H and its precomputed forms): plain data, so it can be kept
/// in caller-owned memory.
pub(crate) use crate::backend::soft::GhashKey as GhashTable;

/// A caller's block cipher: ECB encryption of the whole blocks of `inp` into `out`.
pub(crate) type BlockFn<'a> = &'a dyn Fn(&mut [u8], &[u8]);

/// Where the generic path takes its keystream from.
pub(crate) enum Keystream<'a> {
    /// Nowhere: GHASH only (IV processing and AAD).
    None,
    /// One of our AES keys, used block by block (a re-keyed nettle AES context).
    Key(&'a Key),
    /// The caller's block function.
    Func(BlockFn<'a>),
}

/// The keys [`super::Core`] can run on.
pub(crate) enum Engine<'a> {
    /// An expanded key and its backend's fused kernels.
    Fused(&'a Key),
    /// GHASH with a set-key-time H, and a keystream source.
    Generic(&'a GhashTable, Keystream<'a>),
}

/// The mode's operations on a [`Core`], dispatched once per call: the fused key's run
/// monomorphic on [`Key`], not through this enum for every block function.
impl Engine<'_> {
    pub(crate) fn start(&self, iv: &[u8]) -> Core {
        match self {
            Engine::Fused(k) => Core::start(*k, iv),
            Engine::Generic(..) => Core::start(self, iv),
        }
    }

    pub(crate) fn aad(&self, core: &mut Core, data: &[u8]) {
        match self {
            Engine::Fused(k) => core.aad(*k, data),
            Engine::Generic(..) => core.aad(self, data),
        }
    }

    /// # Safety
    /// As for [`Core::crypt`].
    pub(crate) unsafe fn crypt(
        &self,
        core: &mut Core,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match self {
                Engine::Fused(k) => core.crypt(*k, dir, src, dst, len),
                Engine::Generic(..) => core.crypt(self, dir, src, dst, len),
            }
        }
    }

    pub(crate) fn finish(&self, core: &mut Core) -> [u8; 16] {
        match self {
            Engine::Fused(k) => core.finish(*k),
            Engine::Generic(..) => core.finish(self),
        }
    }

    fn ecb(&self, out: &mut [u8], inp: &[u8]) {
        match self {
            Engine::Fused(k) => k.ecb(out, inp),
            Engine::Generic(_, Keystream::Key(k)) => k.ecb(out, inp),
            Engine::Generic(_, Keystream::Func(f)) => f(out, inp),
            Engine::Generic(_, Keystream::None) => {
                unreachable!("a GHASH-only engine was asked to encrypt")
            }
        }
    }
}

impl BlockKey for Engine<'_> {
    fn encrypt_block(&self, block: &mut [u8; 16]) {
        match self {
            Engine::Fused(k) => k.encrypt_block(block),
            _ => {
                let inp = *block;
                self.ecb(block, &inp);
            }
        }
    }

    fn encrypt_block2(&self, a: &mut [u8; 16], b: &mut [u8; 16]) {
        match self {
            Engine::Fused(k) => k.encrypt_block2(a, b),
            _ => {
                self.encrypt_block(a);
                self.encrypt_block(b);
            }
        }
    }

    fn ghash(&self, y: &mut [u8; 16], data: &[u8]) {
        match self {
            Engine::Fused(k) => k.ghash(y, data),
            Engine::Generic(g, _) => g.update(y, data),
        }
    }

    fn tag(&self, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
        match self {
            Engine::Fused(k) => k.tag(j0, y, lens),
            Engine::Generic(..) => super::core::tag_by_parts(self, j0, y, lens),
        }
    }

    fn ghash_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        match self {
            Engine::Fused(k) => k.ghash_padded(y, data),
            Engine::Generic(g, _) => super::core::padded(y, data, |y, b| g.update(y, b)),
        }
    }

    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        mut src: *const u8,
        mut dst: *mut u8,
        mut blocks: usize,
        j0: Option<&mut [u8; 16]>,
    ) {
        let ghash = match self {
            // SAFETY: forwarded from the caller.
            Engine::Fused(k) => {
                return unsafe { k.crypt_blocks(dir, ctr, y, src, dst, blocks, j0) }
            }
            Engine::Generic(g, _) => g,
        };
        if let Some(j0) = j0 {
            self.encrypt_block(j0);
        }
        const CHUNK: usize = 8;
        let mut ctrs = [0u8; CHUNK * BLOCK];
        let mut ks = [0u8; CHUNK * BLOCK];
        let mut buf = [0u8; CHUNK * BLOCK];
        // What the loop wrote: only that is wiped (a record's one block, not the chunk).
        let used = blocks.min(CHUNK) * BLOCK;
        while blocks > 0 {
            let n = blocks.min(CHUNK);
            let len = n * BLOCK;
            for c in ctrs.chunks_exact_mut(BLOCK).take(n) {
                c.copy_from_slice(ctr);
                inc32(ctr);
            }
            self.ecb(&mut ks[..len], &ctrs[..len]);
            // SAFETY: the caller guarantees `len` readable bytes at `src`; `buf` is ours,
            // so in-place callers never see aliasing slices.
            unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), len) };
            if dir == Direction::Decrypt {
                ghash.update(y, &buf[..len]);
            }
            for (b, k) in buf[..len].iter_mut().zip(&ks[..len]) {
                *b ^= k;
            }
            if dir == Direction::Encrypt {
                ghash.update(y, &buf[..len]);
            }
            // SAFETY: the caller guarantees `len` writable bytes at `dst`.
            unsafe {
                core::ptr::copy_nonoverlapping(buf.as_ptr(), dst, len);
                src = src.add(len);
                dst = dst.add(len);
            }
            blocks -= n;
        }
        wipe_bytes(&mut ks[..used]);
        wipe_bytes(&mut buf[..used]);
    }
}
