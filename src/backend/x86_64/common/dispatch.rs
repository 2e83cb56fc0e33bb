//! How a call reaches a monomorphic kernel, written once for both x86_64 backends: their
//! `impl Backend` (key setup and single blocks are the shared ones, only the bulk entries
//! differ), the stitched loop compiled once per key size and direction, and the
//! round-major tail and GHASH remainder compiled once per (public) block count, so that
//! their lanes live in registers (with a run-time count LLVM kept them in a stack array,
//! and every round went through a store and a reload). The kernel-writing macros expect
//! `XKey` and `core::arch::x86_64::*` in scope where they are used.

/// Writes `impl Backend for $ty`: `init`, `encrypt_block` and `encrypt_block2` on the
/// shared key layout, the bulk entries from the backend's own `$crypt::<ENC>` (the fused
/// kernel for one direction), `$ghash` and `$ctr` (`#[target_feature]` functions taking
/// an [`XKey`](super::XKey)), `is_available` from `$available` and `is_preferred` from
/// `$preferred` (default: `$available`), and, if given, `crypt_whole` and `crypt_message`
/// from `$whole` and `$message`. `$crypt`, `$whole` and `$message` take the counter's public
/// position ([`PublicCtr`](crate::backend::PublicCtr)) last, as the trait's entries do.
macro_rules! x86_backend {
    ($ty:ident = $name:literal, available: $available:path,
     crypt: $crypt:ident, ghash: $ghash:path, ctr: $ctr:path $(,)?) => {
        x86_backend! { $ty = $name, available: $available, preferred: $available,
        crypt: $crypt, ghash: $ghash, ctr: $ctr }
    };
    ($ty:ident = $name:literal, available: $available:path, preferred: $preferred:path,
     crypt: $crypt:ident, ghash: $ghash:path, ctr: $ctr:path
     $(, whole: $whole:path, message: $message:path)? $(,)?) => {
        const _: () = {
            use crate::backend::x86_64::common::{encrypt_block, encrypt_block2, init, short};
            use crate::backend::{Backend, Direction, Material, PublicCtr};

            impl Backend for $ty {
                const NAME: &'static core::ffi::CStr = $name;
                const KEY_BYTES: usize =
                    core::mem::size_of::<crate::backend::x86_64::common::XKey>();

                fn is_available() -> bool {
                    $available()
                }

                fn is_preferred() -> bool {
                    $preferred()
                }

                fn init(m: &mut Material, key: &[u8]) {
                    // SAFETY: only reached when `is_available()` (the mode checks first).
                    unsafe { init(m.view_mut(), key) }
                }

                fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
                    // SAFETY: CPU support checked when the key was made.
                    unsafe { encrypt_block(m.view(), block) }
                }

                fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
                    // SAFETY: CPU support checked when the key was made.
                    unsafe { encrypt_block2(m.view(), a, b) }
                }

                unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize) {
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    unsafe { $ghash(m.view(), y, data, blocks) }
                }

                fn tag(m: &Material, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
                    // SAFETY: CPU support checked when the key was made.
                    unsafe { crate::backend::x86_64::common::tag(m.view(), j0, y, lens) }
                }

                unsafe fn ghash_bytes(m: &Material, y: &mut [u8; 16], data: *const u8, len: usize) {
                    let whole = len / 16;
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    unsafe {
                        if whole > 0 {
                            $ghash(m.view(), y, data, whole);
                        }
                        if len % 16 > 0 {
                            crate::backend::x86_64::common::ghash_partial(
                                m.view(),
                                y,
                                data.add(16 * whole),
                                len % 16,
                            );
                        }
                    }
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
                    at: PublicCtr,
                ) {
                    let k = m.view();
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    unsafe {
                        match dir {
                            Direction::Encrypt => {
                                $crypt::<true>(k, ctr, y, src, dst, blocks, j0, at)
                            }
                            Direction::Decrypt => {
                                $crypt::<false>(k, ctr, y, src, dst, blocks, j0, at)
                            }
                        }
                    }
                }

                unsafe fn ctr(
                    m: &Material,
                    ctr: &mut [u8; 16],
                    src: *const u8,
                    dst: *mut u8,
                    blocks: usize,
                ) {
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    unsafe { $ctr(m.view(), ctr, src, dst, blocks) }
                }

                const SHORT_DATA_BLOCKS: usize = crate::backend::x86_64::common::short::DATA_BLOCKS;
                const SHORT_HASH_BLOCKS: usize = crate::backend::x86_64::common::short::HASH_BLOCKS;
                const SHORT_HOLD_KERNEL: bool = true;

                #[inline(always)]
                unsafe fn crypt_short_hold(
                    m: &Material,
                    dir: Direction,
                    j0: &[u8; 16],
                    aad: &[u8],
                    src: *const u8,
                    dst: *mut u8,
                    len: usize,
                    hold: *mut u8,
                ) -> [u8; 16] {
                    let k = m.view();
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    unsafe {
                        match dir {
                            Direction::Encrypt => short::<true>(k, j0, aad, src, dst, len, hold),
                            Direction::Decrypt => short::<false>(k, j0, aad, src, dst, len, hold),
                        }
                    }
                }

                $(
                    unsafe fn crypt_whole(
                        m: &Material,
                        dir: Direction,
                        j0: &[u8; 16],
                        aad: &[u8],
                        src: *const u8,
                        dst: *mut u8,
                        len: usize,
                        at: PublicCtr,
                    ) -> [u8; 16] {
                        // SAFETY: forwarded contract; CPU support checked at key setup.
                        unsafe { $whole(m, dir, j0, aad, src, dst, len, at) }
                    }

                    unsafe fn crypt_message(
                        m: &Material,
                        dir: Direction,
                        j0: &[u8; 16],
                        aad: &[u8],
                        src: *const u8,
                        dst: *mut u8,
                        len: usize,
                        y: &mut [u8; 16],
                        at: PublicCtr,
                    ) -> [u8; 16] {
                        // SAFETY: forwarded contract; CPU support checked at key setup.
                        unsafe { $message(m, dir, j0, aad, src, dst, len, y, at) }
                    }
                )?

                #[inline(always)]
                unsafe fn open_short(
                    m: &Material,
                    j0: &[u8; 16],
                    aad: &[u8],
                    src: *const u8,
                    dst: *mut u8,
                    len: usize,
                    tag: &[u8],
                ) -> bool {
                    // SAFETY: forwarded contract; CPU support checked at key setup.
                    let (mut full, ok) =
                        unsafe { short::open(m.view(), j0, aad, src, dst, len, tag) };
                    crate::secret::wipe_block(&mut full);
                    ok
                }
            }
        };
    };
}

