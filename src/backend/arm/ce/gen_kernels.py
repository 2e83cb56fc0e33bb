#!/usr/bin/env python3
"""Generates kernels.rs: the `asm!` kernels of the arm-ce backend (AArch32 AESE/AESMC +
VMULL.P64), one function per kernel.

Usage (the same contract as the other generators under src/backend, gen_*.py):
  python3 src/backend/arm/ce/gen_kernels.py           write kernels.rs (beside this file)
  python3 src/backend/arm/ce/gen_kernels.py --verify  write nothing: exit 1 unless kernels.rs
                                                      is what this generates (scripts/test.sh)
  python3 src/backend/arm/ce/gen_kernels.py --mca enc|dec|ctr|ghash [10|12|14] [fused]
                                                      print one loop body for llvm-mca
                                                      (fused: the AESMCs dropped)

Why generated: the stitched loops interleave the AES rounds of one group with the GHASH
of another instruction by instruction, once per key size and direction, and the tails
and lanes kernels are the same pieces for 1..5 blocks; LLVM would neither keep such an
order nor could it emit these instructions (the AArch32 crypto intrinsics are unstable
in Rust 1.85).

Conventions every kernel shares (see `key.rs` for the layout of the key):
- AES lanes are q registers holding blocks in memory byte order (vld1.8/vst1.8);
- GHASH works on the reflected representation: a block loaded with vld1.8 and turned
  with vrev64.8 holds its big-endian integer with the 64-bit halves swapped (even d =
  high half, odd d = low half); the state Y is kept as that integer in natural lane
  order (even d = low half); the H powers are stored as H^k * x^-1 so the carry-less
  product needs no 1-bit shift, and the reduction is two VMULL.P64 by 0xc2 << 56;
- three VMULL.P64 per block (Karatsuba: lo*lo, hi*hi, (lo^hi)*(lo^hi), the H halves'
  XOR precomputed); the products of a group are summed unreduced and reduced once;
- every load and store of caller memory is a plain vld1.8/vst1.8: an alignment hint
  (`[r0:128]`) faults on real cores when the address is not aligned, and qemu does not
  check. Internal buffers are 16-byte aligned (the key inside the mode's `Material`,
  `align(16)`; the scratch area of counters and state, `repr(align(16))`), which keeps
  their loads within a cache line, but no instruction relies on it: no hints anywhere;
- the crypto instructions need `.arch armv8-a` and `.fpu crypto-neon-fp-armv8`; each
  block switches back to the target's `.arch armv7-a` / `.fpu neon` at its end so the
  object's build attributes stay those of an ARMv7 object;
- d8-d15 are callee-saved: kernels that use q4-q7 declare d8-d15 clobbered (by their d
  names: rustc 1.85/LLVM does not save them for a clobbered q4..q7), so the compiler
  saves them; q8-q15 (d16-d31) are never allocated by the compiler for this target
  (it is built without `d32`), they are declared clobbered anyway.
"""
import os
import re
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kernels.rs')

# ---- key layout (must match key.rs)
RK = 0          # 15 round keys
ROUNDS = 240    # u32
HP = 256        # H^8..H^1, 24 bytes each: lo, hi, lo^hi of H^k * x^-1
HSTEP = 24
MASK = HP + 8 * HSTEP   # u64 0xc200000000000000, read through the H pointer after H^1
# ---- scratch layout (must match crypt.rs)
SCR_Y = 64      # the GHASH state after the four counter blocks


def dd(n):
    """the two d registers of q n, as a vld1/vst1 list"""
    return f'{{d{2 * n}-d{2 * n + 1}}}'


class Regs:
    """register roles of the stitched loops (all 16 q registers)"""
    LANES = [0, 1, 2, 3]       # AES states
    KEYS = [4, 5]              # round keys, ping-pong
    Y = 7                      # GHASH state (d14 lo, d15 hi)
    LO, MID, HI = 8, 9, 10     # Karatsuba accumulators
    X = 11                     # block being hashed (d22 hi, d23 lo after vrev64)
    H = 12                     # d24 lo, d25 hi of the H power, d26 = lo^hi, d27 = x lo^hi
    P, P2 = 14, 15             # products
    IN = [11, 12]              # inputs of the output stage (GHASH is done by then)


