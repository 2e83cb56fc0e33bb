"""The check gen_kernels.py runs before it writes anything: a small interpreter of the
generated NEON instruction text (`Machine`, only the instructions the kernels use) runs
each kernel on random keys, data, GHASH states and counters (one near a 32-bit wrap)
against a plain Python AES (FIPS-197) and GHASH (SP 800-38D's algorithm); the key
material and constant table are built as key.rs and run.rs build them.
"""
import re

from neon_prog import (C_CTR, C_FIN, C_K16, C_K32, C_K48, C_M0F, C_M33, C_M55, C_ONE, C_SR,
                       CONST_BYTES, HPOW_BYTES, K_ROUNDS, R_CONST, R_DST, R_H, R_KEY, R_KEY2, R_N,
                       R_SCR, R_SRC, R_Y, S_CTR, V_IN, V_INV, V_K16, V_K32, V_K48, V_LAST,
                       V_LOW, V_MID, V_MID2, V_ONE, V_OUT, V_SR, V_TIN, V_ZINV, VCONST_BYTES)

M64 = (1 << 64) - 1


class Machine:
    def __init__(self, mem, regs):
        self.d = [0] * 32
        self.mem = mem          # bytearray
        self.r = dict(regs)
        self.z = self.lt = False

    def q(self, n):
        return self.d[2 * n] | (self.d[2 * n + 1] << 64)

    def setq(self, n, v):
        self.d[2 * n], self.d[2 * n + 1] = v & M64, v >> 64

    def run(self, lines):
        labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(':')}
        pc = 0
        while pc < len(lines):
            l = lines[pc]
            pc += 1
            if l.endswith(':'):
                continue
            m, _, rest = l.partition(' ')
            a = [x.strip() for x in re.split(r',\s*(?![^{]*})(?![^\[]*\])', rest)]
            if m in ('bne', 'beq', 'blt'):
                if {'bne': not self.z, 'beq': self.z, 'blt': self.lt}[m]:
                    pc = labels[a[0][:-1]]
                continue
            if m == 'cmp':   # small non-negative values only
                imm = int(a[1][1:])
                self.z, self.lt = self.r[a[0]] == imm, self.r[a[0]] < imm
                continue
            if m == 'add' and len(a) == 4:   # add rd, rn, rm, lsl #k (flags kept)
                sh = int(a[3].split('#')[1])
                self.r[a[0]] = (self.r[a[1]] + (self.r[a[2]] << sh)) & 0xffffffff
                continue
            if m in ('add', 'sub', 'subs'):
                imm = int(a[2][1:])
                self.r.setdefault(a[0], 0)
                self.r[a[0]] = (self.r[a[1]] + (imm if m == 'add' else -imm)) & 0xffffffff
                if m == 'subs':
                    self.z = self.r[a[0]] == 0
                continue
            if m == 'ldr':
                mm = re.match(r'\[(\w+), #(-?\d+)\]', a[1])
                addr = self.r[mm.group(1)] + int(mm.group(2))
                self.r[a[0]] = int.from_bytes(self.mem[addr:addr + 4], 'little')
                continue
            self.neon(m, a)

    def rd(self, x):
        if x[0] == 'q':
            return self.q(int(x[1:])), 128
        return self.d[int(x[1:])], 64

    def wr(self, x, v):
        if x[0] == 'q':
            self.setq(int(x[1:]), v & ((1 << 128) - 1))
        else:
            self.d[int(x[1:])] = v & M64

    def neon(self, m, a):
        if m in ('vld1.8', 'vst1.8', 'vst1.64'):
            dd = [int(x) for x in re.findall(r'd(\d+)', a[0])]
            base = a[1].rstrip('!').strip('[]')
            addr = self.r[base]
            for k, dn in enumerate(dd):
                if m == 'vld1.8':
                    self.d[dn] = int.from_bytes(self.mem[addr + 8 * k:addr + 8 * k + 8], 'little')
                else:
                    self.mem[addr + 8 * k:addr + 8 * k + 8] = self.d[dn].to_bytes(8, 'little')
            if a[1].endswith('!'):
                self.r[base] = addr + 8 * len(dd)
            return
        if m == 'vstmia':   # vstmia rn, {dA-dB}
            lo, hi = (int(x) for x in re.findall(r'd(\d+)', a[1]))
            for k, dn in enumerate(range(lo, hi + 1)):
                self.mem[self.r[a[0]] + 8 * k:self.r[a[0]] + 8 * k + 8] = self.d[dn].to_bytes(8, 'little')
            return
        if m in ('vldr', 'vstr'):
            mm = re.match(r'\[(\w+), #(-?\d+)\]', a[1])
            addr = self.r[mm.group(1)] + int(mm.group(2))
            if m == 'vldr':
                self.wr(a[0], int.from_bytes(self.mem[addr:addr + 8], 'little'))
            else:
                self.mem[addr:addr + 8] = self.d[int(a[0][1:])].to_bytes(8, 'little')
            return
        if m in ('veor', 'vand', 'vorn'):
            x, w = self.rd(a[1])
            y, _ = self.rd(a[2])
            self.wr(a[0], {'veor': x ^ y, 'vand': x & y, 'vorn': x | (~y & ((1 << w) - 1))}[m])
        elif m == 'vmov':
            self.wr(a[0], self.rd(a[1])[0])
        elif m in ('vmov.i64', 'vmov.i8'):
            assert a[1] == '#0'
            self.wr(a[0], 0)
        elif m == 'vorr':
            x, _ = self.rd(a[1])
            y, _ = self.rd(a[2])
            self.wr(a[0], x | y)
        elif m == 'vrev32.8':
            b = self.rd(a[1])[0].to_bytes(16, 'little')
            self.wr(a[0], int.from_bytes(b''.join(b[i:i + 4][::-1] for i in range(0, 16, 4)), 'little'))
        elif m == 'vshr.u8':
            x, w = self.rd(a[1])
            s = int(a[2][1:])
            self.wr(a[0], int.from_bytes(bytes(b >> s for b in x.to_bytes(w // 8, 'little')), 'little'))
        elif m in ('vshr.u64', 'vshl.i64'):
            x, w = self.rd(a[1])
            s = int(a[2][1:])
            lanes = [(x >> (64 * k)) & M64 for k in range(w // 64)]
            lanes = [(l >> s) if m == 'vshr.u64' else ((l << s) & M64) for l in lanes]
            self.wr(a[0], sum(l << (64 * k) for k, l in enumerate(lanes)))
        elif m == 'vext.8':
            x, w = self.rd(a[1])
            n = w // 8
            k = int(a[3][1:])
            b = x.to_bytes(n, 'little')
            self.wr(a[0], int.from_bytes(bytes(b[(i + k) % n] for i in range(n)), 'little'))
        elif m == 'vrev64.8':
            x, w = self.rd(a[1])
            b = x.to_bytes(16, 'little')
            self.wr(a[0], int.from_bytes(b[7::-1] + b[15:7:-1], 'little'))
        elif m == 'vadd.i32':
            x, _ = self.rd(a[1])
            y, _ = self.rd(a[2])
            self.wr(a[0], sum((((x >> (32 * k)) + (y >> (32 * k))) & 0xffffffff) << (32 * k) for k in range(4)))
        elif m == 'vtbl.8':
            t = re.findall(r'd(\d+)', a[1])
            tb = b''.join(self.d[int(i)].to_bytes(8, 'little') for i in t)
            idx = self.rd(a[2])[0].to_bytes(8, 'little')
            self.wr(a[0], int.from_bytes(bytes(tb[i] if i < len(tb) else 0 for i in idx), 'little'))
        elif m == 'vmull.p8':
            x = self.rd(a[1])[0].to_bytes(8, 'little')
            y = self.rd(a[2])[0].to_bytes(8, 'little')
            self.wr(a[0], sum(clmul(x[k], y[k]) << (16 * k) for k in range(8)))
        else:
            raise ValueError(m)


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


# Reference AES and GHASH (plain Python, for the check only).
def xt(a):
    a <<= 1
    return a ^ 0x11b if a & 0x100 else a


def gmul8(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = xt(a), b >> 1
    return r


SBOX, INV8 = [], []
for _x in range(256):
    _inv = 0 if _x == 0 else next(y for y in range(1, 256) if gmul8(_x, y) == 1)
    INV8.append(_inv)
    _s = _inv
    for _k in range(1, 5):
        _s ^= ((_inv << _k) | (_inv >> (8 - _k))) & 0xff
    SBOX.append(_s ^ 0x63)


def expand(key):
    nk = len(key) // 4
    rounds = nk + 6
    w = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rc = 1
    for i in range(nk, 4 * (rounds + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rc
            rc = xt(rc)
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - nk], t)])
    return [sum(w[4 * r:4 * r + 4], []) for r in range(rounds + 1)], rounds


def aes_ref(key, blk):
    rks, rounds = expand(key)
    s = [a ^ b for a, b in zip(blk, rks[0])]
    for r in range(1, rounds + 1):
        s = [SBOX[b] for b in s]
        s = [s[4 * ((c + r_) % 4) + r_] for c in range(4) for r_ in range(4)]
        if r < rounds:
            n = []
            for c in range(4):
                col = s[4 * c:4 * c + 4]
                for r_ in range(4):
                    n.append(xt(col[r_]) ^ xt(col[(r_ + 1) % 4]) ^ col[(r_ + 1) % 4] ^ col[(r_ + 2) % 4]
                             ^ col[(r_ + 3) % 4])
            s = n
        s = [a ^ b for a, b in zip(s, rks[r])]
    return bytes(s)


def gf_mul(x, y):   # GCM spec algorithm on 128-bit big-endian ints
    z, v = 0, x
    for i in range(127, -1, -1):
        if (y >> i) & 1:
            z ^= v
        v = (v >> 1) ^ (0xe1 << 120) if v & 1 else v >> 1
    return z


def key_material(key):
    """What key.rs computes at key setup (mirrored here): bit-sliced round keys with 0x63
    folded in from round 1 on, and the vmull.p8 operands of H^k·x^-1 (reflected form)."""
    rks, rounds = expand(key)
    mem = bytearray(15 * 128)
    for r in range(rounds + 1):
        k = [b ^ (0x63 if r > 0 else 0) for b in rks[r]]
        for j in range(8):
            for pos in range(16):
                if r < rounds:   # row-major position pos = 4*row + col
                    byte = k[4 * (pos % 4) + pos // 4]
                else:            # column-major
                    byte = k[pos]
                mem[128 * r + 16 * j + pos] = 0xff if (byte >> j) & 1 else 0
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    hm = bytearray(8 * HPOW_BYTES)
    hp = h
    for k in range(8):
        # H·x^-1: in the spec's bit order multiplying by x^-1 is a left shift, folding
        # the carried-out x^-1 back as x^127 + x^6 + x + 1 (the reflected polynomial).
        w = hp << 1
        if w >> 128:
            w = (w ^ (1 << 128)) ^ 0xc2000000000000000000000000000001
        wl, wh = w & M64, w >> 64
        for t, v in enumerate((wl, wh, wl ^ wh)):
            for j in range(5):
                rot = ((v >> (8 * j)) | (v << (64 - 8 * j))) & M64 if j else v
                off = HPOW_BYTES * k + 40 * t + 8 * j
                hm[off:off + 8] = rot.to_bytes(8, 'little')
        hp = gf_mul(hp, h)
    return mem, hm, rounds


def consts():
    c = bytearray(CONST_BYTES)
    c[C_K48:C_K48 + 8] = ((1 << 48) - 1).to_bytes(8, 'little')
    c[C_K32:C_K32 + 8] = ((1 << 32) - 1).to_bytes(8, 'little')
    c[C_K16:C_K16 + 8] = ((1 << 16) - 1).to_bytes(8, 'little')
    c[C_SR:C_SR + 16] = bytes(4 * r + (cc + r) % 4 for r in range(4) for cc in range(4))
    c[C_CTR:C_CTR + 16] = bytes(4 * cc + 3 - r for r in range(4) for cc in range(4))
    fin = [0] * 16
    for cc in range(4):
        for r in range(4):
            fin[4 * cc + r] = 4 * r + (cc + r) % 4
    c[C_FIN:C_FIN + 16] = bytes(fin)
    c[C_M55:C_M55 + 16] = b'\x55' * 16
    c[C_M33:C_M33 + 16] = b'\x33' * 16
    c[C_M0F:C_M0F + 16] = b'\x0f' * 16
    c[C_ONE:C_ONE + 16] = (1 << 96).to_bytes(16, 'little')
    return bytes(c)


# The vector-permute AES of backend/vperm.rs, its tables rebuilt here from the field: GF(2^8)
# over GF(16) as i + k*t, t^2 = t + zeta; GF(16) on the basis 1, w, w^2, w^3 (w = 3^17).
def _pw(a, n):
    r = 1
    for _ in range(n):
        r = gmul8(r, a)
    return r


_W = _pw(3, 17)
_DEC = [0] * 16
for _n in range(16):
    for _b in range(4):
        if (_n >> _b) & 1:
            _DEC[_n] ^= _pw(_W, _b)
_ENC = {y: n for n, y in enumerate(_DEC)}
_T = next(t for t in range(2, 256) if _pw(t, 16) != t and (gmul8(t, t) ^ t) in _ENC)
_ZETA = gmul8(_T, _T) ^ _T
TOWER = [0] * 256
for _i in range(16):
    for _k in range(16):
        TOWER[_DEC[_i] ^ gmul8(_DEC[_k], _T)] = (_i << 4) | _k


def _linear(y):
    r = y
    for s in range(1, 5):
        r ^= ((y << s) | (y >> (8 - s))) & 0xff
    return r


def vconsts():
    """VCONSTS of vperm.rs (layout V_* in neon_prog.py)."""
    c = bytearray(VCONST_BYTES)
    c[V_LOW:V_LOW + 16] = b'\x0f' * 16
    c[V_INV:V_INV + 16] = bytes([0x80] + [_ENC[INV8[_DEC[n]]] for n in range(1, 16)])
    c[V_ZINV:V_ZINV + 16] = bytes([0x80] + [_ENC[INV8[gmul8(_ZETA, _DEC[n])]] for n in range(1, 16)])
    for off, mul, tower in ((V_MID, 1, True), (V_MID2, 2, True), (V_LAST, 1, False)):
        for part, e in enumerate((_ZETA ^ _T, 1 ^ _ZETA ^ _T)):
            for n in range(1, 16):
                v = gmul8(mul, _linear(gmul8(e, INV8[_DEC[n]])))
                c[off + 16 * part + n] = TOWER[v] if tower else v
    for n in range(16):
        c[V_TIN + n], c[V_TIN + 16 + n] = TOWER[n], TOWER[n << 4]
    for r in range(4):
        for col in range(4):
            b = r + 4 * ((col + r) % 4)                 # IN_PERM: standard byte b
            c[V_IN + 4 * r + col] = 4 * (b // 4) + 3 - b % 4  # ... in the native counter
            c[V_SR + 4 * r + col] = 4 * r + (col + r) % 4
            c[V_OUT + r + 4 * col] = 4 * r + (col + r) % 4
    c[V_ONE:V_ONE + 16] = (1 << 96).to_bytes(16, 'little')
    c[V_K48:V_K48 + 8] = ((1 << 48) - 1).to_bytes(8, 'little')
    c[V_K32:V_K32 + 8] = ((1 << 32) - 1).to_bytes(8, 'little')
    c[V_K16:V_K16 + 8] = ((1 << 16) - 1).to_bytes(8, 'little')
    return bytes(c)


def vperm_keys(key):
    """The vector-permute round keys as key.rs stores them."""
    rks, rounds = expand(key)
    mem = bytearray(15 * 16)
    for r in range(rounds + 1):
        for pos in range(16):
            row, col = pos // 4, pos % 4
            if r == 0:
                v = rks[0][row + 4 * ((col + row) % 4)]       # IN_PERM order
            elif r < rounds:
                v = TOWER[rks[r][row + 4 * col] ^ 0x63]
            else:
                v = rks[r][pos] ^ 0x63
            mem[16 * r + pos] = v
    return mem


def ghash_ref(h, y, data):
    for i in range(0, len(data), 16):
        y = gf_mul(y ^ int.from_bytes(data[i:i + 16], 'big'), h)
    return y


def rev64(b):
    return bytes(b[7::-1] + b[15:7:-1])


def check(lines, name, rng):
    if name.startswith(('kernel_seal', 'kernel_open')):
        return check_msg(lines, name, rng)
    if name.startswith('kernel_vperm'):
        return check_vperm(lines, name, rng)
    if name.startswith('kernel_ghash_short'):
        return check_ghash_short(lines, name, rng)
    return check_loop(lines, name, rng)


A_KEY, A_H, A_C, A_S, A_Y, A_SRC, A_DST = 0, 4096, 6144, 8192, 12288, 16384, 32768


def run_kernel(lines, mem, regs):
    Machine(mem, dict({R_KEY: A_KEY, R_KEY2: A_KEY + 1024, R_SRC: A_SRC, R_DST: A_DST, R_H: A_H,
                       R_CONST: A_C, R_SCR: A_S, R_Y: A_Y}, **regs)).run(lines)


def check_vperm(lines, name, rng):
    bits = int(name[-3:])
    lanes = int(name[len('kernel_vperm')])
    key = bytes(rng.randrange(256) for _ in range(bits // 8))
    ctr0 = bytes(rng.randrange(256) for _ in range(12)) + bytes([0xff, 0xff, 0xff, 0xfe])
    mem = bytearray(65536)
    mem[A_KEY:A_KEY + 240] = vperm_keys(key)
    mem[A_C:A_C + VCONST_BYTES] = vconsts()
    mem[A_S + S_CTR:A_S + S_CTR + 16] = b''.join(ctr0[4 * i:4 * i + 4][::-1] for i in range(4))
    run_kernel(lines, mem, {})
    c = int.from_bytes(ctr0[12:], 'big')
    want = b''.join(aes_ref(key, ctr0[:12] + ((c + i) & 0xffffffff).to_bytes(4, 'big'))
                    for i in range(lanes))
    return bytes(mem[A_DST:A_DST + 16 * lanes]) == want


def check_ghash_short(lines, name, rng):
    nb = int(name[len('kernel_ghash_short'):])
    key = bytes(rng.randrange(256) for _ in range(16))
    _, hm, _ = key_material(key)
    data = bytes(rng.randrange(256) for _ in range(16 * nb))
    mem = bytearray(65536)
    mem[A_H:A_H + len(hm)] = hm
    mem[A_C:A_C + CONST_BYTES] = consts()
    mem[A_SRC:A_SRC + len(data)] = data
    run_kernel(lines, mem, {})
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    return int.from_bytes(rev64(bytes(mem[A_Y:A_Y + 16])), 'big') == ghash_ref(h, 0, data)


def check_loop(lines, name, rng):
    if name in ('kernel_ctr', 'kernel_enc', 'kernel_dec'):  # the rolled ones: every key size
        return all(check_loop_key(lines, name, rng, n) for n in (16, 24, 32))
    return check_loop_key(lines, name, rng, 16 if '128' in name or 'ghash' in name else
                          24 if '192' in name else 32)


def check_loop_key(lines, name, rng, key_bytes):
    key = bytes(rng.randrange(256) for _ in range(key_bytes))
    rkm, hm, rounds = key_material(key)
    iters = 2
    nb = 8
    data = bytes(rng.randrange(256) for _ in range(16 * nb * iters))
    y0 = bytes(rng.randrange(256) for _ in range(16))
    ctr0 = bytes(rng.randrange(256) for _ in range(12)) + bytes([0xff, 0xff, 0xff, 0xfb])
    # memory map
    A_KEY, A_H, A_C, A_S, A_Y, A_SRC, A_DST = 0, 4096, 6144, 8192, 12288, 16384, 32768
    mem = bytearray(65536)
    mem[A_KEY:A_KEY + len(rkm)] = rkm
    mem[A_KEY + K_ROUNDS:A_KEY + K_ROUNDS + 4] = rounds.to_bytes(4, 'little')
    mem[A_H:A_H + len(hm)] = hm
    mem[A_C:A_C + CONST_BYTES] = consts()
    mem[A_Y:A_Y + 16] = rev64(y0)
    ctrn = b''.join(ctr0[4 * i:4 * i + 4][::-1] for i in range(4))
    mem[A_S + S_CTR:A_S + S_CTR + 16] = ctrn
    mem[A_SRC:A_SRC + len(data)] = data
    regs = {R_KEY: A_KEY, R_KEY2: A_KEY + 1024, R_SRC: A_SRC, R_DST: A_DST, R_N: 8 * iters, R_H: A_H,
            R_CONST: A_C, R_SCR: A_S, R_Y: A_Y}
    Machine(mem, regs).run(lines)
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    y = int.from_bytes(y0, 'big')
    got_y = int.from_bytes(rev64(bytes(mem[A_Y:A_Y + 16])), 'big')
    ok = True
    if name == 'kernel_ghash':
        ok = got_y == ghash_ref(h, y, data)
    else:
        c = int.from_bytes(ctr0[12:], 'big')
        ks = b''.join(aes_ref(key, ctr0[:12] + ((c + i) & 0xffffffff).to_bytes(4, 'big'))
                      for i in range(nb * iters))
        out = bytes(a ^ b for a, b in zip(data, ks))
        ok = bytes(mem[A_DST:A_DST + len(data)]) == out
        if 'enc' in name:
            ok = ok and got_y == ghash_ref(h, y, out)
        if 'dec' in name:
            ok = ok and got_y == ghash_ref(h, y, data)
        cn = bytes(mem[A_S:A_S + 16])
        ok = ok and b''.join(cn[4 * i:4 * i + 4][::-1] for i in range(4))[12:] == \
            ((c + nb * iters) & 0xffffffff).to_bytes(4, 'big')
    return ok


def check_msg(lines, name, rng):
    """A message kernel (gen_kernels.k_msg) on a random message of its block count, every
    length of the last block: the tag, the output in dst and q1, nothing written past the
    output, sp back where it was and the spill area below it wiped."""
    mm = re.match(r'kernel_(seal|open)(\d)$', name)
    dec, n = mm.group(1) == 'open', int(mm.group(2))
    # every key size through the one kernel
    return all(check_msg_key(lines, dec, n, bits, rng) for bits in (128, 192, 256))


def check_msg_key(lines, dec, n, bits, rng):
    key = bytes(rng.randrange(256) for _ in range(bits // 8))
    _, hm, _ = key_material(key)
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    j0 = bytes(rng.randrange(256) for _ in range(12)) + bytes([0xff, 0xff, 0xff, rng.choice((0xfe, 0xfd, 7))])
    A_J0, SP, A_VKEY = 10240, 61440, 1024
    ok = True
    for left in (range(1, 17) if n else (16,)):
        data = bytes(rng.randrange(256) for _ in range(16 * n))
        data = data[:16 * n - 16 + left] + bytes(16 - left) if n else b''
        xblk = bytes(rng.randrange(256) for _ in range(16))
        lens = [rng.randrange(1 << 64) for _ in range(2)]
        mem = bytearray(65536)
        # the vector-permute keys after the round count (NeonKey.rounds, vrk)
        mem[A_VKEY - 16:A_VKEY - 12] = (len(key) // 4 + 6).to_bytes(4, 'little')
        mem[A_VKEY:A_VKEY + 240] = vperm_keys(key)
        mem[A_H:A_H + len(hm)] = hm
        mem[A_C:A_C + VCONST_BYTES] = vconsts()
        mem[A_J0:A_J0 + 16] = j0
        mem[A_SRC:A_SRC + len(data)] = data
        mem[SP - 1024:SP] = b'\x77' * 1024
        m = Machine(mem, {R_KEY: A_VKEY, R_H: A_H, R_CONST: A_C, 'r1': A_J0, R_SRC: A_SRC,
                          R_DST: A_DST, 'sp': SP})
        for q, v in enumerate((xblk, None, data[-16:] if n else bytes(16),
                               b'\xff' * left + bytes(16 - left))):
            m.setq(q, int.from_bytes(v, 'little') if v is not None else lens[0] | (lens[1] << 64))
        m.run(lines)
        c = int.from_bytes(j0[12:], 'big')
        ks = b''.join(aes_ref(key, j0[:12] + ((c + i) & 0xffffffff).to_bytes(4, 'big'))
                      for i in range(1, n + 1))
        out = bytes(a ^ b for a, b in zip(data, ks))
        ct = data if dec else out[:16 * n - 16 + left] + bytes(16 - left) if n else b''
        lblk = b''.join(v.to_bytes(8, 'big') for v in lens)
        y = ghash_ref(h, 0, xblk + ct + lblk)
        tag = bytes(a ^ b for a, b in zip(y.to_bytes(16, 'big'), aes_ref(key, j0)))
        ok = ok and m.q(0).to_bytes(16, 'little') == tag
        if n:
            ok = ok and m.q(1).to_bytes(16, 'little') == out[-16:][:left] + bytes(16 - left)
            ok = ok and bytes(mem[A_DST:A_DST + 16 * n]) == out[:16 * n - 16] + bytes(16)
        ok = ok and m.r['sp'] == SP and mem[SP - 1024:SP].strip(b'\x77') in (b'', bytes(len(mem[SP - 1024:SP].strip(b'\x77'))))
    return ok
