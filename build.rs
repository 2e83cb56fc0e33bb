//! Gives the shared library its soname, so an installed `libstitchgcm.so.0` is found by
//! programs linked against `libstitchgcm.so`.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libstitchgcm.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
