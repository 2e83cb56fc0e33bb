//! C front-ends: thin translations of each ABI into mode calls. No crypto here.

pub mod native;
pub mod nettle;
pub mod rfc4106;
