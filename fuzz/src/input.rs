//! The fuzzer's bytes as a stream of decisions, read and written by one description.
//!
//! A target describes its case once, as a function over [`Codec`] that visits every field
//! (`c.below(&mut x.slot, 2); c.bool(&mut x.null); …`). Run over [`Input`], the visit
//! fills the fields from the fuzzer's bytes; run over [`Seed`], it writes the bytes that
//! make `Input` produce the fields' current values — which is how the committed seeds are
//! made, so they stay meaningful whenever the description changes (they are regenerated,
//! never edited).
//!
//! Reading past the end of the data gives zeros: every byte string is a valid case, and
//! short inputs mean "the simplest choices".

/// Lengths whose 16-bit selector has this bit set are "small" (0..=63); others are taken
/// modulo the maximum.
const SMALL: u16 = 0x8000;

/// One direction of the byte stream: decoding fuzzer input or encoding a seed.
pub trait Codec {
    /// True for [`Input`]: the visit must build values (e.g. pick an enum variant) from
    /// what it reads.
    const DECODING: bool;

    fn u8(&mut self, v: &mut u8);

    fn u16(&mut self, v: &mut u16) {
        let mut b = v.to_le_bytes();
        b.iter_mut().for_each(|x| self.u8(x));
        *v = u16::from_le_bytes(b);
    }

    fn u32(&mut self, v: &mut u32) {
        let mut b = v.to_le_bytes();
        b.iter_mut().for_each(|x| self.u8(x));
        *v = u32::from_le_bytes(b);
    }

    fn u64(&mut self, v: &mut u64) {
        let mut b = v.to_le_bytes();
        b.iter_mut().for_each(|x| self.u8(x));
        *v = u64::from_le_bytes(b);
    }

    fn bool(&mut self, v: &mut bool) {
        let mut b = *v as u8;
        self.u8(&mut b);
        *v = b & 1 == 1;
    }

    /// A value in `0..n` (`n` ≤ 65536): one byte when `n` ≤ 256, else two.
    fn below(&mut self, v: &mut usize, n: usize) {
        assert!((1..=65536).contains(&n));
        if n <= 256 {
            let mut b = *v as u8;
            self.u8(&mut b);
            *v = b as usize % n;
        } else {
            let mut w = *v as u16;
            self.u16(&mut w);
            *v = w as usize % n;
        }
    }

    /// A value in `lo..=hi`.
    fn range(&mut self, v: &mut usize, lo: usize, hi: usize) {
        let mut d = v.wrapping_sub(lo);
        self.below(&mut d, hi - lo + 1);
        *v = lo + d;
    }

    /// One of `choices`.
    fn pick<T: Copy + PartialEq>(&mut self, v: &mut T, choices: &[T]) {
        let mut i = if Self::DECODING {
            0
        } else {
            choices
                .iter()
                .position(|c| c == v)
                .expect("a listed choice")
        };
        self.below(&mut i, choices.len());
        *v = choices[i];
    }

    /// One of `choices`, or (one index past them) any 32-bit value.
    fn pick_or_any(&mut self, v: &mut u32, choices: &[u32]) {
        let n = choices.len();
        let mut i = if Self::DECODING {
            0
        } else {
            choices.iter().position(|c| c == v).unwrap_or(n)
        };
        self.below(&mut i, n + 1);
        if i < n {
            *v = choices[i];
        } else {
            self.u32(v);
        }
    }

    /// `n` bytes taken directly from the stream.
    fn bytes(&mut self, v: &mut Vec<u8>, n: usize) {
        v.resize(n, 0);
        v.iter_mut().for_each(|b| self.u8(b));
    }

    /// A length in `0..=max` (`max` < 32768), biased to small values: 0..=63 half the time.
    fn length(&mut self, v: &mut usize, max: usize) {
        assert!(max < SMALL as usize && (Self::DECODING || *v <= max));
        let mut w = if *v < 64 {
            SMALL | *v as u16
        } else {
            *v as u16
        };
        self.u16(&mut w);
        *v = if w & SMALL != 0 {
            ((w & 0x3f) as usize).min(max)
        } else {
            w as usize % (max + 1)
        };
    }

