//! Two jobs:
//! - the nettle_abi target defines nettle's AES functions itself; export them from the
//!   executable so that the library's `dlsym(RTLD_DEFAULT, "nettle_aes128_encrypt")` finds
//!   them, as it finds libnettle's in a real program;
//! - the provider target links the OpenSSL provider's C sources (`../provider/*.c`),
//!   compiled here with AddressSanitizer and coverage for libFuzzer: with clang
//!   `-fsanitize=fuzzer-no-link`; with GCC (no libFuzzer-compatible edge coverage)
//!   `-fsanitize-coverage=trace-pc,trace-cmp`, the trace-pc calls renamed by objcopy to
//!   `csrc/trace_pc.c`'s counter (its comment says why). They are linked against the
//!   system's libcrypto (the provider calls its OSSL_PARAM helpers) and the library's
//!   `sgcm_*` symbols from the `stitchgcm` crate.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    for f in [
        "nettle_aes128_encrypt",
        "nettle_aes192_encrypt",
        "nettle_aes256_encrypt",
        "nettle_aes_encrypt",
    ] {
        println!("cargo:rustc-link-arg-bin=nettle_abi=-Wl,--export-dynamic-symbol={f}");
    }
    provider();
}

fn provider() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let top = dir.parent().unwrap();
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(top.join("provider"))
        .expect("../provider")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    srcs.sort();
    println!("cargo:rerun-if-changed={}", top.join("provider").display());
    println!("cargo:rerun-if-changed={}", top.join("include").display());
    println!("cargo:rerun-if-changed=csrc/trace_pc.c");
    let sanitized = std::env::var("CARGO_CFG_SANITIZE").is_ok_and(|s| s.contains("address"));
    let mut b = cc::Build::new();
    b.files(&srcs)
        .include(top.join("include"))
        .flag("-std=c11")
        .flag("-fno-omit-frame-pointer")
        .warnings(false);
    let clang = b.get_compiler().is_like_clang();
    if sanitized {
        b.flag("-fsanitize=address");
        if clang {
            b.flag("-fsanitize=fuzzer-no-link");
        } else {
            b.flag("-fsanitize-coverage=trace-pc,trace-cmp");
        }
    }
    let mut objs = b.compile_intermediates();
    if sanitized && !clang {
        for o in &objs {
            let st = Command::new("objcopy")
                .arg("--redefine-sym=__sanitizer_cov_trace_pc=stitchgcm_fuzz_trace_pc")
                .arg(o)
                .status()
                .expect("objcopy (binutils)");
            assert!(st.success(), "objcopy {}", o.display());
        }
        objs.extend(
            cc::Build::new()
                .file("csrc/trace_pc.c")
                .flag("-fno-sanitize=address")
                .compile_intermediates(),
        );
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let lib = out.join("libstitchgcm_provider.a");
    let _ = std::fs::remove_file(&lib);
    let st = Command::new("ar")
        .arg("crs")
        .arg(&lib)
        .args(&objs)
        .status()
        .expect("ar");
    assert!(st.success(), "ar");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=stitchgcm_provider");
    println!("cargo:rustc-link-lib=dylib=crypto");
}
