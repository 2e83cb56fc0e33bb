//! The native handle target's program: a list of calls ([`Op`]) with every argument a
//! fuzzer can choose, read from its bytes through [`Visit`], and a small text form for
//! writing seeds by hand ([`parse`]: `"open algo=8; setkey key=24; setiv iv=1; …"`).

use crate::input::{text_calls, visit_list, Codec, Visit};
use crate::native::*;

pub const MAX_OPS: usize = 64;
pub const MAX_DATA: usize = 2000;
pub const MAX_IV: usize = 300;
pub const MAX_AAD: usize = 600;
pub const ALGOS: [u32; 6] = [AES128 as u32, AES192 as u32, AES256 as u32, 0, 6, 10];
pub const MODES: [u32; 4] = [MODE_GCM as u32, 0, 8, 10];
pub const FLAGS: [u32; 5] = [0, 1, KNOWN_FLAGS, 0x20, 0x8000_0000];
pub const KEY_LENS: [usize; 10] = [16, 24, 32, 0, 1, 15, 17, 31, 33, 64];
pub const TAG_LEN_CHOICES: [usize; 17] =
    [16, 12, 13, 14, 15, 8, 4, 0, 1, 3, 5, 7, 9, 11, 17, 20, 64];

#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub enum Kind {
    #[default]
    Open,
    Close,
    SetKey,
    SetIv,
    Authenticate,
    Encrypt,
    Decrypt,
    GetTag,
    CheckTag,
    Reset,
    Seal,
    OneShotOpen,
    AeadSeal,
    AeadOpen,
}
pub const KINDS: [Kind; 14] = [
    Kind::Open,
    Kind::Close,
    Kind::SetKey,
    Kind::SetIv,
    Kind::Authenticate,
    Kind::Encrypt,
    Kind::Decrypt,
    Kind::GetTag,
    Kind::CheckTag,
    Kind::Reset,
    Kind::Seal,
    Kind::OneShotOpen,
    Kind::AeadSeal,
    Kind::AeadOpen,
];

/// One call and all its arguments; each kind reads only the fields it uses.
#[derive(Clone, Default)]
pub struct Op {
    pub kind: Kind,
    pub slot: usize,
    /// 0..=3: no NULL pointer; 4 + i: the call's i-th pointer argument is NULL.
    pub null_sel: usize,
    pub algo: u32,
    pub mode: u32,
    pub flags: u32,
    pub key_len: usize,
    pub iv_len: usize,
    pub aad_len: usize,
    pub len: usize,
    /// Output size: 0 = exact, 1 = one more, 2 = 17 more, 3 = one less.
    pub out_size: usize,
    pub in_place: bool,
    pub tag_len: usize,
    /// 0: the right tag, 1: one bit flipped, 2: unrelated bytes.
    pub tag_kind: usize,
    pub bit: u16,
    pub seed: u8,
    pub off_in: usize,
    pub off_out: usize,
}

impl Op {
    pub fn null(&self, i: usize) -> bool {
        self.null_sel >= 4 && self.null_sel - 4 == i
    }
}