/// Compiles the stitched loop `$generic::<ROUNDS, ENC>(k, ctr, y, src, dst, count)` once
/// per key size and direction as a function of its own with the backend's target
/// features, `kernel_{enc,dec}_aes{128,192,256}` (so that each steady-state loop is one
/// symbol to find in a disassembly), and `$select::<ENC>(rounds)`, which picks one.
macro_rules! per_key_size {
    ($features:literal, $generic:ident, $select:ident) => {
        per_key_size!(@kernel $features, $generic, kernel_enc_aes128, 10, true);
        per_key_size!(@kernel $features, $generic, kernel_enc_aes192, 12, true);
        per_key_size!(@kernel $features, $generic, kernel_enc_aes256, 14, true);
        per_key_size!(@kernel $features, $generic, kernel_dec_aes128, 10, false);
        per_key_size!(@kernel $features, $generic, kernel_dec_aes192, 12, false);
        per_key_size!(@kernel $features, $generic, kernel_dec_aes256, 14, false);

        /// The kernel for this key's size (10, 12 or 14 rounds) and direction `ENC`.
        #[inline(always)]
        pub(super) fn $select<const ENC: bool>(
            rounds: u64,
        ) -> unsafe fn(&XKey, &mut __m128i, &mut __m128i, *const u8, *mut u8, usize) {
            match (rounds, ENC) {
                (10, true) => kernel_enc_aes128,
                (12, true) => kernel_enc_aes192,
                (_, true) => kernel_enc_aes256,
                (10, false) => kernel_dec_aes128,
                (12, false) => kernel_dec_aes192,
                (_, false) => kernel_dec_aes256,
            }
        }
    };
    (@kernel $features:literal, $generic:ident, $name:ident, $rounds:literal, $enc:literal) => {
        /// The stitched steady-state loop for one key size and direction.
        #[inline(never)]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            k: &XKey,
            ctr: &mut __m128i,
            y: &mut __m128i,
            src: *const u8,
            dst: *mut u8,
            count: usize,
        ) {
            // SAFETY: forwarded contract; the backend checked the features before this
            // key was made.
            unsafe { $generic::<$rounds, $enc>(k, ctr, y, src, dst, count) }
        }
    };
}