# ------------------------------------------------------------------ pieces
def aes_round_units(r, R, lanes, key):
    """one unit per lane: aese (+ aesmc unless the last round)"""
    units = []
    for b in lanes:
        u = [f'aese.8 q{b}, q{key}']
        if r < R - 1:
            u.append(f'aesmc.8 q{b}, q{b}')
        units.append(u)
    return units


def aes_group(R, regs=Regs, lanes=None):
    """AES rounds 0..R-2 of the lanes as units, the key loads attached; returns
    (units, final_key, last_key): the final round is emitted by `outputs`"""
    lanes = lanes or regs.LANES
    K = regs.KEYS
    units = []
    for r in range(R - 1):
        U = aes_round_units(r, R, lanes, K[r % 2])
        if r + 2 <= R:
            U[-1] = U[-1] + [f'vld1.64 {dd(K[r % 2])}, [%kp]!']
        units += U
    return units, K[(R - 1) % 2], K[R % 2]


def outputs(lanes, fkey, lkey, regs=Regs):
    """final round, XOR with (input ^ last key), stores; two blocks per load/store"""
    L = []
    a, b = regs.IN
    for p in range(0, len(lanes), 2):
        x, y = lanes[p], lanes[p + 1]
        L.append(f'vld1.8 {{d{2 * a}-d{2 * b + 1}}}, [%src]!')
        L.append(f'veor q{a}, q{a}, q{lkey}')
        L.append(f'veor q{b}, q{b}, q{lkey}')
        L.append(f'aese.8 q{x}, q{fkey}')
        L.append(f'aese.8 q{y}, q{fkey}')
        L.append(f'veor q{x}, q{x}, q{a}')
        L.append(f'veor q{y}, q{y}, q{b}')
        L.append(f'vst1.8 {{d{2 * x}-d{2 * y + 1}}}, [%dst]!')
    return L


def group_start(regs=Regs):
    """the four counter blocks of a group from the scratch area, its first two round
    keys; issued at the end of the previous iteration (the loops are rotated) so that
    round 0 is ready when the iteration begins"""
    K = regs.KEYS
    return ['vld1.8 {d0-d3}, [%scr]!', 'vld1.8 {d4-d7}, [%scr]', 'sub %scr, %scr, #32',
            f'vld1.64 {{d{2 * K[0]}-d{2 * K[1] + 1}}}, [%k]', 'add %kp, %k, #32']


def counters_next():
    """the next group's counter words (big-endian) into the scratch area"""
    L = []
    for b in range(4):
        if b == 0:
            L.append('rev %t, %c')
        else:
            L += [f'add %t, %c, #{b}', 'rev %t, %t']
        L.append(f'str %t, [%scr, #{16 * b + 12}]')
    L.append('add %c, %c, #4')
    return L


def ghash_block(regs=Regs, with_y=True, first=True):
    """hash one block: load it and its H power (pointer %gp, %hp walking)"""
    X, H, P, P2 = regs.X, regs.H, regs.P, regs.P2
    xh, xl = 2 * X, 2 * X + 1              # after vrev64: even d = high half
    hl, hh, hk, xk = 2 * H, 2 * H + 1, 2 * H + 2, 2 * H + 3
    yl, yh = 2 * regs.Y, 2 * regs.Y + 1
    L = [f'vld1.8 {dd(X)}, [%gp]!', f'vld1.64 {{d{hl}-d{hk}}}, [%hp]!', f'vrev64.8 q{X}, q{X}']
    if with_y:
        L += [f'veor d{xh}, d{xh}, d{yh}', f'veor d{xl}, d{xl}, d{yl}']
    L.append(f'veor d{xk}, d{xh}, d{xl}')
    if first:
        L += [f'vmull.p64 q{regs.LO}, d{xl}, d{hl}',
              f'vmull.p64 q{regs.HI}, d{xh}, d{hh}',
              f'vmull.p64 q{regs.MID}, d{xk}, d{hk}']
    else:
        L += [f'vmull.p64 q{P}, d{xl}, d{hl}',
              f'vmull.p64 q{P2}, d{xh}, d{hh}',
              f'veor q{regs.LO}, q{regs.LO}, q{P}',
              f'vmull.p64 q{P}, d{xk}, d{hk}',
              f'veor q{regs.HI}, q{regs.HI}, q{P2}',
              f'veor q{regs.MID}, q{regs.MID}, q{P}']
    return L


