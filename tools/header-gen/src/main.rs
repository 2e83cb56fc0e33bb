//! Writes `include/stitchgcm.h` from the crate's C front-end with cbindgen (configured by
//! `cbindgen.toml`). With `--check` it writes nothing and exits 1 when the committed
//! header differs from what the sources generate.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().expect("crate root");
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen failed");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let path = root.join("include/stitchgcm.h");
    let current = std::fs::read(&path).unwrap_or_default();
    if check {
        if current == fresh {
            println!("include/stitchgcm.h is up to date");
            ExitCode::SUCCESS
        } else {
            eprintln!("include/stitchgcm.h is stale: run `cargo run -p header-gen`");
            ExitCode::FAILURE
        }
    } else {
        std::fs::write(&path, &fresh).expect("write header");
        println!("wrote {}", path.display());
        ExitCode::SUCCESS
    }
}
