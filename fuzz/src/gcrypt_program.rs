//! The gcrypt_abi target's program: a list of `gcry_cipher_*` calls ([`Op`]) with every
//! argument a fuzzer can choose, read from its bytes through [`Visit`], and a small text
//! form for writing seeds ([`parse`]: `"open cipher=2 secure; setkey key=32; setiv iv=0; …"`).

use crate::input::{text_calls, visit_list, Codec, Visit};

pub const MAX_OPS: usize = 64;
pub const MAX_IV: usize = 80;
pub const MAX_AAD: usize = 600;
pub const MAX_DATA: usize = 2000;
/// Lengths past libgcrypt's limits that it rejects before reading the buffer: AAD and IV
/// over 2^61 − 1 bytes, data over 2^36 − 32 bytes.
pub const HUGE_AAD: usize = (1 << 61) + 5;
pub const HUGE_DATA: usize = 1 << 36;

/// (algorithm, mode) of `open`: AES, AES192, AES256 in GCM (served by the interposer), then
/// handles it must forward untouched: AES-CBC and Camellia-128-GCM.
pub const CIPHERS: [(i32, i32); 5] = [(7, 9), (8, 9), (9, 9), (7, 3), (310, 9)];
pub const KEY_LENS: [usize; 10] = [16, 24, 32, 0, 1, 15, 17, 31, 33, 64];
pub const TAG_LENS: [usize; 17] = [16, 12, 13, 14, 15, 8, 4, 0, 1, 3, 5, 7, 9, 11, 17, 20, 64];
/// `ctl` commands: RESET, FINALIZE, SET_TAGLEN, the private GET_INPUT_VECTOR (62, which
/// the interposer answers itself), CFB_SYNC, and two libgcrypt does not know.
pub const CTL_CMDS: [i32; 7] = [4, 5, 75, 62, 3, 0, 1000];
pub const CTL_BUFLENS: [usize; 5] = [0, 17, 4, 16, 32];
/// `info` commands: GET_TAGLEN, GET_KEYLEN (not for GCM), and an unknown one.
pub const INFO_CMDS: [i32; 3] = [76, 77, 0];
/// `setup_geniv` methods: CONCAT (1), and two that do not exist.
pub const GENIV_METHODS: [i32; 3] = [1, 0, 2];

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
    Ctl,
    Info,
    SetupGeniv,
    Geniv,
}
pub const KINDS: [Kind; 13] = [
    Kind::Open,
    Kind::Close,
    Kind::SetKey,
    Kind::SetIv,
    Kind::Authenticate,
    Kind::Encrypt,
    Kind::Decrypt,
    Kind::GetTag,
    Kind::CheckTag,
    Kind::Ctl,
    Kind::Info,
    Kind::SetupGeniv,
    Kind::Geniv,
];
/// The names [`parse`] knows, in the order of [`KINDS`].
const NAMES: [&str; 13] = [
    "open",
    "close",
    "setkey",
    "setiv",
    "auth",
    "encrypt",
    "decrypt",
    "gettag",
    "checktag",
    "ctl",
    "info",
    "setup_geniv",
    "geniv",
];

/// Where encrypt/decrypt read from: another buffer, `in == NULL` (in place over `outsize`
/// bytes), or `in == out`.
pub const PLACES: [usize; 3] = [0, 1, 2];

/// One call and all its arguments; each kind reads only the fields it uses.
#[derive(Clone, Default, Debug)]
pub struct Op {
    pub kind: Kind,
    pub slot: usize,
    pub cipher: usize,
    pub secure: bool,
    /// The call's (first) buffer pointer is NULL: key, IV, AAD, out, tag, ctl buffer, the
    /// fixed IV part; for `info` the `buffer`.
    pub null: bool,
    /// A second pointer NULL: `info`'s `nbytes`, setup_geniv's dynamic part.
    pub null2: bool,
    /// The length (key, IV, AAD, data, tag, ctl buffer, geniv IV).
    pub len: usize,
    /// The length replaced by [`HUGE_AAD`] (IV, AAD) or [`HUGE_DATA`] (data).
    pub huge: bool,
    /// Output size of encrypt/decrypt: 0 exact, 1 one more, 2 17 more, 3 one less, 4 zero.
    pub out_size: usize,
    pub place: usize,
    /// checktag: 0 the right tag, 1 one bit flipped, 2 other bytes.
    pub tag_kind: usize,
    pub bit: u16,
    pub cmd: i32,
    pub method: i32,
    pub len2: usize,
    pub seed: u8,
    pub off_in: usize,
    pub off_out: usize,
}

