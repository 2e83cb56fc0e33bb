//! Gives the shared library its soname, so an installed `libstitchgcm.so.0` is found by
//! programs linked against `libstitchgcm.so`, and keeps std's panic reporter out of it
//! (`src/panic.rs`, `docs/footprint.md`).

use std::path::{Path, PathBuf};

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libstitchgcm.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");

    // Any reachable panic links std's default panic hook, and with it the backtrace
    // symbolizer (gimli, addr2line, miniz_oxide, a demangler): about 270 KB of .text, more
    // than half of the x86_64 library; so does std's out-of-memory hook (in rustup's 1.95,
    // not in Debian's 1.85). core's panic entry calls the `panic_impl` lang item
    // (`rust_begin_unwind`) and alloc's `handle_alloc_error` calls
    // `__rust_alloc_error_handler`, both by symbol (v0-mangled in 1.95, plain in 1.85);
    // `--wrap` points those references at `src/panic.rs`, and --gc-sections drops std's
    // side. Only the cdylib: the rlib's users (tests) keep std's reporting.
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let mut glue = String::new();
    let (kind, jump) = if arch == "x86_64" {
        ("@function", "jmp")
    } else {
        ("%function", "b")
    };
    for (lib, name, handler) in [
        ("core", "rust_begin_unwind", "on_panic"),
        ("alloc", "__rust_alloc_error_handler", "on_alloc_error"),
    ] {
        if os != "linux" {
            break;
        }
        let Some(sym) = std_symbol(lib, name) else {
            println!(
                "cargo:warning={name} not found in the sysroot's lib{lib}: \
                 std's reporter stays linked (~270 KB)"
            );
            continue;
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,--wrap={sym}");
        // A hidden alias: its name depends on the toolchain, and the exported ABI
        // (debian/*.symbols) must not.
        glue += &format!(
            "core::arch::global_asm!(\n    \
             \".pushsection .text.stitchgcm_{handler},\\\"ax\\\",%progbits\",\n    \
             \".globl __wrap_{sym}\",\n    \".hidden __wrap_{sym}\",\n    \
             \".type __wrap_{sym}, {kind}\",\n    \"__wrap_{sym}:\",\n    \
             \"{jump} {{f}}\",\n    \".popsection\",\n    f = sym crate::panic::{handler},\n);\n"
        );
    }
    std::fs::write(out.join("panic_wrap.rs"), glue).expect("write panic_wrap.rs");

    if arch == "arm" {
        generate_arm_neon(&out);
    }
}

/// The arm-neon kernels (5.7 MB of `asm!` text, not committed): its generator writes them to
/// OUT_DIR unchecked (a few seconds); scripts/test.sh runs its interpreter check (`--verify`).
/// `$PYTHON3` names the interpreter (default `python3`, a build dependency of the package).
fn generate_arm_neon(out: &Path) {
    let dir = Path::new("src/backend/arm/neon");
    for f in ["gen_kernels.py", "neon_prog.py"] {
        println!("cargo:rerun-if-changed={}", dir.join(f).display());
    }
    // The S-box gates are read from the shared circuit.
    println!("cargo:rerun-if-changed=src/backend/sbox.rs");
    println!("cargo:rerun-if-env-changed=PYTHON3");
    let python = std::env::var("PYTHON3").unwrap_or_else(|_| "python3".into());
    let dest = out.join("arm_neon_kernels.rs");
    let status = std::process::Command::new(&python)
        .arg(dir.join("gen_kernels.py"))
        .arg("--out")
        .arg(&dest)
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => panic!(
            "{python} src/backend/arm/neon/gen_kernels.py --out {}: {other:?}",
            dest.display()
        ),
    }
}

/// The symbol `lib`'s rlib in the sysroot (of the rustc cargo runs, for the target) calls
/// std's `name` by.
fn std_symbol(lib: &str, name: &str) -> Option<String> {
    let rustc = std::env::var("RUSTC").ok()?;
    let target = std::env::var("TARGET").ok()?;
    let sysroot = std::process::Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = String::from_utf8(sysroot.stdout).ok()?;
    let dir = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(target)
        .join("lib");
    let prefix = format!("lib{lib}-");
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        let file = path.file_name()?.to_string_lossy().into_owned();
        if file.starts_with(&prefix) && file.ends_with(".rlib") {
            return find_symbol(&std::fs::read(&path).ok()?, name);
        }
    }
    None
}

/// `_RNvCs<hash>_7___rustc<len>[_]<name>` (v0: Rust 1.95), else `name` itself as
/// a whole word.
fn find_symbol(bytes: &[u8], name: &str) -> Option<String> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let sep = if name.starts_with('_') { "_" } else { "" };
    let mangled = format!("_7___rustc{}{sep}{name}", name.len());
    let (mangled, name) = (mangled.as_bytes(), name.as_bytes());
    let mut plain = false;
    for i in 0..bytes.len().saturating_sub(name.len()) {
        if !bytes[i..].starts_with(name) || bytes.get(i + name.len()).is_some_and(|&c| word(c)) {
            continue;
        }
        let end = i + name.len();
        if end >= mangled.len() && bytes[..end].ends_with(mangled) {
            // Back over the crate hash to `_RNvCs`.
            let mut s = end - mangled.len();
            while s > 0 && bytes[s - 1].is_ascii_alphanumeric() {
                s -= 1;
            }
            if s >= 1 && bytes[s - 1..].starts_with(b"_RNvCs") {
                return String::from_utf8(bytes[s - 1..end].to_vec()).ok();
            }
        } else if i > 0 && !word(bytes[i - 1]) {
            plain = true;
        }
    }
    plain.then(|| String::from_utf8_lossy(name).into_owned())
}
