//! Rust-side throughput of the mode on each backend this CPU can run (criterion).
//! The C bench-slope harness is the reference for comparisons with other libraries.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stitchgcm::{cpu, Key, Message};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("aes128-gcm-encrypt");
    for id in cpu::available() {
        let key = Key::with_backend(&[0x33; 16], id).unwrap();
        for size in [64usize, 1420, 8192] {
            let mut buf = vec![0x55u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(id.name(), size), &size, |b, _| {
                b.iter(|| {
                    let mut m = Message::new(&key, &[0xca; 12]).unwrap();
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

criterion_group!(benches, bench);
criterion_main!(benches);