def reduction(regs=Regs):
    """accumulators -> Y. %hp points at the 0xc2<<56 mask (it follows H^1)."""
    LO, MID, HI, P, P2, Y = regs.LO, regs.MID, regs.HI, regs.P, regs.P2, regs.Y
    m = 2 * regs.H
    return [f'vld1.64 {{d{m}}}, [%hp]',
            f'veor q{P}, q{LO}, q{HI}',
            f'veor q{MID}, q{MID}, q{P}',                      # the true middle term
            f'veor d{2 * LO + 1}, d{2 * LO + 1}, d{2 * MID}',  # fold it into bits 64..191
            f'veor d{2 * HI}, d{2 * HI}, d{2 * MID + 1}',
            f'vmull.p64 q{P}, d{2 * LO}, d{m}',                # X0 * (x^63+x^62+x^57)
            f'vext.8 q{P}, q{P}, q{P}, #8',
            f'veor q{P}, q{P}, q{LO}',                         # (X1 ^ t_lo, X0 ^ t_hi)
            f'vmull.p64 q{P2}, d{2 * P + 1}, d{m}',
            f'veor q{P}, q{P}, q{HI}',
            f'veor q{Y}, q{P}, q{P2}']


def ghash_group(n, src, regs=Regs):
    """GHASH of n blocks from %gp onto Y with H^n..H^1 (table order), one reduction"""
    L = [src, f'add %hp, %k, #{HP + HSTEP * (8 - n)}']
    for i in range(n):
        L += ghash_block(regs, with_y=(i == 0), first=(i == 0))
    return L + reduction(regs)


def interleave(units, stream, frac):
    """AES units with the other stream spread evenly over the first `frac` of them"""
    out, gi, n = [], 0, len(stream)
    span = max(1, int(len(units) * frac))
    for ci, u in enumerate(units, 1):
        out += u
        if ci <= span:
            want = (ci * n) // span
            out += stream[gi:want]
            gi = want
    return out + stream[gi:]


# Fraction of a group's AES units the GHASH is spread over: all of them (a sweep of
# 0.5..1.0 on the A57 model: AES-128 encrypt 0.92 -> 0.89 c/B fused, decrypt 0.86..0.91).
GFRAC = 1.0


def stitched_body(R, enc, hash_it=True):
    """one loop iteration: counters, AES of this group, GHASH of a group, outputs"""
    units, fk, lk = aes_group(R)
    other = counters_next()
    if hash_it:
        other += ghash_group(4, 'sub %gp, %dst, #64' if enc else 'mov %gp, %src')
    return interleave(units, other, GFRAC) + outputs(Regs.LANES, fk, lk) + group_start()


def aes_only_group(R, regs=Regs):
    units, fk, lk = aes_group(R, regs)
    L = counters_next()
    for u in units:
        L += u
    return L + outputs(regs.LANES, fk, lk, regs) + group_start(regs)


