//! The pieces of the seeded differential runs (`differential.rs`,
//! `rfc4106_differential.rs`): the base seed and its override, a failure context that
//! names the case, canary-framed buffers, and chunked feeding.

use super::Rng;

/// The base seed when `STITCHGCM_TEST_SEED` is not set.
pub const DEFAULT_SEED: u64 = 0x5717_c46c_2024_0001;
/// Room around every output region of a [`Framed`] for canary bytes.
const SLACK: usize = 48;

/// A numeric environment variable, decimal or 0x-hex.
pub fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|e| panic!("bad {name}={v:?}: {e}")))
}

/// `STITCHGCM_TEST_SEED`, else [`DEFAULT_SEED`].
pub fn base_seed() -> u64 {
    env_u64("STITCHGCM_TEST_SEED").unwrap_or(DEFAULT_SEED)
}

/// Prints where a failing case came from when the thread unwinds through it.
pub struct FailureContext(pub String);

impl Drop for FailureContext {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("differential failure in {}", self.0);
        }
    }
}

/// A canary-filled buffer holding a `len`-byte region at a random offset.
pub struct Framed {
    pub buf: Vec<u8>,
    pub canary: Vec<u8>,
    off: usize,
    len: usize,
}

impl Framed {
    pub fn new(rng: &mut Rng, len: usize) -> Framed {
        let off = rng.range(0, 31);
        let canary = rng.bytes(len + off + SLACK);
        Framed {
            buf: canary.clone(),
            canary,
            off,
            len,
        }
    }

    pub fn region(&self) -> &[u8] {
        &self.buf[self.off..self.off + self.len]
    }

    /// The region from `pos` to `pos + n`.
    pub fn part(&mut self, pos: usize, n: usize) -> &mut [u8] {
        &mut self.buf[self.off + pos..self.off + pos + n]
    }

    /// From `pos` to the end of the buffer (longer than needed, like a big `dst`).
    pub fn tail_from(&mut self, pos: usize) -> &mut [u8] {
        &mut self.buf[self.off + pos..]
    }

    pub fn fill_region(&mut self, data: &[u8]) {
        let (o, l) = (self.off, self.len);
        self.buf[o..o + l].copy_from_slice(data);
    }

    /// Everything outside the region still holds the canary.
    pub fn frame_intact(&self) -> bool {
        let end = self.off + self.len;
        self.buf[..self.off] == self.canary[..self.off] && self.buf[end..] == self.canary[end..]
    }
}

/// Feeds `data` through `op` in the chunk sizes of `chunks`.
pub fn for_chunks(chunks: &[usize], mut op: impl FnMut(usize, usize)) {
    let mut pos = 0;
    for &n in chunks {
        op(pos, n);
        pos += n;
    }
}
