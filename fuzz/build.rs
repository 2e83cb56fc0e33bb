//! The nettle_abi target defines nettle's AES functions itself; export them from the
//! executable so that the library's `dlsym(RTLD_DEFAULT, "nettle_aes128_encrypt")` finds
//! them, as it finds libnettle's in a real program.
fn main() {
    for f in [
        "nettle_aes128_encrypt",
        "nettle_aes192_encrypt",
        "nettle_aes256_encrypt",
        "nettle_aes_encrypt",
    ] {
        println!("cargo:rustc-link-arg-bin=nettle_abi=-Wl,--export-dynamic-symbol={f}");
    }
}