/// Writes `crypt_tail::<ENC>(k, c, acc, src, dst, n, j0)`: calls `$tail::<ENC, N, J>` for
/// the (public) block count `n` = N, one of the `$n`s, and J = `j0.is_some()` (the J0
/// block then goes as a pointer, else null). `c` and `acc` are the counter and the
/// GHASH state in register form.
macro_rules! tail_by_count {
    ($features:literal, $tail:ident, [$($n:literal)*]) => {
        /// The last whole blocks (all of a short message) and `j0` when given, in the
        /// tail kernel compiled for exactly that many blocks.
        #[inline]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn crypt_tail<const ENC: bool>(
            k: &XKey,
            c: &mut __m128i,
            acc: &mut __m128i,
            src: *const u8,
            dst: *mut u8,
            n: usize,
            j0: Option<&mut [u8; 16]>,
        ) {
            debug_assert!([$($n),*].contains(&n));
            type Tail = unsafe fn(&XKey, &mut __m128i, &mut __m128i, *const u8, *mut u8, *mut u8);
            let f = match (n, j0.is_some()) {
                $(($n, false) => $tail::<ENC, $n, false> as Tail,
                  ($n, true) => $tail::<ENC, $n, true> as Tail,)*
                _ => return,
            };
            let j = match j0 {
                Some(j) => j.as_mut_ptr(),
                None => core::ptr::null_mut(),
            };
            // SAFETY: forwarded contract (`src`/`dst` hold 16*n bytes); `j` is a 16-byte
            // block exactly when `J` is true; features enabled.
            unsafe { f(k, c, acc, src, dst, j) }
        }
    };
}

/// Writes `$vis fn $name(k, acc, data, n) -> __m128i`: GHASH of the (public) count `n`
/// of blocks at `data` into the register-form state `acc`, by the kernel `$ghash::<N>`
/// compiled for N = `n`, one of the `$n`s.
macro_rules! ghash_by_count {
    ($(#[$attr:meta])* $features:literal, $vis:vis $name:ident => $ghash:ident,
     [$($n:literal)*]) => {
        $(#[$attr])*
        #[inline]
        #[target_feature(enable = $features)]
        $vis unsafe fn $name(k: &XKey, acc: __m128i, data: *const u8, n: usize) -> __m128i {
            debug_assert!([$($n),*].contains(&n));
            type Ghash = unsafe fn(&XKey, __m128i, *const u8) -> __m128i;
            let f = match n {
                $($n => $ghash::<$n> as Ghash,)*
                _ => return acc,
            };
            // SAFETY: forwarded contract (`data` holds 16*n bytes); features enabled.
            unsafe { f(k, acc, data) }
        }
    };
}

/// An empty `asm!` that takes and returns eleven registers of class `$class` (eight
/// block registers and the three GHASH accumulators): it emits no instruction, but LLVM
/// must have every value it names computed before it and may not move work across it.
/// The stitched loops put one between AES rounds so that LLVM's scheduler cannot regroup
/// them block by block (which turned eight independent AES chains into two at a time,
/// latency-bound): round r of every block, and the GHASH step slotted after it, come
/// before round r + 1 of any block.
macro_rules! pin_registers {
    ($class:ident: $($v:expr),+ $(,)?) => {
        core::arch::asm!("/* {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} */",
            $(inout($class) $v,)+
            options(pure, nomem, nostack, preserves_flags))
    };
}

pub(crate) use {ghash_by_count, per_key_size, pin_registers, tail_by_count, x86_backend};
