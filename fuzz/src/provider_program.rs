//! The `provider` target's input: a program of calls on up to two provider contexts,
//! and the text form its seeds are written in (`parse`).

use crate::input::{text_calls, visit_list, Codec, Visit};

pub const KINDS: usize = 10;
pub const NEW: usize = 0;
pub const FREE: usize = 1;
pub const DUP: usize = 2;
pub const INIT: usize = 3;
pub const SET: usize = 4;
pub const GET: usize = 5;
pub const UPDATE_OP: usize = 6;
pub const FINAL_OP: usize = 7;
pub const CIPHER_OP: usize = 8;
pub const RECORD: usize = 9;

#[derive(Default, Debug, Clone)]
pub struct Op {
    pub kind: usize,
    pub slot: usize,
    /// which parameter (set, get) or key size (new)
    pub sel: usize,
    /// per kind: see `BITS`
    pub flags: u8,
    pub a: usize,
    pub b: usize,
    pub seed: u8,
}

impl Op {
    pub fn bit(&self, i: u8) -> bool {
        self.flags >> i & 1 == 1
    }
}

impl Visit for Op {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.below(&mut self.kind, KINDS);
        c.below(&mut self.slot, 2);
        c.below(&mut self.sel, 8);
        c.u8(&mut self.flags);
        c.length(&mut self.a, 2000);
        c.length(&mut self.b, 300);
        c.u8(&mut self.seed);
    }
}

#[derive(Default)]
pub struct Program(pub Vec<Op>);

impl Visit for Program {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        visit_list(&mut self.0, c, 64);
    }
}

/// The calls of the text form: a kind, and for set and get the parameter (`sel`).
const NAMES: [(&str, usize, usize); 20] = [
    ("new", NEW, 0),
    ("free", FREE, 0),
    ("dup", DUP, 0),
    ("init", INIT, 0),
    ("set-tag", SET, 0),
    ("set-ivlen", SET, 1),
    ("set-keylen", SET, 2),
    ("set-tlsaad", SET, 3),
    ("set-tlsivfixed", SET, 4),
    ("set-tlsivinv", SET, 5),
    ("get-ivlen", GET, 0),
    ("get-keylen", GET, 1),
    ("get-taglen", GET, 2),
    ("get-iv", GET, 3),
    ("get-updated-iv", GET, 4),
    ("get-tlsaadpad", GET, 5),
    ("get-tag", GET, 6),
    ("get-tlsivgen", GET, 7),
    ("update", UPDATE_OP, 0),
    ("final", FINAL_OP, 0),
];

/// The flag bits' names, per kind (`cipher` takes update's, `record` its own).
pub fn bit_names(kind: usize) -> &'static [&'static str] {
    match kind {
        INIT => &["enc", "key", "badkey", "iv", "ivlen", "param"],
        SET => &["x", "std", "sane"],
        UPDATE_OP | CIPHER_OP => &["aad", "inplace", "short", "nullin"],
        FINAL_OP => &["righttag", "flip"],
        RECORD => &["", "", "", "", "short", "notinplace", "tamper"],
        _ => &[],
    }
}

/// A program in the seeds' text form (`input::text_calls`): `"new sel=2; init key iv;
/// update len=100 inplace; final"`. Fields: slot, sel, a (alias len), b (alias size),
/// seed, flags, and the kind's bit names.
pub fn parse(text: &str) -> Program {
    let mut names: Vec<&str> = NAMES.iter().map(|n| n.0).collect();
    names.extend(["cipher", "record"]);
    let ops = text_calls(text, &names).into_iter().map(|(i, fields)| {
        let (kind, sel) = match i {
            20 => (CIPHER_OP, 0),
            21 => (RECORD, 0),
            _ => (NAMES[i].1, NAMES[i].2),
        };
        let mut op = Op {
            kind,
            sel,
            ..Op::default()
        };
        for (field, n) in fields {
            let u = n as usize;
            match field {
                "slot" => op.slot = u,
                "sel" => op.sel = u,
                "a" | "len" => op.a = u,
                "b" | "size" => op.b = u,
                "seed" => op.seed = n as u8,
                "flags" => op.flags = n as u8,
                _ => {
                    let bit = bit_names(kind)
                        .iter()
                        .position(|b| *b == field)
                        .unwrap_or_else(|| panic!("unknown field {field:?} in {text:?}"));
                    if n != 0 {
                        op.flags |= 1 << bit;
                    }
                }
            }
        }
        op
    });
    Program(ops.collect())
}