    /// `total` bytes split into call sizes (zero-length calls included), at most
    /// `max_calls` of them; the last call takes what is left once the stream ends.
    fn chunks(&mut self, v: &mut Vec<usize>, total: usize, max_calls: usize) {
        self.split(v, total, max_calls, 1);
    }

    /// [`Codec::chunks`] in multiples of 16 except the last call (nettle's rule).
    fn block_chunks(&mut self, v: &mut Vec<usize>, total: usize, max_calls: usize) {
        self.split(v, total, max_calls, 16);
    }

    #[doc(hidden)]
    fn split(&mut self, v: &mut Vec<usize>, total: usize, max_calls: usize, unit: usize) {
        if !Self::DECODING {
            assert!(v.iter().sum::<usize>() == total && v.len() < max_calls);
            assert!(
                v.last() != Some(&0),
                "a trailing empty call is not encodable"
            );
            assert!(v.iter().rev().skip(1).all(|n| n % unit == 0));
        }
        let wanted = std::mem::take(v);
        let mut left = total;
        while left > 0 {
            let n = if self.at_end() || v.len() + 1 >= max_calls {
                left
            } else {
                let mut units = wanted.get(v.len()).map_or(0, |n| n.div_ceil(unit));
                self.length(&mut units, left.div_ceil(unit));
                (units * unit).min(left)
            };
            v.push(n);
            left -= n;
        }
    }

    /// Whether a decoder has consumed every byte (never true for an encoder).
    fn at_end(&self) -> bool;
}

/// Reads decisions from fuzzer bytes.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data, pos: 0 }
    }
}

impl Codec for Input<'_> {
    const DECODING: bool = true;

    fn u8(&mut self, v: &mut u8) {
        *v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
    }

    fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }
}

/// Writes the bytes that make [`Input`] produce the values it is shown.
#[derive(Default)]
pub struct Seed(pub Vec<u8>);

impl Codec for Seed {
    const DECODING: bool = false;

    fn u8(&mut self, v: &mut u8) {
        self.0.push(*v);
    }

    fn at_end(&self) -> bool {
        false
    }
}

/// A structure the fuzzer's bytes describe: its fields visited in stream order.
pub trait Visit: Default {
    fn visit<C: Codec>(&mut self, c: &mut C);

    /// Decodes fuzzer bytes.
    fn decode(data: &[u8]) -> Self {
        let mut t = Self::default();
        t.visit(&mut Input::new(data));
        t
    }

    /// The seed bytes that decode to `self` — checked: decoding them and encoding again
    /// must give the same bytes, else the visit is not symmetric.
    fn encode(&mut self) -> Vec<u8> {
        let mut s = Seed::default();
        self.visit(&mut s);
        let mut again = Seed::default();
        Self::decode(&s.0).visit(&mut again);
        assert!(again.0 == s.0, "a seed does not decode to what it encodes");
        s.0
    }
}

/// The seeds' text form of a program, `"kind field=value …; kind …"`: for each call, the
/// index of its kind in `names` and its fields with their values (decimal or `0x` hex; a
/// bare `flag` is `flag=1`). Panics on anything else (seeds are written by hand).
pub fn text_calls<'a>(text: &'a str, names: &[&str]) -> Vec<(usize, Vec<(&'a str, u64)>)> {
    text.split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|cmd| {
            let mut words = cmd.split_whitespace();
            let name = words.next().unwrap_or_default();
            let k = names
                .iter()
                .position(|n| *n == name)
                .unwrap_or_else(|| panic!("unknown call {name:?}"));
            let fields = words
                .map(|w| {
                    let (field, v) = w.split_once('=').unwrap_or((w, "1"));
                    let n = match v.strip_prefix("0x") {
                        Some(h) => u64::from_str_radix(h, 16),
                        None => v.parse(),
                    }
                    .unwrap_or_else(|_| panic!("bad value in {w:?}"));
                    (field, n)
                })
                .collect();
            (k, fields)
        })
        .collect()
}

/// A list of up to `max` items (a program's calls): decoded until the data ends.
pub fn visit_list<T: Visit, C: Codec>(items: &mut Vec<T>, c: &mut C, max: usize) {
    if C::DECODING {
        while !c.at_end() && items.len() < max {
            let mut item = T::default();
            item.visit(c);
            items.push(item);
        }
    } else {
        items.iter_mut().for_each(|item| item.visit(c));
    }
}
