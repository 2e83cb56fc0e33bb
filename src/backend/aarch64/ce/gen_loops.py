#!/usr/bin/env python3
"""Generates loops.rs: the steady-state loops of the aarch64-ce(-eor3) kernels as one
`asm!` block per key size and direction, scheduled for the crypto pipe.

Run from the repository root:  python3 src/backend/aarch64/ce/gen_loops.py > src/backend/aarch64/ce/loops.rs
Print one loop body for llvm-mca:  python3 src/backend/aarch64/ce/gen_loops.py --mca 10 enc fused

Why generated: the AES rounds, GHASH sub-steps, counter set-up and output of one group
are interleaved instruction by instruction (see `K.loop`), per key size, direction and
variant; writing that by hand twelve times is error-prone, and LLVM does not keep such an
order (the reasons for the order are in the comment of `crypt_groups` in aarch64/ce.rs).

Registers: v0-v7 the eight AES states; v8-v18 round keys 0..10 (resident); two rotating
registers for the keys beyond 10 (AES-192/256); v31 the GHASH accumulator y; then the
Karatsuba accumulators lo/mid/hi and temporaries. The pre-XORed inputs of the next group
(`PR`) reuse the GHASH temporaries, so GHASH must be complete before `prexor`.
General registers: {key} CeKey, {src}/{dst} the current group, {n} loop count, {ctr} the
native 32-bit counter of the next block, {ivlo}/{iv2} the fixed counter-block bytes 0..12,
{t0}/{t1}/{gp} scratch.
"""
import sys

HP = 640        # offset of the pair-form H powers in CeKey
POLY = HP + 192  # 0x87 in both lanes, then a zero vector