# ------------------------------------------------------------------ kernels
def k_stitched(R, enc):
    L = [f'add %t, %scr, #{SCR_Y}', f'vld1.8 {dd(Regs.Y)}, [%t]'] + group_start()
    if enc:
        # the first group has no predecessor to hash; the loop hashes group g-1
        L += aes_only_group(R) + ['subs %n, %n, #1', 'beq 3f']
    L.append('2:')
    L += stitched_body(R, enc)
    L += ['subs %n, %n, #1', 'bne 2b', '3:']
    if enc:
        L += ghash_group(4, 'sub %gp, %dst, #64')
    L += [f'add %t, %scr, #{SCR_Y}', f'vst1.8 {dd(Regs.Y)}, [%t]']
    return L


class CRegs:
    """the CTR-only loops: no callee-saved registers (no d8-d15 to save per call)"""
    LANES = [0, 1, 2, 3]
    KEYS = [8, 9]
    IN = [10, 11]


def k_ctr(R):
    return group_start(CRegs) + ['2:'] + aes_only_group(R, CRegs) + ['subs %n, %n, #1', 'bne 2b']


class GRegs:
    """GHASH-only kernels: no callee-saved registers"""
    Y = 0
    LO, MID, HI = 1, 2, 3
    X = 8
    H = 10          # d20, d21, d22 (hk), d23 (xk)
    P, P2 = 12, 13
    X0 = 14         # block 0 held while the others are hashed


def k_ghash8():
    """eight blocks per iteration with H^8..H^1; block 0 (which takes Y) is loaded first
    and hashed last, so the loop-carried chain through Y is as short as possible"""
    g = GRegs
    L = [f'vld1.8 {dd(g.Y)}, [%y]', '2:']
    body = [f'vld1.8 {dd(g.X0)}, [%gp]!', f'add %hp, %k, #{HP + HSTEP}']
    for i in range(1, 8):
        body += ghash_block(g, with_y=False, first=(i == 1))
    # block 0 with H^8 (the first table entry), then the reduction (mask after H^1)
    x0h, x0l = 2 * g.X0, 2 * g.X0 + 1
    hl, hh, hk, xk = 2 * g.H, 2 * g.H + 1, 2 * g.H + 2, 2 * g.H + 3
    body += [f'add %t, %k, #{HP}', f'vld1.64 {{d{hl}-d{hk}}}, [%t]',
             f'vrev64.8 q{g.X0}, q{g.X0}',
             f'veor d{x0h}, d{x0h}, d{2 * g.Y + 1}', f'veor d{x0l}, d{x0l}, d{2 * g.Y}',
             f'veor d{xk}, d{x0h}, d{x0l}',
             f'vmull.p64 q{g.P}, d{x0l}, d{hl}',
             f'vmull.p64 q{g.P2}, d{x0h}, d{hh}',
             f'veor q{g.LO}, q{g.LO}, q{g.P}',
             f'vmull.p64 q{g.P}, d{xk}, d{hk}',
             f'veor q{g.HI}, q{g.HI}, q{g.P2}',
             f'veor q{g.MID}, q{g.MID}, q{g.P}']
    body += reduction(g)
    L += body + ['subs %n, %n, #1', 'bne 2b', f'vst1.8 {dd(g.Y)}, [%y]']
    return L


def k_ghash_n():
    """1..=8 blocks (%n, at run time) with H^n..H^1, one reduction; a rolled loop"""
    g = GRegs
    L = [f'vld1.8 {dd(g.Y)}, [%y]',
         # %hp = k + HP + 24 * (8 - n)
         'rsb %t, %n, #8', 'add %t, %t, %t, lsl #1', 'add %hp, %k, %t, lsl #3',
         f'add %hp, %hp, #{HP}']
    L += ghash_block(g, with_y=True, first=True)
    L += ['subs %n, %n, #1', 'beq 3f', '2:']
    L += ghash_block(g, with_y=False, first=False)
    L += ['subs %n, %n, #1', 'bne 2b', '3:']
    L += reduction(g)
    L.append(f'vst1.8 {dd(g.Y)}, [%y]')
    return L


class LRegs:
    """lanes kernels: up to five blocks, no callee-saved registers"""
    LANES = [0, 1, 2, 3, 8]
    KEYS = [9, 10]
    IN = [11, 12]


