//! How the generated kernels (`kernels.rs`) are called: the constant tables they read,
//! the scratch block that carries the counter and their spills, the GHASH state in
//! their byte order, and the one call per run of whole groups — or, for the single-pass
//! kernels (vector-permute AES of one or two lanes, GHASH of 1..=8 blocks), per call,
//! with a scratch block only as large as their spills. The message kernels take their
//! blocks in registers and keep their spills below the stack pointer (`short.rs`).
//!
//! Layouts here are shared with the generator (`C_*`, `V_*`, `S_*` in `neon_prog.py`).

use super::{kernels, NeonKey, GROUP};
use crate::backend::vperm as vp;

/// Constant table of the kernels (layout: `C_*` in `neon_prog.py`).
#[repr(C, align(16))]
struct Consts([u8; 144]);

static CONSTS: Consts = Consts(consts());

const fn consts() -> [u8; 144] {
    let mut c = [0u8; 144];
    let mut i = 0;
    while i < 6 {
        c[i] = 0xff; // k48
        i += 1;
    }
    c[8] = 0xff; // k32
    c[9] = 0xff;
    c[10] = 0xff;
    c[11] = 0xff;
    c[16] = 0xff; // k16
    c[17] = 0xff;
    let mut r = 0;
    while r < 4 {
        let mut col = 0;
        while col < 4 {
            // ShiftRows on a row-major state.
            c[32 + 4 * r + col] = (4 * r + (col + r) % 4) as u8;
            // Native (rev32) counter to row-major big-endian bytes.
            c[48 + 4 * r + col] = (4 * col + 3 - r) as u8;
            // Last round: ShiftRows, then back to column-major.
            c[64 + 4 * col + r] = (4 * r + (col + r) % 4) as u8;
            col += 1;
        }
        r += 1;
    }
    let mut j = 0;
    while j < 16 {
        c[80 + j] = 0x55;
        c[96 + j] = 0x33;
        c[112 + j] = 0x0f;
        j += 1;
    }
    c[128 + 12] = 1; // (0, 0, 0, 1) as u32 lanes
    c
}

/// Constant table of the vector-permute kernels (layout: `V_*` in `neon_prog.py`): the
/// tables of `backend/vperm.rs`, its input permutation read from the native counter, and
/// the GHASH fold masks of `CONSTS` for the message kernels.
#[repr(C, align(16))]
pub(super) struct VConsts(pub(super) [u8; 272]);

pub(super) static VCONSTS: VConsts = VConsts(vconsts());

const fn vconsts() -> [u8; 272] {
    let mut c = [0u8; 272];
    let tables = [
        [0x0f; 16],
        vp::INV,
        vp::ZINV,
        vp::SB_MID[0],
        vp::SB_MID[1],
        vp::SB_MID2[0],
        vp::SB_MID2[1],
        vp::SB_LAST[0],
        vp::SB_LAST[1],
        vp::TOWER_IN[0],
        vp::TOWER_IN[1],
        vp::IN_PERM,
        vp::SHIFT_ROWS,
        vp::OUT_PERM,
    ];
    let mut t = 0;
    while t < tables.len() {
        let mut i = 0;
        while i < 16 {
            c[16 * t + i] = tables[t][i];
            i += 1;
        }
        t += 1;
    }
    // V_IN reads the counter in native lanes (rev32): standard byte b is native byte
    // 4·(b/4) + 3 − b%4.
    let mut i = 0;
    while i < 16 {
        let b = c[176 + i];
        c[176 + i] = 4 * (b / 4) + 3 - b % 4;
        i += 1;
    }
    c[224 + 12] = 1; // V_ONE: (0, 0, 0, 1) as u32 lanes
    let mut i = 0;
    while i < 24 {
        c[240 + i] = CONSTS.0[i]; // V_K48, V_K32, V_K16
        i += 1;
    }
    c
}

/// A block as the message kernels take and return it: two doubles, so that `extern "C"`
/// (AAPCS-VFP) passes it in a q register (a homogeneous aggregate); the bits are never
/// used as numbers.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Q(pub(super) f64, pub(super) f64);

impl Q {
    /// The block with little-endian halves `w`.
    #[inline(always)]
    pub(super) fn new(w: [u64; 2]) -> Q {
        Q(f64::from_bits(w[0]), f64::from_bits(w[1]))
    }

    #[inline(always)]
    pub(super) fn words(self) -> [u64; 2] {
        [self.0.to_bits(), self.1.to_bits()]
    }
}

/// What a message kernel returns (in q0 and q1): the tag, then the last output block.
#[repr(C)]
pub(super) struct Out(pub(super) Q, pub(super) Q);

/// The message kernels' common signature (see `kernels.rs`).
type MsgKernel =
    unsafe extern "C" fn(*const NeonKey, *const u8, *const u8, *mut u8, Q, Q, Q, Q) -> Out;