class K:
    def __init__(self, R, enc, x3, gfrac=0.7, lead=0, res=11):
        self.R, self.enc, self.x3 = R, enc, x3
        nk = R + 1
        self.res = {i: 8 + i for i in range(min(nk, res))}
        free = [r for r in range(8 + len(self.res), 31)]
        self.Y = 31
        self.rot = []
        if nk > len(self.res):
            self.rot = [free.pop(0), free.pop(0)]
        self.LO, self.MID, self.HI = free.pop(0), free.pop(0), free.pop(0)
        self.T = free
        assert len(self.T) >= 7
        self.PR = (self.T + [self.LO, self.MID, self.HI])[:8]
        self.ri = 0
        self.gfrac, self.lead = gfrac, lead

    def key(self, i, out):
        """register holding round key i; emits a load into `out` when not resident"""
        if i in self.res:
            return self.res[i]
        r = self.rot[self.ri % 2]
        self.ri += 1
        out.append(f'ldr q{r}, [{{key}}, #{16 * i}]')
        return r

    # ---- pieces
    def counters(self):
        """per block: list of GPR+fmov lines building counter block b in v_b"""
        per = []
        for b in range(8):
            t = '{t0}' if b % 2 == 0 else '{t1}'
            tw = '{t0:w}' if b % 2 == 0 else '{t1:w}'
            L = []
            if b == 0:
                L.append(f'rev {tw}, {{ctr:w}}')
            else:
                L.append(f'add {tw}, {{ctr:w}}, #{b}')
                L.append(f'rev {tw}, {tw}')
            L.append(f'orr {t}, {{iv2}}, {t}, lsl #32')
            L.append(f'fmov d{b}, {{ivlo}}')
            L.append(f'fmov v{b}.d[1], {t}')
            if b == 7:
                L.append('add {ctr:w}, {ctr:w}, #8')
            per.append(L)
        return per

    def round_units(self, r, pre):
        """8 crypto units of round r (aese+aesmc), key load into pre"""
        k = self.key(r, pre)
        U = []
        for b in range(8):
            if r < self.R - 1:
                U.append([f'aese v{b}.16b, v{k}.16b', f'aesmc v{b}.16b, v{b}.16b'])
            else:
                U.append([f'aese v{b}.16b, v{k}.16b'])
        return U

    def prexor(self, srcoff):
        """in'_b = in_b ^ rk_R into PR regs, from {src}+srcoff"""
        L = []
        kl = None if self.x3 else self.key(self.R, L)
        for p in range(4):
            a, b = self.PR[2 * p], self.PR[2 * p + 1]
            L.append(f'ldp q{a}, q{b}, [{{src}}, #{srcoff + 32 * p}]')
            if not self.x3:
                L.append(f'eor v{a}.16b, v{a}.16b, v{kl}.16b')
                L.append(f'eor v{b}.16b, v{b}.16b, v{kl}.16b')
        return L

    def last_key(self, out):
        """EOR3 variant: the last round key for the outputs, in a resident register or
        loaded into the second rotating register (the first holds round R-1's key)"""
        if self.R in self.res:
            self.kl = self.res[self.R]
        else:
            self.kl = self.rot[1]
            out.append(f'ldr q{self.kl}, [{{key}}, #{16 * self.R}]')

    def outputs(self):
        """per block: eor (+stp after odd blocks)"""
        per = []
        for b in range(8):
            L = []
            if self.x3:
                L.append(f'eor3 v{b}.16b, v{b}.16b, v{self.PR[b]}.16b, v{self.kl}.16b')
            else:
                L.append(f'eor v{b}.16b, v{b}.16b, v{self.PR[b]}.16b')
            if b % 2 == 1:
                L.append(f'stp q{b - 1}, q{b}, [{{dst}}, #{16 * (b - 1)}]')
            per.append(L)
        return per

    def ghash(self):
        gh = []
        LO, MID, HI, Y = self.LO, self.MID, self.HI, self.Y
        t0, t1, t2, t3, t4, t5, t6 = self.T[:7]
        x3 = self.x3
        if self.enc:
            gh.append('sub {gp}, {dst}, #128')
        else:
            gh.append('add {gp}, {src}, #128')
        for j in range(4):
            if j == 0:
                gh.append(f'ldp q{t0}, q{t1}, [{{gp}}], #32')
                gh.append(f'rbit v{t0}.16b, v{t0}.16b')
                gh.append(f'rbit v{t1}.16b, v{t1}.16b')
                gh.append(f'eor v{t0}.16b, v{t0}.16b, v{Y}.16b')
                gh.append(f'trn1 v{t2}.2d, v{t0}.2d, v{t1}.2d')
                gh.append(f'trn2 v{t3}.2d, v{t0}.2d, v{t1}.2d')
                tt, uu = t2, t3
            else:
                gh.append(f'ld2 {{{{v{t0}.2d, v{t1}.2d}}}}, [{{gp}}], #32')
                gh.append(f'rbit v{t0}.16b, v{t0}.16b')
                gh.append(f'rbit v{t1}.16b, v{t1}.16b')
                tt, uu = t0, t1
            kk = t4
            gh.append(f'eor v{kk}.16b, v{tt}.16b, v{uu}.16b')
            gh.append(f'ldp q{t5}, q{t6}, [{{key}}, #{HP + 48 * j}]')
            if j == 0:
                gh.append(f'pmull v{LO}.1q, v{tt}.1d, v{t5}.1d')
                gh.append(f'pmull2 v{tt}.1q, v{tt}.2d, v{t5}.2d')
                gh.append(f'pmull v{HI}.1q, v{uu}.1d, v{t6}.1d')
                gh.append(f'pmull2 v{uu}.1q, v{uu}.2d, v{t6}.2d')
                gh.append(f'ldr q{t5}, [{{key}}, #{HP + 48 * j + 32}]')
                gh.append(f'eor v{LO}.16b, v{LO}.16b, v{tt}.16b')
                gh.append(f'pmull v{MID}.1q, v{kk}.1d, v{t5}.1d')
                gh.append(f'pmull2 v{kk}.1q, v{kk}.2d, v{t5}.2d')
                gh.append(f'eor v{HI}.16b, v{HI}.16b, v{uu}.16b')
                gh.append(f'eor v{MID}.16b, v{MID}.16b, v{kk}.16b')
            else:
                pa, pb = (t3, t2) if j != 0 else (None, None)
                gh.append(f'pmull v{pa}.1q, v{tt}.1d, v{t5}.1d')
                gh.append(f'pmull2 v{tt}.1q, v{tt}.2d, v{t5}.2d')
                gh.append(f'pmull v{pb}.1q, v{uu}.1d, v{t6}.1d')
                gh.append(f'pmull2 v{uu}.1q, v{uu}.2d, v{t6}.2d')
                gh.append(f'ldr q{t5}, [{{key}}, #{HP + 48 * j + 32}]')
                if x3:
                    gh.append(f'eor3 v{LO}.16b, v{LO}.16b, v{pa}.16b, v{tt}.16b')
                    gh.append(f'eor3 v{HI}.16b, v{HI}.16b, v{pb}.16b, v{uu}.16b')
                else:
                    gh.append(f'eor v{LO}.16b, v{LO}.16b, v{pa}.16b')
                    gh.append(f'eor v{HI}.16b, v{HI}.16b, v{pb}.16b')
                gh.append(f'pmull v{t6}.1q, v{kk}.1d, v{t5}.1d')
                gh.append(f'pmull2 v{kk}.1q, v{kk}.2d, v{t5}.2d')
                if x3:
                    gh.append(f'eor3 v{MID}.16b, v{MID}.16b, v{t6}.16b, v{kk}.16b')
                else:
                    gh.append(f'eor v{LO}.16b, v{LO}.16b, v{tt}.16b')
                    gh.append(f'eor v{HI}.16b, v{HI}.16b, v{uu}.16b')
                    gh.append(f'eor v{MID}.16b, v{MID}.16b, v{t6}.16b')
                    gh.append(f'eor v{MID}.16b, v{MID}.16b, v{kk}.16b')
        # reduction (natural bit order): T = w3*P; A = mid^lo^hi^T; B = A ^ swap(hi);
        # y = lo ^ (0, A0) ^ B1*P
        gh.append(f'ldp q{t5}, q{t6}, [{{key}}, #{POLY}]')
        gh.append(f'pmull2 v{t0}.1q, v{HI}.2d, v{t5}.2d')
        gh.append(f'ext v{t1}.16b, v{HI}.16b, v{HI}.16b, #8')
        if x3:
            gh.append(f'eor3 v{MID}.16b, v{MID}.16b, v{LO}.16b, v{HI}.16b')
        else:
            gh.append(f'eor v{MID}.16b, v{MID}.16b, v{LO}.16b')
            gh.append(f'eor v{MID}.16b, v{MID}.16b, v{HI}.16b')
        gh.append(f'eor v{MID}.16b, v{MID}.16b, v{t0}.16b')
        gh.append(f'eor v{t1}.16b, v{t1}.16b, v{MID}.16b')
        gh.append(f'pmull2 v{t1}.1q, v{t1}.2d, v{t5}.2d')
        gh.append(f'ext v{t2}.16b, v{t6}.16b, v{MID}.16b, #8')
        if x3:
            gh.append(f'eor3 v{Y}.16b, v{LO}.16b, v{t2}.16b, v{t1}.16b')
        else:
            gh.append(f'eor v{LO}.16b, v{LO}.16b, v{t2}.16b')
            gh.append(f'eor v{Y}.16b, v{LO}.16b, v{t1}.16b')
        return gh

    # ---- assembly of the loop body
    def loop(self):
        """rotated loop body: finish the current group, start the next one"""
        R = self.R
        self.ri = 0
        body = []
        pre0 = []
        fin = self.round_units(R - 1, pre0)       # final round of current group
        if self.x3:
            self.last_key(pre0)
        outs = self.outputs()
        ctrs = self.counters()
        r0 = self.round_units(0, [])
        body += pre0
        # part A: final AESE of blocks 0..3 (F), then per pair: the two output XORs and
        # the store (E), then per block its next counter (C), its round 0 (A) and F_{b+4}
        lagA = 4
        for b in range(lagA):
            body += fin[b]
        # (block b's register is free for its next counter only after the store of
        # the pair it belongs to)
        for p in range(4):
            body += outs[2 * p] + outs[2 * p + 1]
            for b in (2 * p, 2 * p + 1):
                body += ctrs[b] + r0[b]
                if b + lagA < 8:
                    body += fin[b + lagA]
        # rounds 1..R-2 with GHASH interleaved, then prexor of the next group
        units = []
        for r in range(1, R - 1):
            pre = []
            U = self.round_units(r, pre)
            U[0] = pre + U[0]
            units += U
        gh = self.ghash()
        px = self.prexor(128)
        n = len(gh)
        span = max(1, int(len(units) * self.gfrac))
        gi = 0
        for ci, u in enumerate(units, 1):
            body += u
            if ci <= span:
                want = min(n, (ci * n) // span + self.lead)
                while gi < want:
                    body.append(gh[gi]); gi += 1
            if ci == span:
                body += gh[gi:]; gi = n
                body += px
        body += ['add {src}, {src}, #128', 'add {dst}, {dst}, #128', 'subs {n}, {n}, #1']
        return body

    def prologue(self):
        self.ri = 0
        L = []
        ks = sorted(self.res)
        for i in range(0, len(ks) - 1, 2):
            L.append(f'ldp q{self.res[ks[i]]}, q{self.res[ks[i + 1]]}, [{{key}}, #{16 * ks[i]}]')
        if len(ks) % 2:
            L.append(f'ldr q{self.res[ks[-1]]}, [{{key}}, #{16 * ks[-1]}]')
        ctrs = self.counters()
        for b in range(8):
            L += ctrs[b]
        for r in range(R_ := self.R - 1):
            pre = []
            U = self.round_units(r, pre)
            L += pre
            for u in U:
                L += u
        L += self.prexor(0)
        return L

    def epilogue(self):
        L = []
        self.ri = 0
        fin = self.round_units(self.R - 1, L)
        if self.x3:
            self.last_key(L)
        for u in fin:
            L += u
        for o in self.outputs():
            L += o
        return L


REGS = {'key': 'x0', 'src': 'x1', 'dst': 'x2', 'ctr': 'x3', 'ivlo': 'x4', 'iv2': 'x5', 't0': 'x6',
        't1': 'x7', 'gp': 'x9', 'n': 'x10'}


def concrete(lines):
    o = []
    for l in lines:
        s = l
        for k, v in REGS.items():
            s = s.replace('{' + k + ':w}', 'w' + v[1:]).replace('{' + k + '}', v)
        s = s.replace('{{', '{').replace('}}', '}')
        o.append(s)
    return o


GFRAC = 0.7   # GHASH spread over the first 70 % of the rounds (best of a sweep, N1 model)


def rust_fn(R, enc, x3):
    k = K(R, enc, x3, gfrac=GFRAC)
    pro = k.prologue()
    loop = k.loop()
    epi = k.epilogue()
    name = f"{'enc' if enc else 'dec'}_{R}{'_eor3' if x3 else ''}"
    o = []
    o.append(f'/// Groups of eight blocks, AES with {R} rounds, {"encryption" if enc else "decryption"}; see the module comment.')
    o.append('#[inline(always)]')
    o.append(f'pub(super) unsafe fn {name}(a: &mut LoopArgs) {{')
    o.append('    // SAFETY: the caller upholds `LoopArgs`\' contract (pointers, group count, CPU).')
    o.append('    unsafe {')
    o.append('        core::arch::asm!(')
    def emit(lines):
        for l in lines:
            o.append(f'            "{l}",')
    emit(pro)
    o.append('            "cbz {n}, 3f",')
    o.append('            "2:",')
    emit(loop)
    o.append('            "b.ne 2b",')
    o.append('            "3:",')
    emit(epi)
    o.append('            key = in(reg) a.key,')
    o.append('            src = inout(reg) a.src => _,')
    o.append('            dst = inout(reg) a.dst => _,')
    o.append('            n = inout(reg) a.groups - 1 => _,')
    o.append('            ctr = inout(reg) a.ctr,')
    o.append('            ivlo = in(reg) a.ivlo,')
    o.append('            iv2 = in(reg) a.iv2,')
    o.append('            t0 = out(reg) _,')
    o.append('            t1 = out(reg) _,')
    o.append('            gp = out(reg) _,')
    o.append('            inout("v31") a.y,')
    for v in range(31):
        o.append(f'            out("v{v}") _,')
    o.append('            options(nostack),')
    o.append('        );')
    o.append('    }')
    o.append('}')
    return o


def rust_file():
    o = ['// @generated by src/backend/aarch64/ce/gen_loops.py -- edit that, not this file.',
         '//! Scheduled steady-state loops of the stitched kernels (see gen_loops.py and',
         '//! the comment of `aarch64/ce.rs`).',
         '',
         'use super::LoopArgs;',
         '']
    for x3 in (False, True):
        for R in (10, 12, 14):
            for enc in (True, False):
                o += rust_fn(R, enc, x3)
                o.append('')
    return '\n'.join(o).rstrip() + '\n'


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--mca':
        R = int(sys.argv[2]); enc = sys.argv[3] == 'enc'; fused = sys.argv[4] == 'fused'
        kw = {'gfrac': GFRAC}
        x3 = False
        if len(sys.argv) > 5 and sys.argv[5] == 'eor3':
            x3 = True
            del sys.argv[5]
        for a in sys.argv[5:]:
            k_, v_ = a.split('=')
            kw[k_] = float(v_) if '.' in v_ else int(v_)
        k = K(R, enc, x3, **kw)
        k.prologue()
        L = concrete(k.loop())
        if fused:
            L = [l for l in L if not l.startswith('aesmc')]
        print('\n'.join(L))
        print('b.ne .')
    else:
        sys.stdout.write(rust_file())
