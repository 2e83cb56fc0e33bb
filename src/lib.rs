//! stitchgcm: fast, constant-time AES-GCM with C ABIs that replace nettle's and
//! libgcrypt's.
//!
//! Layers (`docs/architecture.md`): C front-ends in [`ffi`] translate each ABI into calls
//! on the mode ([`gcm`]), which drives one backend's kernels (`backend/<arch>/`), chosen
//! once per process ([`cpu`]; override with `STITCHGCM_IMPL=<name>`).
//!
//! ```
//! let key = stitchgcm::Key::new(&[0u8; 16]).unwrap();
//! let mut buf = *b"attack at dawn";
//! let mut tag = [0u8; 16];
//! let mut msg = stitchgcm::Message::new(&key, &[0u8; 12]).unwrap();
//! msg.aad(&key, b"header").unwrap();
//! msg.encrypt(&key, &mut buf).unwrap();
//! msg.tag(&key, &mut tag).unwrap();
//! ```

pub(crate) mod backend;
pub mod cpu;
mod error;
pub mod ffi;
pub mod gcm;
mod panic;
mod secret;
mod valgrind;

pub use cpu::BackendId;
pub use error::Error;
pub use gcm::{
    open, open_in_place, seal, seal_in_place, IvCounter, Key, Message, Rfc4106Key, Rfc4106Message,
};