fn ctl_buflen(c: &mut impl Codec, v: &mut usize) {
    c.pick(v, &CTL_BUFLENS);
}

impl Visit for Op {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.pick(&mut self.kind, &KINDS);
        c.below(&mut self.slot, 2);
        match self.kind {
            Kind::Open => {
                c.below(&mut self.cipher, CIPHERS.len());
                c.bool(&mut self.secure);
            }
            Kind::Close => {}
            Kind::SetKey => {
                c.pick(&mut self.len, &KEY_LENS);
                c.bool(&mut self.null);
            }
            Kind::SetIv => {
                let mut standard = self.len == 12;
                c.bool(&mut standard);
                if standard {
                    self.len = 12;
                } else {
                    c.range(&mut self.len, 0, MAX_IV);
                }
                c.bool(&mut self.null);
                c.bool(&mut self.huge);
            }
            Kind::Authenticate => {
                c.length(&mut self.len, MAX_AAD);
                c.bool(&mut self.null);
                c.bool(&mut self.huge);
            }
            Kind::Encrypt | Kind::Decrypt => {
                c.length(&mut self.len, MAX_DATA);
                c.below(&mut self.out_size, 5);
                c.pick(&mut self.place, &PLACES);
                c.bool(&mut self.null);
                c.bool(&mut self.huge);
            }
            Kind::GetTag => {
                c.pick(&mut self.len, &TAG_LENS);
                c.bool(&mut self.null);
            }
            Kind::CheckTag => {
                c.pick(&mut self.len, &TAG_LENS);
                c.below(&mut self.tag_kind, 3);
                c.u16(&mut self.bit);
                c.bool(&mut self.null);
            }
            Kind::Ctl => {
                c.pick(&mut self.cmd, &CTL_CMDS);
                ctl_buflen(c, &mut self.len);
                c.bool(&mut self.null);
            }
            Kind::Info => {
                c.pick(&mut self.cmd, &INFO_CMDS);
                c.bool(&mut self.null);
                c.bool(&mut self.null2);
            }
            Kind::SetupGeniv => {
                c.pick(&mut self.method, &GENIV_METHODS);
                c.range(&mut self.len, 0, 20);
                c.range(&mut self.len2, 0, 20);
                c.bool(&mut self.null);
                c.bool(&mut self.null2);
            }
            Kind::Geniv => {
                c.range(&mut self.len, 0, 20);
                c.bool(&mut self.null);
            }
        }
        if !matches!(self.kind, Kind::Open | Kind::Close) {
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

/// A call of `kind` on slot 0 with valid arguments (AES-128-GCM, a 16-byte key, a 12-byte
/// IV, 20 bytes of AAD, 33 bytes of data out of place, a 16-byte tag, RESET, GET_TAGLEN,
/// a 4 + 8 byte geniv).
pub fn valid(kind: Kind) -> Op {
    let len = match kind {
        Kind::SetKey | Kind::GetTag | Kind::CheckTag => 16,
        Kind::SetIv | Kind::Geniv => 12,
        Kind::Authenticate => 20,
        Kind::Encrypt | Kind::Decrypt => 33,
        Kind::SetupGeniv => 4,
        _ => 0,
    };
    Op {
        kind,
        len,
        len2: 8,
        cmd: if kind == Kind::Info { 76 } else { 4 },
        method: 1,
        seed: 7,
        null: kind == Kind::Info, // GET_TAGLEN wants buffer NULL, nbytes not
        ..Op::default()
    }
}

/// Parses `"kind field=value …; kind …"`: each call starts from [`valid`]; the fields are
/// `slot cipher len len2 out place tagkind bit cmd method seed offin offout` and the flags
/// `secure null null2 huge` (`flag=0` clears one).
pub fn parse(text: &str) -> Program {
    let ops = text_calls(text, &NAMES).into_iter().map(|(k, fields)| {
        let mut op = valid(KINDS[k]);
        for (field, n) in fields {
            let u = n as usize;
            match field {
                "slot" => op.slot = u,
                "cipher" => op.cipher = u,
                "secure" => op.secure = n != 0,
                "null" => op.null = n != 0,
                "null2" => op.null2 = n != 0,
                "huge" => op.huge = n != 0,
                "len" => op.len = u,
                "len2" => op.len2 = u,
                "out" => op.out_size = u,
                "place" => op.place = u,
                "tagkind" => op.tag_kind = u,
                "bit" => op.bit = n as u16,
                "cmd" => op.cmd = n as i32,
                "method" => op.method = n as i32,
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