/// The message kernels by direction (seal, open) and data blocks (an empty message is
/// sealed either way), picked by index like `VPERM_KERNELS`. Each serves every key size
/// (it reads the round count).
pub(super) static MSG_KERNELS: [[MsgKernel; kernels::MSG_BLOCKS + 1]; 2] = {
    use kernels::*;
    [
        [
            kernel_seal0,
            kernel_seal1,
            kernel_seal2,
            kernel_seal3,
            kernel_seal4,
            kernel_seal5,
        ],
        [
            kernel_seal0,
            kernel_open1,
            kernel_open2,
            kernel_open3,
            kernel_open4,
            kernel_open5,
        ],
    ]
};

/// The scratch block of a single-pass kernel: the counter and room for `W` spilled
/// words (at least the `*_SPILL_BYTES` the generator reported), wiped after the call.
/// Nothing else is read.
#[repr(C, align(16))]
struct SmallScratch<const W: usize>([u64; W]);

/// Lanes of the largest vector-permute kernel.
pub(super) const VPERM_LANES: usize = kernels::VPERM_SPILL_BYTES[0].len();

/// Spill words of the scratch block.
const SMALL_SPILL_WORDS: usize = 4;
const _: () = {
    let mut i = 0;
    while i < 3 {
        let mut l = 0;
        while l < VPERM_LANES {
            assert!(kernels::VPERM_SPILL_BYTES[i][l] <= 8 * SMALL_SPILL_WORDS);
            l += 1;
        }
        i += 1;
    }
    let mut t = 0;
    while t < 8 {
        assert!(kernels::GHASH_SHORT_SPILL_BYTES[t] <= 8 * SMALL_SPILL_WORDS);
        t += 1;
    }
};

impl<const W: usize> SmallScratch<W> {
    fn new(ctr: &[u8; 16]) -> SmallScratch<W> {
        let mut s = SmallScratch([0; W]);
        s.0[..2].copy_from_slice(&Scratch::new_words(ctr));
        s
    }

    /// Wipes the first `bytes` of the spill area.
    fn wipe(&mut self, bytes: usize) {
        crate::secret::wipe_u64(&mut self.0[2..2 + bytes.div_ceil(8)]);
    }
}

/// Counter and spill area of one group kernel call (layout: `S_*` in `neon_prog.py`):
/// as large as the most any of them spills, and wiped that far.
#[repr(C, align(16))]
struct Scratch([u64; SCRATCH_WORDS]);

const SCRATCH_WORDS: usize = 2 + kernels::GROUP_SPILL_BYTES.div_ceil(8);

impl Scratch {
    fn new(ctr: &[u8; 16]) -> Scratch {
        let mut s = Scratch([0; SCRATCH_WORDS]);
        s.0[..2].copy_from_slice(&Scratch::new_words(ctr));
        s
    }

    /// The counter in native u32 lanes (rev32), so the kernel adds to lane 3.
    fn new_words(ctr: &[u8; 16]) -> [u64; 2] {
        core::array::from_fn(|i| {
            let lo = u32::from_be_bytes(ctr[8 * i..8 * i + 4].try_into().unwrap());
            let hi = u32::from_be_bytes(ctr[8 * i + 4..8 * i + 8].try_into().unwrap());
            u64::from(lo) | (u64::from(hi) << 32)
        })
    }

    /// The counter block the kernel left behind.
    fn ctr(&self) -> [u8; 16] {
        let mut c = [0u8; 16];
        for i in 0..2 {
            c[8 * i..8 * i + 4].copy_from_slice(&(self.0[i] as u32).to_be_bytes());
            c[8 * i + 4..8 * i + 8].copy_from_slice(&((self.0[i] >> 32) as u32).to_be_bytes());
        }
        c
    }

    fn ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr() as *mut u8
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Spilled AES state and keystream.
        crate::secret::wipe_u64(&mut self.0);
    }
}

/// The GHASH state in the kernels' form: each 8-byte half byte-reversed (`vrev64`).
fn rev64(y: &[u8; 16]) -> [u8; 16] {
    let mut r = *y;
    r[..8].reverse();
    r[8..].reverse();
    r
}

/// The kernels' common signature (see `kernels.rs`).
type Kernel =
    unsafe fn(*const u8, *const u8, *const u8, *mut u8, *mut u8, *const u8, *mut u8, usize);

/// The vector-permute kernels by key size (AES-128, -192, -256) and lanes − 1, picked by
/// index (the round and lane counts, both public) rather than by a `match`, which LLVM
/// compiles into a jump table that the static constant-time check cannot follow.
static VPERM_KERNELS: [[Kernel; VPERM_LANES]; 3] = {
    use kernels::*;
    [
        [kernel_vperm1_aes128, kernel_vperm2_aes128],
        [kernel_vperm1_aes192, kernel_vperm2_aes192],
        [kernel_vperm1_aes256, kernel_vperm2_aes256],
    ]
};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Ctr,
    Enc,
    Dec,
}

fn kernel(mode: Mode) -> Kernel {
    // One kernel per direction for every key size: it reads the round count from the key
    // (`NeonKey::rounds`, at `kernels::ROUNDS_OFFSET` from the round keys).
    match mode {
        Mode::Ctr => kernels::kernel_ctr,
        Mode::Enc => kernels::kernel_enc,
        Mode::Dec => kernels::kernel_dec,
    }
}

