//! Rust-side throughput (criterion): the mode on each backend this CPU can run, and
//! stitchgcm's one shot beside ring and RustCrypto's `aes-gcm` (in place, 96-bit IV), for
//! AES-128 and AES-256, without and with a 13-byte AAD, 16 B to 16 KiB. `benches/peers.rs`
//! makes the paired comparison that decides "faster than"; the C bench-slope harness
//! compares with the C libraries.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stitchgcm::{cpu, Key, Message};
use stitchgcm_bench::{Impl, IV, TLS_AAD};

fn backends(c: &mut Criterion) {
    let mut group = c.benchmark_group("aes128-gcm-encrypt");
    for id in cpu::available() {
        let key = Key::with_backend(&[0x33; 16], id).unwrap();
        for size in [64usize, 1420, 8192] {
            let mut buf = vec![0x55u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(id.name(), size), &size, |b, _| {
                b.iter(|| {
                    let mut m = Message::new(&key, &IV).unwrap();
                    m.encrypt(&key, &mut buf).unwrap();
                    let mut tag = [0u8; 16];
                    m.tag(&key, &mut tag).unwrap();
                    tag
                })
            });
        }
    }
    group.finish();
}

fn peers(c: &mut Criterion) {
    for key_len in [16usize, 32] {
        let impls = Impl::all(&vec![0x33; key_len]);
        for aad in [&[][..], &TLS_AAD[..]] {
            let name = format!("aes{}-gcm-seal-aad{}", key_len * 8, aad.len());
            let mut group = c.benchmark_group(name);
            for size in [16usize, 64, 256, 1024, 1420, 4096, 16384] {
                let mut buf = vec![0x55u8; size];
                group.throughput(Throughput::Bytes(size as u64));
                for (label, imp) in &impls {
                    group.bench_with_input(BenchmarkId::new(*label, size), &size, |b, _| {
                        b.iter(|| imp.seal(aad, &mut buf))
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, backends, peers);
criterion_main!(benches);