impl Visit for Op {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.pick(&mut self.kind, &KINDS);
        c.below(&mut self.slot, 2);
        c.below(&mut self.null_sel, 10);
        let raw_key = matches!(self.kind, Kind::Seal | Kind::OneShotOpen);
        let one_shot = raw_key || matches!(self.kind, Kind::AeadSeal | Kind::AeadOpen);
        match self.kind {
            Kind::Open => {
                c.pick_or_any(&mut self.algo, &ALGOS);
                c.pick_or_any(&mut self.mode, &MODES);
                c.pick_or_any(&mut self.flags, &FLAGS);
            }
            Kind::Close | Kind::Reset => {}
            Kind::SetKey => c.pick(&mut self.key_len, &KEY_LENS),
            Kind::SetIv => c.length(&mut self.iv_len, MAX_IV),
            Kind::Authenticate => c.length(&mut self.aad_len, MAX_AAD),
            Kind::Encrypt | Kind::Decrypt => {
                c.length(&mut self.len, MAX_DATA);
                c.below(&mut self.out_size, 4);
                c.bool(&mut self.in_place);
            }
            Kind::GetTag => c.pick(&mut self.tag_len, &TAG_LEN_CHOICES),
            Kind::CheckTag => {
                c.pick(&mut self.tag_len, &TAG_LEN_CHOICES);
                c.below(&mut self.tag_kind, 3);
                c.u16(&mut self.bit);
            }
            Kind::Seal | Kind::OneShotOpen | Kind::AeadSeal | Kind::AeadOpen => {}
        }
        if raw_key {
            c.pick(&mut self.key_len, &KEY_LENS);
        }
        if one_shot {
            c.length(&mut self.iv_len, MAX_IV);
            c.length(&mut self.aad_len, MAX_AAD);
            c.length(&mut self.len, MAX_DATA);
            c.bool(&mut self.in_place);
            c.pick(&mut self.tag_len, &TAG_LEN_CHOICES);
            c.below(&mut self.tag_kind, 3);
            c.u16(&mut self.bit);
        }
        if self.kind != Kind::Open && self.kind != Kind::Close && self.kind != Kind::Reset {
            c.u8(&mut self.seed);
            c.below(&mut self.off_in, 16);
            c.below(&mut self.off_out, 16);
        }
    }
}

#[derive(Default)]
pub struct Program(pub Vec<Op>);

impl Visit for Program {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        visit_list(&mut self.0, c, MAX_OPS);
    }
}

/// The names [`parse`] knows for each kind (`open` is `sgcm_cipher_open`, `oneshot_open`
/// is `sgcm_open`, `aead_*` are the keyed one-shots on a handle).
const NAMES: [&str; 14] = [
    "open",
    "close",
    "setkey",
    "setiv",
    "auth",
    "encrypt",
    "decrypt",
    "gettag",
    "checktag",
    "reset",
    "seal",
    "oneshot_open",
    "aead_seal",
    "aead_open",
];

/// A call of `kind` on slot 0 with valid arguments (AES-128, 12-byte IV, 20 bytes of AAD,
/// 33 bytes of data, 16-byte tag).
pub fn valid(kind: Kind) -> Op {
    Op {
        kind,
        algo: AES128 as u32,
        mode: MODE_GCM as u32,
        key_len: 16,
        iv_len: 12,
        aad_len: 20,
        len: 33,
        tag_len: 16,
        seed: 7,
        ..Op::default()
    }
}

/// Parses `"kind field=value …; kind …"`: each call starts from [`valid`]; the fields are
/// `slot null algo mode flags key iv aad len out tag tagkind bit seed offin offout` and the
/// flag `inplace`; `null=i` makes the call's i-th pointer NULL (0 = the handle).
pub fn parse(text: &str) -> Program {
    let ops = text_calls(text, &NAMES).into_iter().map(|(k, fields)| {
        let mut op = valid(KINDS[k]);
        for (field, n) in fields {
            let u = n as usize;
            match field {
                "slot" => op.slot = u,
                "null" => op.null_sel = 4 + u,
                "algo" => op.algo = n as u32,
                "mode" => op.mode = n as u32,
                "flags" => op.flags = n as u32,
                "key" => op.key_len = u,
                "iv" => op.iv_len = u,
                "aad" => op.aad_len = u,
                "len" => op.len = u,
                "out" => op.out_size = u,
                "inplace" => op.in_place = n != 0,
                "tag" => op.tag_len = u,
                "tagkind" => op.tag_kind = u,
                "bit" => op.bit = n as u16,
                "seed" => op.seed = n as u8,
                "offin" => op.off_in = u,
                "offout" => op.off_out = u,
                _ => panic!("unknown field {field:?} in {text:?}"),
            }
        }
        op
    });
    Program(ops.collect())
}
