//! Many threads at once, each with its own keys, handles and nettle contexts, on random
//! key sizes, IV lengths, AAD and message sizes split at random: every result must equal a
//! single-threaded recomputation (and, for every seventh message, the independent
//! RustCrypto `aes-gcm` oracle). Then all threads seal and open through the same keyed
//! handles at once (the keyed one-shot calls are documented to allow that).
//!
//! The threads are created and their work drawn before a barrier; the first library call
//! of the whole process happens after it, in every thread at once, so the one-time
//! backend selection (`cpu::selected`, `STITCHGCM_IMPL`, CPU feature caches) is raced on
//! first use. That only holds in a fresh process: this file must keep exactly one test.

mod common;
#[path = "common/nettle_abi.rs"]
mod nettle_abi;

use common::*;
use nettle_abi::*;
use std::sync::{Arc, Barrier};
use stitchgcm::ffi::native::sgcm_impl_name;

const THREADS: usize = 12;
const MESSAGES: usize = 40;
const IV_LENS: [usize; 5] = [12, 12, 16, 1, 60];

type DataFn = unsafe extern "C" fn(*mut core::ffi::c_void, usize, *const u8);
type CryptFn = unsafe extern "C" fn(*mut core::ffi::c_void, usize, *mut u8, *const u8);
type DigestFn = unsafe extern "C" fn(*mut core::ffi::c_void, usize, *mut u8);

#[derive(Clone)]
struct Job {
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    pt: Vec<u8>,
    splits: Vec<usize>,
    api: usize,
}

impl Job {
    fn random(rng: &mut Rng) -> Job {
        let key_len = rng.pick(&[16, 24, 32]);
        let key = rng.bytes(key_len);
        let iv_len = rng.pick(&IV_LENS);
        let iv = rng.bytes(iv_len);
        let aad_len = rng.range(0, 300);
        let aad = rng.bytes(aad_len);
        let len = if rng.chance(1, 4) {
            rng.range(0, 40)
        } else {
            rng.range(0, 4500)
        };
        let pt = rng.bytes(len);
        let splits = rng.chunks(len);
        Job {
            key,
            iv,
            aad,
            pt,
            splits,
            api: rng.below(3),
        }
    }

    /// Ciphertext and tag through the API this job names.
    fn run(&self) -> (Vec<u8>, [u8; 16]) {
        match self.api {
            0 => self.handle(),
            1 => self.rust(),
            _ => self.nettle(),
        }
    }

    /// The C handle API, data split into the job's chunks, in place.
    fn handle(&self) -> (Vec<u8>, [u8; 16]) {
        let h = CHandle::open(self.key.len());
        assert_eq!(h.setkey(&self.key), 0);
        assert_eq!(h.setiv(&self.iv), 0);
        assert_eq!(h.authenticate(&self.aad), 0);
        let mut buf = self.pt.clone();
        let mut at = 0;
        for &n in &self.splits {
            assert_eq!(h.encrypt_in_place(&mut buf[at..at + n]), 0);
            at += n;
        }
        let mut tag = [0u8; 16];
        assert_eq!(h.gettag(&mut tag), 0);
        // The same handle decrypts and verifies it again.
        let mut back = buf.clone();
        assert_eq!(h.setiv(&self.iv), 0);
        assert_eq!(h.authenticate(&self.aad), 0);
        assert_eq!(h.decrypt_in_place(&mut back), 0);
        assert_eq!(h.checktag(&tag), 0);
        assert!(back == self.pt, "handle round trip");
        (buf, tag)
    }

    /// The Rust streaming API, out of place.
    fn rust(&self) -> (Vec<u8>, [u8; 16]) {
        let key = stitchgcm::Key::new(&self.key).unwrap();
        let mut m = stitchgcm::Message::new(&key, &self.iv).unwrap();
        m.aad(&key, &self.aad).unwrap();
        let mut out = vec![0u8; self.pt.len()];
        let mut at = 0;
        for &n in &self.splits {
            m.encrypt_to(&key, &self.pt[at..at + n], &mut out[at..at + n])
                .unwrap();
            at += n;
        }
        let mut tag = [0u8; 16];
        m.tag(&key, &mut tag).unwrap();
        (out, tag)
    }

    /// The nettle ABI in a caller-owned context (AAD in one call, data in 16-byte
    /// multiples except the last, as nettle requires).
    fn nettle(&self) -> (Vec<u8>, [u8; 16]) {
        let mut ctx = vec![0u64; 4408 / 8];
        let c = ctx.as_mut_ptr().cast::<core::ffi::c_void>();
        let mut out = vec![0u8; self.pt.len()];
        let mut tag = [0u8; 16];
        let (k, iv, aad, pt) = (&self.key, &self.iv, &self.aad, &self.pt);
        // SAFETY: `ctx` is 8-aligned and large enough for every struct gcm_aes*_ctx; all
        // buffers are valid for the lengths passed.
        unsafe {
            match k.len() {
                16 => nettle_gcm_aes128_set_key(c, k.as_ptr()),
                24 => nettle_gcm_aes192_set_key(c, k.as_ptr()),
                _ => nettle_gcm_aes256_set_key(c, k.as_ptr()),
            }
            let (set_iv, update, encrypt, digest): (DataFn, DataFn, CryptFn, DigestFn) =
                match k.len() {
                    16 => (
                        nettle_gcm_aes128_set_iv,
                        nettle_gcm_aes128_update,
                        nettle_gcm_aes128_encrypt,
                        nettle_gcm_aes128_digest,
                    ),
                    24 => (
                        nettle_gcm_aes192_set_iv,
                        nettle_gcm_aes192_update,
                        nettle_gcm_aes192_encrypt,
                        nettle_gcm_aes192_digest,
                    ),
                    _ => (
                        nettle_gcm_aes256_set_iv,
                        nettle_gcm_aes256_update,
                        nettle_gcm_aes256_encrypt,
                        nettle_gcm_aes256_digest,
                    ),
                };
            set_iv(c, iv.len(), iv.as_ptr());
            update(c, aad.len(), aad.as_ptr());
            let whole = pt.len() / 16 * 16;
            let first = (self.splits.first().copied().unwrap_or(0) / 16 * 16).min(whole);
            encrypt(c, first, out.as_mut_ptr(), pt.as_ptr());
            encrypt(
                c,
                pt.len() - first,
                out.as_mut_ptr().add(first),
                pt.as_ptr().add(first),
            );
            digest(c, 16, tag.as_mut_ptr());
        }
        (out, tag)
    }
}

