//! What the gcrypt_abi target tracks of libgcrypt's GCM handle state (cipher-gcm.c of
//! 1.8 to 1.12), only as far as the interposer's documented differences depend on it:
//!
//! - `keyed` (libgcrypt's `ghash_fn`, set by the first good setkey): a 12-byte setiv
//!   before it makes libgcrypt encrypt with no key schedule and crash; the interposer
//!   answers GPG_ERR_INV_STATE (docs/libgcrypt.md, "Deliberate differences");
//! - `mac_unused`: bytes of AAD or data waiting in libgcrypt's GHASH buffer (`macbuf`).
//!   A setiv — explicit, or the implicit 16 zero bytes — does not clear them, so they
//!   enter the next IV's (or AAD's) GHASH and that message's tag, and for IVs other than
//!   12 bytes its keystream, are not GCM's; the interposer starts every message clean
//!   (documented). Such a message is `tainted`: its return codes are still compared, its
//!   output bytes and tags are not, until a setiv with nothing waiting or a reset.
//!
//! The transitions take the return code both sides agreed on (or the documented one).

use crate::gcrypt::err::{code, CHECKSUM, INV_LENGTH};

#[derive(Default, Debug)]
pub struct GcmState {
    pub keyed: bool,
    pub has_iv: bool,
    pub tagged: bool,
    pub aad_final: bool,
    pub over_limit: bool,
    pub mac_unused: usize,
    pub tainted: bool,
}

impl GcmState {
    pub fn setkey(&mut self, rc: u32) {
        // A rejected key clears libgcrypt's key mark, which blocks data only; the
        // interposer answers that itself (forwarding to its unkeyed inner handle).
        if rc == 0 {
            self.keyed = true;
        }
    }

    /// Any setiv (or geniv), accepted or not: the message ends; waiting GHASH bytes stay.
    pub fn setiv(&mut self, len: usize, huge: bool, rc: u32) {
        self.has_iv = false;
        self.tagged = false;
        self.aad_final = false;
        self.over_limit = false;
        if rc == 0 {
            self.tainted = self.mac_unused > 0;
            if len != 12 {
                self.mac_unused = 0; // GHASHed (with the stale bytes) and padded
            }
            self.has_iv = true;
        } else {
            // Without a message, a gettag returns the last message's mask, GHASHed with
            // whatever waits in the buffer.
            self.tainted |= self.mac_unused > 0;
            self.over_limit = huge && code(rc) == INV_LENGTH;
        }
    }

    /// The implicit IV of AAD or data without setiv.
    fn implicit_iv(&mut self) {
        if !self.has_iv {
            self.setiv(16, false, 0);
        }
    }

    /// authenticate of `len` bytes (`huge`: over the limit) answered `rc`.
    pub fn aad(&mut self, len: usize, huge: bool, rc: u32) {
        if rc == 0 {
            self.implicit_iv();
            self.mac_unused = (self.mac_unused + len) % 16;
        } else if huge && code(rc) == INV_LENGTH && !self.over_limit {
            self.implicit_iv();
            self.over_limit = true;
        }
    }

    /// encrypt/decrypt of `len` bytes answered `rc`.
    pub fn data(&mut self, len: usize, huge: bool, rc: u32) {
        let first = |s: &mut GcmState| {
            s.implicit_iv();
            if !s.aad_final {
                s.aad_final = true;
                s.mac_unused = 0; // the AAD padded
            }
        };
        if rc == 0 {
            first(self);
            self.mac_unused = (self.mac_unused + len) % 16;
        } else if huge && code(rc) == INV_LENGTH && !self.over_limit {
            first(self);
            self.over_limit = true;
        }
    }

    /// gettag/checktag answered `rc` (0 or CHECKSUM: the tag was computed).
    pub fn tag(&mut self, rc: u32) {
        if (rc == 0 || code(rc) == CHECKSUM) && !self.tagged {
            self.tagged = true;
            self.aad_final = true;
            self.mac_unused = 0;
        }
    }

    /// ctl(RESET): everything but the key.
    pub fn reset(&mut self) {
        *self = GcmState {
            keyed: self.keyed,
            ..GcmState::default()
        };
    }
}

/// libgcrypt 1.11's IV generation (`setup_geniv` METHOD_CONCAT, `geniv`): IV = fixed ‖
/// counter, the counter then incremented big-endian. The model of the interposer's
/// answers on its own handles whatever the system's libgcrypt version.
#[derive(Default, Debug)]
pub struct GenivModel {
    pub fixed: Vec<u8>,
    pub counter: Vec<u8>,
}

impl GenivModel {
    pub fn len(&self) -> usize {
        self.fixed.len() + self.counter.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next IV; the counter moves on.
    pub fn next_iv(&mut self) -> Vec<u8> {
        let iv = [&self.fixed[..], &self.counter[..]].concat();
        for b in self.counter.iter_mut().rev() {
            *b = b.wrapping_add(1);
            if *b != 0 {
                break;
            }
        }
        iv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cipher-gcm.c's buffer: 5 bytes of AAD wait through a 12-byte setiv (tainting the
    /// next message) until a tag pads them; a 16-byte implicit IV GHASHes them away.
    #[test]
    fn stale_ghash_bytes_taint_until_flushed() {
        let mut s = GcmState::default();
        s.setkey(0);
        s.setiv(12, false, 0);
        s.aad(5, false, 0);
        s.setiv(12, false, 0);
        assert!(s.tainted && s.mac_unused == 5);
        s.tag(0);
        s.setiv(12, false, 0);
        assert!(!s.tainted);
        s.data(7, false, 0);
        s.setiv(0, false, 0x2000_008b);
        s.aad(1, false, 0); // the implicit IV
        assert!(s.tainted && s.mac_unused == 1 && s.has_iv);
        s.reset();
        assert!(!s.tainted && s.mac_unused == 0 && s.keyed);
    }

    #[test]
    fn geniv_counter_is_big_endian_and_wraps() {
        let mut g = GenivModel {
            fixed: vec![9],
            counter: vec![0x00, 0xff],
        };
        assert_eq!(g.next_iv(), [9, 0x00, 0xff]);
        assert_eq!(g.next_iv(), [9, 0x01, 0x00]);
        let mut w = GenivModel {
            fixed: vec![],
            counter: vec![0xff, 0xff],
        };
        w.next_iv();
        assert_eq!(w.next_iv(), [0, 0]);
    }
}
