//! Prints the backends this CPU can run, best first, one per line (the first one is what
//! stitchgcm uses unless `STITCHGCM_IMPL` says otherwise). scripts/test.sh uses it to
//! know which backends to force on each target and CPU model.

fn main() {
    for id in stitchgcm::cpu::available() {
        println!("{}", id.name());
    }
}