def k_lanes(nl, nd):
    """AES of `nl` blocks from the scratch area with the key's own round count (a public
    branch, as the Linux driver does); lanes 0..nd XORed with src into dst, the others
    written back to the scratch area (E(K, J0) and plain block encryptions)"""
    lanes = LRegs.LANES[:nl]
    K = LRegs.KEYS
    L = []
    for b in lanes:
        L.append(f'vld1.8 {dd(b)}, [%scr]!')
    L += [f'sub %scr, %scr, #{16 * nl}', f'ldr %t, [%k, #{ROUNDS}]', 'mov %kp, %k']

    def rnd(key, last=False):
        R = []
        for b in lanes:
            R.append(f'aese.8 q{b}, q{key}')
            if not last:
                R.append(f'aesmc.8 q{b}, q{b}')
        return R
    # extra rounds of AES-192 (2) and AES-256 (4) first, then the ten of AES-128
    L += ['cmp %t, #12', 'blt 5f']
    for _ in range(2):
        L += [f'vld1.64 {dd(K[0])}, [%kp]!'] + rnd(K[0])
    L += ['beq 5f']
    for _ in range(2):
        L += [f'vld1.64 {dd(K[0])}, [%kp]!'] + rnd(K[0])
    L.append('5:')
    L.append(f'vld1.64 {{d{2 * K[0]}-d{2 * K[1] + 1}}}, [%kp]!')
    for r in range(9):
        key = K[r % 2]
        L += rnd(key)
        L.append(f'vld1.64 {dd(key)}, [%kp]!')
    # final round with key 9 (in K[1]), last key (loaded into K[0])
    L += rnd(K[1], last=True)
    a = LRegs.IN[0]
    for i, b in enumerate(lanes):
        if i < nd:
            L += [f'vld1.8 {dd(a)}, [%src]!', f'veor q{a}, q{a}, q{K[0]}',
                  f'veor q{b}, q{b}, q{a}', f'vst1.8 {dd(b)}, [%dst]!']
    for i, b in enumerate(lanes):
        if i >= nd:
            L += [f'veor q{b}, q{b}, q{K[0]}', f'add %t, %scr, #{16 * i}',
                  f'vst1.8 {dd(b)}, [%t]']
    return L


# ------------------------------------------------------------------ Rust output
def concrete(lines, regs):
    """the asm! template strings: braces escaped, %name -> {name}"""
    out = []
    for l in lines:
        s = l.replace('{', '{{').replace('}', '}}')
        for name in sorted(regs, key=len, reverse=True):
            s = s.replace('%' + name, '{' + name + '}')
        assert '%' not in s, s
        out.append(s)
    return out


def uses_callee_saved(lines):
    """whether any of q4-q7 (d8-d15) appears, also inside a d-register range"""
    for l in lines:
        for kind, a, b in re.findall(r'\b([qd])(\d+)(?:-d(\d+))?\b', l):
            lo = int(a) * (2 if kind == 'q' else 1)
            hi = int(b) if b else lo + (1 if kind == 'q' else 0)
            if lo <= 15 and hi >= 8:
                return True
    return False


def clobbers(lines):
    c = [f'            out("d{i}") _,' for i in range(8)]
    if uses_callee_saved(lines):
        c += [f'            out("d{i}") _,' for i in range(8, 16)]
    c += [f'            out("q{i}") _,' for i in range(8, 16)]
    return c


