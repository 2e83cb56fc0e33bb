//! Shared pieces of the fuzz targets in `fuzz_targets/`.
//!
//! Each target reads its whole case — sizes, splits, offsets, which call comes next — from
//! the fuzzer's bytes through [`input::Input`], so that libFuzzer's mutations steer the
//! structure; bulk message bytes come from a PRNG seeded from the input (GCM has no
//! data-dependent control flow, so mutating them byte by byte would only waste inputs).
//! Every buffer handed to the library sits inside a [`guard::Guarded`] frame (poisoned for
//! AddressSanitizer and filled with a pattern that is checked afterwards); results are
//! compared with [`oracle`] (RustCrypto `aes-gcm`) and with the `soft` backend.
//!
//! A target is one file calling [`fuzz_target_with_seeds!`] with its run function and its
//! seed generator; `scripts/fuzz.sh --write-seeds` makes each target write its seeds into
//! `fuzz/seeds/<target>/` (the committed corpus) and `--check-seeds` compares them.
#![feature(cfg_sanitize)]

pub mod counter;
pub mod gcrypt;
pub mod gcrypt_calls;
pub mod gcrypt_program;
pub mod gcrypt_state;
pub mod guard;
pub mod input;
pub mod native;
pub mod native_calls;
pub mod native_program;
pub mod nettle;
pub mod oracle;
pub mod provider;
pub mod provider_model;
pub mod provider_params;
pub mod provider_program;

use std::path::Path;

/// The environment variable that makes a target binary write its seeds and exit.
pub const SEEDS_ENV: &str = "STITCHGCM_FUZZ_WRITE_SEEDS";

/// Named seed inputs of one target.
pub type Seeds = Vec<(String, Vec<u8>)>;

/// Writes `seeds` into the directory named by [`SEEDS_ENV`] (emptied first) and exits,
/// when that variable is set; otherwise returns. Called from the target's libFuzzer init.
pub fn write_seeds_if_asked(seeds: fn() -> Seeds) {
    let Ok(dir) = std::env::var(SEEDS_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("create the seed directory");
    let list = seeds();
    for (name, bytes) in &list {
        assert!(
            name.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c)),
            "seed name {name:?}"
        );
        std::fs::write(dir.join(name), bytes).expect("write a seed");
    }
    eprintln!("wrote {} seeds to {}", list.len(), dir.display());
    std::process::exit(0);
}

/// `fuzz_target_with_seeds!(run, seeds)`: the libFuzzer entry calling `run(&[u8])`, and
/// the seed writer (see [`write_seeds_if_asked`]) in libFuzzer's init hook.
#[macro_export]
macro_rules! fuzz_target_with_seeds {
    ($run:path, $seeds:path) => {
        libfuzzer_sys::fuzz_target!(
            init: { $crate::write_seeds_if_asked($seeds) },
            |data: &[u8]| $run(data)
        );
    };
}

/// Whether `STITCHGCM_FUZZ_TRACE` is set: targets then print each call they make (for
/// reading a crash or a seed: `STITCHGCM_FUZZ_TRACE=1 <target binary> <input file>`).
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("STITCHGCM_FUZZ_TRACE").is_some())
}

/// splitmix64 (Steele, Lea, Flood 2014): fills message bytes from a seed in the input.
pub fn fill(seed: u64, out: &mut [u8]) {
    let mut s = seed;
    for chunk in out.chunks_mut(8) {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

/// `len` bytes from [`fill`].
pub fn filled(seed: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    fill(seed, &mut v);
    v
}

/// Tag lengths SP 800-38D allows (4 and 8 for special uses only).
pub const TAG_LENS: [usize; 7] = [4, 8, 12, 13, 14, 15, 16];

/// Whether the header documents `len` as a tag length.
pub fn tag_len_ok(len: usize) -> bool {
    TAG_LENS.contains(&len)
}

/// Lower-case hex, for failure messages.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
