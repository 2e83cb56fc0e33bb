//! stitchgcm's Rust API against ring and RustCrypto's `aes-gcm`, paired: every round times a
//! batch of each implementation back to back on the same buffers, and each keeps its best
//! batch over all rounds, so that a slow period of a shared machine has to cover every round
//! of one implementation to move its figure. The table is printed `--repeat` times (default
//! 3); a ratio counts only if every repetition agrees on which side is faster.
//!
//! Records are sealed in place with a 96-bit IV, optionally behind a 13-byte AAD (a TLS
//! record header), for AES-128 and AES-256, 16 B to 16 KiB: stitchgcm's `seal_in_place`
//! (the verdict against ring is its), and beside it the streaming `Message` (four calls).
//!
//! usage: cargo bench -p stitchgcm-bench --bench peers [-- --repeat N --quick]

use std::hint::black_box;
use std::time::Instant;
use stitchgcm_bench::{Impl, TLS_AAD};

const SIZES: [usize; 10] = [16, 64, 256, 512, 1024, 1420, 2048, 4096, 8192, 16384];

/// Best ns per record of each implementation over `rounds` paired rounds.
fn measure(impls: &[(&str, Impl)], aad: &[u8], size: usize, rounds: usize) -> Vec<f64> {
    let mut buf = vec![0x55u8; size];
    // About 20 µs of work per batch at ~1 ns/B (and at least 8 records): long enough for
    // the clock, short enough that an interruption spoils one batch, not the figure.
    let batch = (20_000 / size).max(8);
    let mut best = vec![f64::INFINITY; impls.len()];
    for _ in 0..rounds {
        for (i, (_, imp)) in impls.iter().enumerate() {
            for _ in 0..2 {
                black_box(imp.seal(aad, &mut buf));
            }
            let t0 = Instant::now();
            for _ in 0..batch {
                black_box(imp.seal(black_box(aad), black_box(&mut buf)));
            }
            let ns = t0.elapsed().as_nanos() as f64 / batch as f64;
            best[i] = best[i].min(ns);
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name);
    let repeat = flag("--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(3usize);
    let rounds = if flag("--quick").is_some() { 40 } else { 400 };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    println!(
        "peers: {cpu}; stitchgcm backend {}; best ns per record of {rounds} paired rounds; \
         ratio = stitchgcm / peer (below 1: stitchgcm faster)",
        stitchgcm::Key::new(&[0; 16]).unwrap().backend_name()
    );
    // (key bits, AAD?, size) -> ratios against ring over the repetitions.
    let mut verdicts: Vec<(String, Vec<f64>)> = Vec::new();
    for rep in 0..repeat {
        println!("\nrepetition {}/{repeat}", rep + 1);
        println!(
            "{:>7} {:>4} {:>6} {:>11} {:>11} {:>11} {:>11} {:>10} {:>12} {:>12}",
            "key",
            "aad",
            "bytes",
            "stitchgcm",
            "(Message)",
            "ring",
            "aes-gcm",
            "vs ring",
            "vs aes-gcm",
            "Msg vs ring"
        );
        let mut k = 0;
        for key_len in [16usize, 32] {
            let impls = Impl::all(&vec![0x33; key_len]);
            for aad in [&[][..], &TLS_AAD[..]] {
                for size in SIZES {
                    let ns = measure(&impls, aad, size, rounds);
                    println!(
                        "{:>7} {:>4} {:>6} {:>11.1} {:>11.1} {:>11.1} {:>11.1} {:>10.3} {:>12.3} {:>12.3}",
                        format!("AES-{}", key_len * 8),
                        aad.len(),
                        size,
                        ns[0],
                        ns[1],
                        ns[2],
                        ns[3],
                        ns[0] / ns[2],
                        ns[0] / ns[3],
                        ns[1] / ns[2]
                    );
                    if rep == 0 {
                        let name =
                            format!("AES-{} aad {:>2} {:>5} B", key_len * 8, aad.len(), size);
                        verdicts.push((name, Vec::new()));
                    }
                    verdicts[k].1.push(ns[0] / ns[2]);
                    k += 1;
                }
            }
        }
    }
    println!("\nagainst ring, every repetition (stitchgcm / ring):");
    let (mut ahead, mut behind, mut split) = (0, 0, 0);
    for (name, r) in &verdicts {
        let worst = r.iter().cloned().fold(0.0, f64::max);
        let best = r.iter().cloned().fold(f64::INFINITY, f64::min);
        let verdict = if worst < 1.0 {
            ahead += 1;
            "faster"
        } else if best > 1.0 {
            behind += 1;
            "SLOWER"
        } else {
            split += 1;
            "undecided"
        };
        println!("  {name}: {best:.3}..{worst:.3} {verdict}");
    }
    println!(
        "summary: faster than ring in {ahead} of {} cases, slower in {behind}, undecided in {split}",
        verdicts.len()
    );
}