def rust_fn(name, doc, safety, params, operands, lines):
    o = [f'/// {doc}', '///', '/// # Safety']
    o += [f'/// {s}' for s in safety]
    o.append('#[inline(never)]')
    if len(params) > 7:
        o.append('#[allow(clippy::too_many_arguments)]')
    # operands the template does not name are dropped (their parameter kept, unused)
    used = {op.split('=')[0].strip() for op in operands if '%' + op.split('=')[0].strip() in
            ' '.join(lines)}
    operands = [op for op in operands if op.split('=')[0].strip() in used]
    bound = {op.split(')')[-1].split('=>')[0].strip() for op in operands}
    params = [p if p.split(':')[0] in bound else '_' + p for p in params]
    sig = f'pub(super) unsafe fn {name}({", ".join(params)}) {{'
    if len(sig) <= 100:     # rustfmt's layout
        o.append(sig)
    else:
        o.append(f'pub(super) unsafe fn {name}(')
        o += [f'    {p},' for p in params]
        o.append(') {')
    o.append('    // SAFETY: the caller upholds the contract above; the CPU has the AArch32')
    o.append('    // crypto extensions (checked before the key was made).')
    o.append('    unsafe {')
    o.append('        core::arch::asm!(')
    o.append('            ".arch armv8-a",')
    o.append('            ".fpu crypto-neon-fp-armv8",')
    names = [op.split('=')[0].strip() for op in operands]
    for s in concrete(lines, names):
        o.append(f'            "{s}",')
    o.append('            ".arch armv7-a",')
    o.append('            ".fpu neon",')
    for op in operands:
        o.append(f'            {op},')
    o += clobbers(lines)
    o.append('            options(nostack),')
    o.append('        );')
    o.append('    }')
    o.append('}')
    return o


KEY_SAFETY = '`k` points to a [`super::key::CeKey`];'
LOOP_OPS_IN = ['k = in(reg) k', 'src = inout(reg) src => _', 'dst = inout(reg) dst => _',
               'n = inout(reg) groups => _', 'scr = in(reg) scr', 'c = inout(reg) c => _',
               't = out(reg) _', 'kp = out(reg) _']
SIZES = {10: 128, 12: 192, 14: 256}


def kernels():
    fns = []
    for enc in (True, False):
        for R in (10, 12, 14):
            d = 'encrypt' if enc else 'decrypt'
            fns.append(rust_fn(
                f'kernel_{"enc" if enc else "dec"}_aes{SIZES[R]}',
                f'AES-{SIZES[R]}-GCM {d}ion of `groups` groups of four blocks, CTR and GHASH '
                f'stitched (GHASH of the {"previous group" if enc else "same group"}).',
                [KEY_SAFETY,
                 '`src`/`dst` hold `64 * groups` bytes (equal or disjoint), `groups` > 0;',
                 '`scr` is a [`super::crypt::Scratch`] holding the first group\'s counter',
                 'blocks and the GHASH state; `c` is the 32-bit counter of the block after',
                 'the first group.'],
                ['k: *const u8', 'src: *const u8', 'dst: *mut u8', 'groups: usize',
                 'scr: *mut u8', 'c: u32'],
                LOOP_OPS_IN + ['hp = out(reg) _', 'gp = out(reg) _'],
                k_stitched(R, enc)))
    for R in (10, 12, 14):
        fns.append(rust_fn(
            f'kernel_ctr_aes{SIZES[R]}',
            f'AES-{SIZES[R]}-CTR (keystream only) of `groups` groups of four blocks.',
            [KEY_SAFETY,
             '`src`/`dst` hold `64 * groups` bytes (equal or disjoint), `groups` > 0;',
             '`scr` holds the first group\'s counter blocks; `c` is the 32-bit counter of',
             'the block after the first group.'],
            ['k: *const u8', 'src: *const u8', 'dst: *mut u8', 'groups: usize',
             'scr: *mut u8', 'c: u32'],
            LOOP_OPS_IN, k_ctr(R)))
    fns.append(rust_fn(
        'kernel_ghash', 'GHASH of `iters` times eight blocks, one reduction per eight.',
        [KEY_SAFETY, '`data` holds `128 * iters` bytes, `iters` > 0; `y` is the GHASH',
         'state in kernel form (16 bytes).'],
        ['k: *const u8', 'data: *const u8', 'iters: usize', 'y: *mut u8'],
        ['k = in(reg) k', 'gp = inout(reg) data => _', 'n = inout(reg) iters => _',
         'y = in(reg) y', 't = out(reg) _', 'hp = out(reg) _'], k_ghash8()))
    fns.append(rust_fn(
        'ghash_blocks', 'GHASH of 1..=8 blocks with H^n..H^1 and one reduction.',
        [KEY_SAFETY, '`data` holds `16 * n` bytes, 1 <= `n` <= 8; `y` is the GHASH state',
         'in kernel form (16 bytes).'],
        ['k: *const u8', 'data: *const u8', 'n: usize', 'y: *mut u8'],
        ['k = in(reg) k', 'gp = inout(reg) data => _', 'n = inout(reg) n => _',
         'y = in(reg) y', 't = out(reg) _', 'hp = out(reg) _'], k_ghash_n()))
    for nl, nd in LANES:
        what = (f'{nd} block{"s" if nd > 1 else ""} of CTR' if nd else '') + \
            (' and ' if nd and nl > nd else '') + \
            (f'{nl - nd} block{"s" if nl - nd > 1 else ""} encrypted in place' if nl > nd else '')
        fns.append(rust_fn(
            f'lanes_{nl}_{nd}',
            f'AES of {nl} block{"s" if nl > 1 else ""} side by side: {what}.',
            [KEY_SAFETY,
             f'`scr` holds {nl} blocks (16-byte aligned): counter blocks for the first {nd},',
             'blocks to encrypt in place for the rest;',
             f'`src`/`dst` hold {16 * nd} bytes (equal or disjoint).'],
            ['k: *const u8', 'scr: *mut u8', 'src: *const u8', 'dst: *mut u8'],
            ['k = in(reg) k', 'scr = in(reg) scr', 'src = inout(reg) src => _',
             'dst = inout(reg) dst => _', 't = out(reg) _', 'kp = out(reg) _'],
            k_lanes(nl, nd)))
    return fns