impl NeonKey {
    /// Runs `mode` over `groups` whole groups; `ctr` and `y` are advanced.
    ///
    /// # Safety
    /// `src`/`dst` hold `128 * groups` bytes, equal or disjoint; `groups` > 0.
    pub(super) unsafe fn run(
        &self,
        mode: Mode,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        groups: usize,
    ) {
        // The kernels read the round count at this distance from the round keys.
        const {
            assert!(
                core::mem::offset_of!(NeonKey, rounds) - core::mem::offset_of!(NeonKey, rk)
                    == kernels::ROUNDS_OFFSET
            )
        };
        let mut s = Scratch::new(ctr);
        let mut yr = rev64(y);
        // SAFETY: the key, constants and scratch have the layouts the kernels expect;
        // the buffers are the caller's contract.
        unsafe {
            kernel(mode)(
                self.rk.as_ptr() as *const u8,
                self.h.as_ptr() as *const u8,
                CONSTS.0.as_ptr(),
                s.ptr(),
                yr.as_mut_ptr(),
                src,
                dst,
                GROUP * groups,
            );
        }
        *ctr = s.ctr();
        *y = rev64(&yr);
    }

    /// E(K, `ctr` + i) for the lanes i < `out.len()` (1..=[`VPERM_LANES`], inc32), by vector
    /// permutes.
    // Out of line: its kernel is picked by index from a table of function pointers (the
    // round and lane counts, public), which the static check follows inside this function.
    #[inline(never)]
    pub(super) fn vperm(&self, ctr: &[u8; 16], out: &mut [[u8; 16]]) {
        let lanes = out.len();
        let size = (self.rounds as usize - 10) / 2;
        assert!((1..=VPERM_LANES).contains(&lanes));
        let f = VPERM_KERNELS[size.min(2)][lanes - 1];
        let spill = kernels::VPERM_SPILL_BYTES[size.min(2)][lanes - 1];
        let mut s = SmallScratch::<{ 2 + SMALL_SPILL_WORDS }>::new(ctr);
        // SAFETY: the kernel reads the round keys (240 bytes), VCONSTS and the counter,
        // writes `out.len()` blocks to `out` and at most its `spill` bytes to `s`, which
        // has room for them (the assertions above).
        unsafe {
            f(
                self.vrk.as_ptr() as *const u8,
                core::ptr::null(),
                VCONSTS.0.as_ptr(),
                s.0.as_mut_ptr() as *mut u8,
                core::ptr::null_mut(),
                core::ptr::null(),
                out.as_mut_ptr() as *mut u8,
                0,
            );
        }
        s.wipe(spill);
    }

    /// GHASH from zero of `blocks` (1..=8, a whole short message), in the spec's order.
    pub(super) fn ghash_short(&self, blocks: &[[u8; 16]]) -> [u8; 16] {
        use kernels::*;
        let f: Kernel = match blocks.len() {
            1 => kernel_ghash_short1,
            2 => kernel_ghash_short2,
            3 => kernel_ghash_short3,
            4 => kernel_ghash_short4,
            5 => kernel_ghash_short5,
            6 => kernel_ghash_short6,
            7 => kernel_ghash_short7,
            8 => kernel_ghash_short8,
            n => panic!("ghash_short of {n} blocks"),
        };
        let mut s = SmallScratch::<{ 2 + SMALL_SPILL_WORDS }>::new(&[0; 16]);
        let mut yr = [0u8; 16];
        // SAFETY: the kernel reads the H powers, CONSTS and the blocks, writes 16 bytes
        // to `yr` and at most its spill bytes to `s`.
        unsafe {
            f(
                core::ptr::null(),
                self.h.as_ptr() as *const u8,
                CONSTS.0.as_ptr(),
                s.0.as_mut_ptr() as *mut u8,
                yr.as_mut_ptr(),
                blocks.as_ptr() as *const u8,
                core::ptr::null_mut(),
                0,
            );
        }
        s.wipe(kernels::GHASH_SHORT_SPILL_BYTES[blocks.len() - 1]);
        rev64(&yr)
    }

    /// GHASH over whole groups of eight blocks.
    ///
    /// # Safety
    /// `data` holds `128 * groups` bytes; `groups` > 0.
    #[inline(never)]
    pub(super) unsafe fn ghash_groups(&self, y: &mut [u8; 16], data: *const u8, groups: usize) {
        let mut s = Scratch::new(&[0; 16]);
        let mut yr = rev64(y);
        // SAFETY: as in `run`; the GHASH kernel touches neither key nor dst.
        unsafe {
            kernels::kernel_ghash(
                self.rk.as_ptr() as *const u8,
                self.h.as_ptr() as *const u8,
                CONSTS.0.as_ptr(),
                s.ptr(),
                yr.as_mut_ptr(),
                data,
                core::ptr::null_mut(),
                GROUP * groups,
            );
        }
        *y = rev64(&yr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_round_trip_through_scratch() {
        let ctr: [u8; 16] = core::array::from_fn(|i| i as u8 * 17);
        assert_eq!(Scratch::new(&ctr).ctr(), ctr);
    }
}
