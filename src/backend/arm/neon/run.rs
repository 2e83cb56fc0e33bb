//! How the generated kernels (`kernels.rs`) are called: the constant table they read,
//! the scratch block that carries the counter and their spills, the GHASH state in
//! their byte order, and the one call per run of whole groups.
//!
//! Layouts here are shared with the generator (`C_*`, `S_*` in `neon_prog.py`).

use super::{kernels, NeonKey, GROUP};

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

/// Spill area and counter of one kernel call (layout: `S_*` in `neon_prog.py`).
#[repr(C, align(16))]
struct Scratch([u64; 128]);

impl Scratch {
    fn new(ctr: &[u8; 16]) -> Scratch {
        let mut s = Scratch([0; 128]);
        // The counter in native u32 lanes (rev32), so the kernel adds to lane 3.
        for i in 0..2 {
            let lo = u32::from_be_bytes(ctr[8 * i..8 * i + 4].try_into().unwrap());
            let hi = u32::from_be_bytes(ctr[8 * i + 4..8 * i + 8].try_into().unwrap());
            s.0[i] = u64::from(lo) | (u64::from(hi) << 32);
        }
        s
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

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Ctr,
    Enc,
    Dec,
}

fn kernel(rounds: u32, mode: Mode) -> Kernel {
    use kernels::*;
    match (rounds, mode) {
        (10, Mode::Ctr) => kernel_ctr_aes128,
        (12, Mode::Ctr) => kernel_ctr_aes192,
        (_, Mode::Ctr) => kernel_ctr_aes256,
        (10, Mode::Enc) => kernel_enc_aes128,
        (12, Mode::Enc) => kernel_enc_aes192,
        (_, Mode::Enc) => kernel_enc_aes256,
        (10, Mode::Dec) => kernel_dec_aes128,
        (12, Mode::Dec) => kernel_dec_aes192,
        (_, Mode::Dec) => kernel_dec_aes256,
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
        let mut s = Scratch::new(ctr);
        let mut yr = rev64(y);
        // SAFETY: the key, constants and scratch have the layouts the kernels expect;
        // the buffers are the caller's contract.
        unsafe {
            kernel(self.rounds, mode)(
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

    /// GHASH over whole groups of eight blocks.
    ///
    /// # Safety
    /// `data` holds `128 * groups` bytes; `groups` > 0.
    pub(super) unsafe fn ghash_groups(&self, y: &mut [u8; 16], data: *const u8, groups: usize) {
        let mut s = Scratch([0; 128]);
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