# (lanes, data lanes): CTR tails of 1..=4 blocks with and without an E(K, J0) lane, and
# one or two blocks encrypted in place.
LANES = [(1, 0), (2, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4), (5, 4)]


def rust_file():
    o = ['// @generated by src/backend/arm/ce/gen_kernels.py -- edit that, not this file, and re-run',
         '// it (`--verify` checks that this file is what it generates).',
         '//! The `asm!` kernels of `arm-ce` (see gen_kernels.py for the conventions they',
         '//! share and `mod.rs` for the method).',
         '']
    for f in kernels():
        o += f
        o.append('')
    return '\n'.join(o).rstrip() + '\n'


def mca_body(kind, R, fused):
    if kind == 'ghash':
        L = k_ghash8()
    else:
        L = k_stitched(R, kind == 'enc') if kind != 'ctr' else k_ctr(R)
    L = L[L.index('2:') + 1:]
    L = L[:L.index('bne 2b') + 1]
    regs = {'k': 'r0', 'src': 'r1', 'dst': 'r2', 'n': 'r3', 'scr': 'r4', 'c': 'r5',
            't': 'r6', 'kp': 'r7', 'hp': 'r8', 'gp': 'r9', 'y': 'r10'}
    out = []
    for l in L:
        for name in sorted(regs, key=len, reverse=True):
            l = l.replace('%' + name, regs[name])
        if fused and l.startswith('aesmc'):
            continue
        out.append(l.replace('bne 2b', 'bne .'))
    return out


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == '--mca':
        rounds = next((int(a) for a in sys.argv[3:] if a.isdigit()), 10)
        print('\n'.join(mca_body(sys.argv[2], rounds, 'fused' in sys.argv[3:])))
    elif sys.argv[1:] == ['--verify']:
        same = os.path.exists(OUT) and open(OUT).read() == rust_file()
        print(f'{os.path.relpath(OUT)}: ' + ('up to date' if same else 'STALE (run the generator)'),
              file=sys.stderr)
        sys.exit(0 if same else 1)
    elif len(sys.argv) == 1:
        with open(OUT, 'w') as fh:
            fh.write(rust_file())
    else:
        sys.exit(__doc__)