#[test]
fn threads_race_first_use_and_agree_with_one_thread() {
    let barrier = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut rng = Rng::new(0x7468_7265_6164_0000 + t as u64);
                let jobs: Vec<Job> = (0..MESSAGES).map(|_| Job::random(&mut rng)).collect();
                barrier.wait();
                // The process's first library calls, in every thread at once.
                let name = sgcm_impl_name() as usize;
                let results: Vec<_> = jobs.iter().map(Job::run).collect();
                (name, jobs, results)
            })
        })
        .collect();
    let mut names = Vec::new();
    let mut checked = 0;
    for w in workers {
        let (name, jobs, results) = w.join().expect("a worker thread panicked");
        names.push(name);
        for (job, got) in jobs.iter().zip(results) {
            // Single-threaded recomputation through the one-shot API.
            let key = stitchgcm::Key::new(&job.key).unwrap();
            let mut ct = vec![0u8; job.pt.len()];
            let mut tag = [0u8; 16];
            stitchgcm::seal(&key, &job.iv, &job.aad, &job.pt, &mut ct, &mut tag).unwrap();
            assert!(
                got.0 == ct && got.1 == tag,
                "api {} differs from one thread: key {} iv {} aad {} len {}",
                job.api,
                job.key.len(),
                job.iv.len(),
                job.aad.len(),
                job.pt.len()
            );
            if checked % 7 == 0 {
                let (oct, otag) = oracle_seal(&job.key, &job.iv, &job.aad, &job.pt).unwrap();
                assert!(oct == ct && otag == tag, "differs from the aes-gcm oracle");
            }
            checked += 1;
        }
    }
    assert!(
        names.iter().all(|&n| n != 0 && n == names[0]),
        "threads saw different backends"
    );
    let shared = shared_handle_one_shots();
    println!(
        "threads: {THREADS} threads x {MESSAGES} messages ({checked} operations, each \
         recomputed on one thread), then {shared} one-shot seal+open pairs on three shared \
         handles at once; backend {}",
        cpu_name()
    );
}

/// A handle shared by threads: `sgcm_aead_seal`/`sgcm_aead_open` are documented to run
/// concurrently on one handle as long as nobody re-keys or closes it.
struct Shared(CHandle);
// SAFETY: only the one-shot calls, which take the handle shared, are used from the threads.
unsafe impl Sync for Shared {}
// SAFETY: as above; the handle is closed after every thread has been joined.
unsafe impl Send for Shared {}

/// Every thread seals and opens its messages on the same three keyed handles at once; the
/// results must equal the one-shot API on one thread. Returns the number of pairs.
fn shared_handle_one_shots() -> usize {
    let keys: Vec<Vec<u8>> = [16, 24, 32].iter().map(|&n| vec![n as u8; n]).collect();
    let handles: Arc<Vec<Shared>> = Arc::new(
        keys.iter()
            .map(|k| {
                let h = CHandle::open(k.len());
                assert_eq!(h.setkey(k), 0);
                Shared(h)
            })
            .collect(),
    );
    let barrier = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (barrier, handles) = (Arc::clone(&barrier), Arc::clone(&handles));
            std::thread::spawn(move || {
                let mut rng = Rng::new(0x7368_6172_6564_0000 + t as u64);
                let jobs: Vec<(usize, Job)> = (0..MESSAGES)
                    .map(|_| (rng.below(3), Job::random(&mut rng)))
                    .collect();
                barrier.wait();
                let mut out = Vec::new();
                for (which, job) in &jobs {
                    let h = &handles[*which].0;
                    let mut ct = vec![0u8; job.pt.len()];
                    let mut tag = [0u8; 16];
                    assert_eq!(
                        h.aead_seal(&job.iv, &job.aad, Some(&job.pt), &mut ct, &mut tag),
                        0
                    );
                    let mut back = vec![0u8; ct.len()];
                    assert_eq!(
                        h.aead_open(&job.iv, &job.aad, Some(&ct), &mut back, &tag),
                        0
                    );
                    assert!(back == job.pt, "shared-handle round trip");
                    out.push((ct, tag));
                }
                (jobs, out)
            })
        })
        .collect();
    let mut pairs = 0;
    for w in workers {
        let (jobs, out) = w.join().expect("a worker thread panicked");
        for ((which, job), (ct, tag)) in jobs.iter().zip(out) {
            let key = stitchgcm::Key::new(&keys[*which]).unwrap();
            let (mut want, mut want_tag) = (vec![0u8; job.pt.len()], [0u8; 16]);
            stitchgcm::seal(&key, &job.iv, &job.aad, &job.pt, &mut want, &mut want_tag).unwrap();
            assert!(
                ct == want && tag == want_tag,
                "shared handle differs from one thread"
            );
            pairs += 1;
        }
    }
    pairs
}

fn cpu_name() -> &'static str {
    stitchgcm::cpu::selected()
        .map(|b| b.name())
        .unwrap_or("(none)")
}
