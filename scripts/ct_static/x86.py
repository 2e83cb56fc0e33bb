"""x86-64 decoding for the taint analysis (llvm-objdump AT&T syntax, System V ABI).

Only what the analysis needs: the general registers an instruction reads and writes,
its memory operands, flags, control transfers, and the instructions that move vector
data into a general register or the flags (movd/movq/pextr*/pmovmskb/movmskp*/
extractps/cvt*2si to a general register; ptest/vtestp*/ucomis*/comis*). A mnemonic the
decoder does not know is reported, never guessed.

AVX-512 write masks (`{%k1}`, `{z}`) are dropped from the operands: a masked load or store
is analysed as the whole access at its address. Which lanes it touches follows the mask
register, which the analysis does not track (vector and mask registers are data, never
addresses); the masks in the kernels (x86_64-vaes512's tail) are made from block counts,
which are public.
"""

import re

from .engine import Arch, Insn, Mem

GPR64 = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + [f"r{i}" for i in range(8, 16)]
_ALIAS = {}
for _r in ["ax", "bx", "cx", "dx"]:
    _ALIAS.update({f"r{_r}": f"r{_r}", f"e{_r}": f"r{_r}", _r: f"r{_r}", f"{_r[0]}l": f"r{_r}", f"{_r[0]}h": f"r{_r}"})
for _r in ["si", "di", "bp", "sp"]:
    _ALIAS.update({f"r{_r}": f"r{_r}", f"e{_r}": f"r{_r}", _r: f"r{_r}", f"{_r}l": f"r{_r}"})
for _i in range(8, 16):
    for _s in ["", "d", "w", "b"]:
        _ALIAS[f"r{_i}{_s}"] = f"r{_i}"
_ALIAS["rip"] = "pc"


class X86(Arch):
    args = ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]
    ret_regs = ["rax", "rdx"]
    caller_saved = ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"]
    stack_regs = {"rsp", "rbp"}


def gpr(op):
    m = re.fullmatch(r"%([a-z0-9]+)", op)
    return _ALIAS.get(m.group(1)) if m else None


def is_vec(op):
    return re.fullmatch(r"%([xyz]mm\d+|k\d)", op) is not None


def split_ops(s):
    s = s.split("#")[0].strip()
    out, depth, cur = [], 0, ""
    for c in s:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def mem(op):
    m = re.fullmatch(r"\*?(?:%[a-z]s:)?(-?0x[0-9a-f]+|-?\d+)?\(([^)]*)\)", op)
    if not m:
        m2 = re.fullmatch(r"\*?(?:%[a-z]s:)?(-?0x[0-9a-f]+|\d+)", op)
        return Mem(base=None, disp=int(m2.group(1), 0)) if m2 and not op.startswith("$") and "*" not in op[:0] and op.startswith(("%fs:", "%gs:")) else None
    disp = int(m.group(1), 0) if m.group(1) else 0
    parts = [p.strip() for p in m.group(2).split(",")]
    base = _ALIAS.get(parts[0][1:]) if parts[0] else None
    index = _ALIAS.get(parts[1][1:]) if len(parts) > 1 and parts[1] else None
    return Mem(base=base, index=index, disp=disp)


SIZES = {"b": 1, "w": 2, "l": 4, "q": 8}
JCC = re.compile(r"j(n?[abcegloprsz]|n?[abgl]e|[np]e|po|pe|rcxz|ecxz)$")
FLAG_VEC = re.compile(r"v?(ptest|testp[sd]|u?comis[sd])$")
VT_CALLS = ("memcmp", "bcmp", "strcmp", "strlen")
ALU2 = {"add", "sub", "and", "or", "xor", "adc", "sbb", "shl", "shr", "sar", "rol", "ror",
        "rcl", "rcr", "imul", "bt", "bts", "btr", "btc", "andn", "shlx", "shrx", "sarx", "rorx",
        "shld", "shrd"}
ALU1 = {"inc", "dec", "neg", "not", "bswap"}
MOVES = {"mov", "movabs", "movzb", "movzw", "movsb", "movsw", "movsl", "movslq", "movzbl",
         "movzbq", "movzwl", "movzwq", "movsbl", "movsbq", "movswl", "movswq", "movbe",
         "cmov", "lea", "popcnt", "lzcnt", "tzcnt", "bsf", "bsr", "blsi", "blsr", "blsmsk"}
NOPS = {"nop", "int3", "ud2", "vzeroupper", "vzeroall", "endbr64", "lfence", "mfence",
        "sfence", "pause", "hlt", "prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta"}


def _stem(mn):
    """Strip AT&T size suffixes for lookup: addq -> add, cmovbq -> cmov, setne -> set."""
    if mn.startswith("cmov"):
        return "cmov"
    if mn.startswith("set") and mn not in ("setssbsy",):
        return "set"
    for s in (mn, mn[:-1]):
        if s in ALU2 or s in ALU1 or s in MOVES or s in {"cmp", "test", "push", "pop", "xchg",
                                                         "mul", "div", "idiv", "call", "ret",
                                                         "jmp", "cltq", "cqto", "cltd", "cwtl"}:
            return s
    return mn


MASK = re.compile(r"\s*\{(%k[0-7]|z)\}")


def decode(addr, mn, rest, symbol_of):
    ins = Insn(addr=addr, text=f"{mn} {rest}".strip())
    rest = MASK.sub("", rest)
    if mn in NOPS or mn.startswith("nop"):
        return ins  # multi-byte nops have a memory operand but touch no memory
    ops = split_ops(rest)
    stem = _stem(mn)
    vec = any(is_vec(o) for o in ops)
    mems = [(k, mem(o)) for k, o in enumerate(ops) if not o.startswith("$") and mem(o)]
    last = len(ops) - 1
    size = SIZES.get(mn[-1], 8) if not vec else 16
    for k, m in mems:
        m.size = size
        if k == last and stem not in ("cmp", "test", "push", "bt") and not mn.startswith(("j", "call")):
            m.store = True
            if stem in ALU2 or stem in ALU1:
                m.load = True
        else:
            m.load = stem != "lea"
        ins.mems.append(m)
    if stem == "lea":
        ins.mems = []
    regs = [gpr(o) for o in ops]
    addr_regs = {r for _, m in mems for r in (m.base, m.index) if r}
    if mn.startswith("j"):
        target = re.match(r"0x([0-9a-f]+)", rest)
        if rest.startswith("*"):
            ins.indirect = True
            ins.reads = [r for r in regs if r]
            ins.stop = True
        elif mn == "jmp":
            ins.jump = int(target.group(1), 16) if target else None
            ins.stop = True
        elif JCC.match(mn):
            ins.cond = ins.reads_flags = True
            ins.jump = int(target.group(1), 16) if target else None
        else:
            ins.unknown = True
        return ins
    if stem == "call":
        ins.is_call = True
        if rest.startswith("*"):
            ins.indirect = True
            ins.reads = [r for r in regs if r]
            name = symbol_of(rest)
        else:
            t = re.match(r"0x([0-9a-f]+)", rest)
            ins.call = int(t.group(1), 16) if t else None
            name = rest
        if any(f"<{v}" in (name or "") for v in VT_CALLS):
            ins.vt_call = next(v for v in VT_CALLS if f"<{v}" in name)
        return ins
    if stem == "ret":
        ins.ret = ins.stop = True
        return ins
    if vec:
        dest = ops[last] if ops else ""
        if mn.startswith(("vpgather", "vgather", "vpscatter", "vscatter")):
            ins.gather = True
        if re.match(r"v?p?maskmov", mn):
            ins.gather = True  # which bytes are touched depends on vector data
        if FLAG_VEC.match(mn):
            ins.writes_flags = ins.vec_to_gpr = True
            ins.flags_only = True
        elif gpr(dest):
            ins.writes = [gpr(dest)]
            ins.vec_to_gpr = True
        if mems and mems[-1][0] == last and any(is_vec(o) for o in ops[:last]):
            ins.stack_store_from_vector = 64 if "zmm" in rest else 32 if "ymm" in rest else 16
        ins.reads = [r for r in regs if r]  # gpr sources (e.g. vmovq %rax, %xmm0)
        return ins
    if stem == "push":
        ins.push = regs[0]
        return ins
    if stem == "pop":
        ins.writes = [regs[0]] if regs[0] else []
        ins.pop = regs[0]
        return ins
    if stem in ("cmp", "test", "bt"):
        ins.reads = [r for r in regs if r]
        ins.writes_flags = ins.flags_only = True
        return ins
    if stem == "set":
        ins.reads_flags = True
        ins.writes = [r for r in regs[-1:] if r]
        return ins
    if stem in ("cltq", "cwtl"):
        ins.reads, ins.writes = ["rax"], ["rax"]
        return ins
    if stem in ("cqto", "cltd"):
        ins.reads, ins.writes = ["rax"], ["rdx"]
        return ins
    if stem in ("mul", "div", "idiv") or (stem == "imul" and len(ops) == 1):
        ins.reads = ["rax", "rdx"] + [r for r in regs if r]
        ins.writes = ["rax", "rdx"]
        ins.writes_flags = True
        ins.divide = stem in ("div", "idiv")
        return ins
    if stem == "xchg":
        ins.reads = [r for r in regs if r]
        ins.writes = list(ins.reads)
        return ins
    if stem in MOVES:
        dest = regs[last] if ops else None
        ins.writes = [dest] if dest else []
        if stem == "lea":
            m = mem(ops[0])
            ins.reads = [r for r in (m.base, m.index) if r and r != "pc"]
            ins.const = ins.const_addr = m.base == "pc" and m.index is None
            if m.index is None and m.base and m.base != "pc":
                ins.keep_prov, ins.prov_off = True, m.disp
        else:
            ins.reads = [r for r in regs[:last] if r]
            ins.const = not ins.reads and not mems
            if stem == "cmov":
                ins.reads_flags = True
                ins.reads.append(dest)
            if stem == "mov" and ins.reads and not mems:
                ins.keep_prov = True
        return ins
    if stem in ALU2 or stem in ALU1:
        dest = regs[last] if ops else None
        ins.writes = [dest] if dest else []
        ins.reads = [r for r in regs if r]
        ins.writes_flags = stem not in ("not", "bswap", "andn", "shlx", "shrx", "sarx", "rorx")
        if stem in ("adc", "sbb", "rcl", "rcr"):
            ins.reads_flags = True
        if stem in ("xor", "sub") and len(ops) == 2 and regs[0] and regs[0] == regs[1]:
            ins.zero_idiom = True
        if stem in ("add", "sub") and ops[0].startswith("$") and dest and not mems:
            ins.keep_prov = True
            ins.prov_off = int(ops[0][1:], 0) * (1 if stem == "add" else -1)
        return ins
    ins.unknown = True
    ins.reads = [r for r in regs if r] + sorted(addr_regs)
    ins.writes = [r for r in regs if r]
    return ins


LINE = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")


def parse_line(line, symbol_of):
    m = LINE.match(line)
    if not m:
        return None
    return decode(int(m.group(1), 16), m.group(2), m.group(3), symbol_of)


def resolve_jump_tables(insns, image):
    """LLVM's position-independent jump tables: `leaq T(%rip), %B; movslq (%B,%I,4), %R;
    addq %B, %R; jmpq *%R`: entries are 32-bit offsets from T, read until one points
    outside the function."""
    lo, hi = insns[0].addr, insns[-1].addr
    for k, ins in enumerate(insns):
        m = re.fullmatch(r"jmpq? \*%(\w+)", ins.text)
        if not m or k < 2:
            continue
        r = m.group(1)
        ld = re.fullmatch(rf"movslq \(%(\w+),%\w+,4\), %{r}", insns[k - 2].text)
        if not ld or insns[k - 1].text != f"addq %{ld.group(1)}, %{r}":
            continue
        base = ld.group(1)
        table = None
        for j in range(k - 3, max(-1, k - 64), -1):
            t = re.fullmatch(rf"leaq -?0x[0-9a-f]+\(%rip\), %{base}\s*# 0x([0-9a-f]+).*", insns[j].text)
            if t:
                table = int(t.group(1), 16)
                break
        if table is None:
            continue
        for e in range(1024):
            v = image.i32(table + 4 * e)
            if v is None or not lo <= table + v <= hi:
                break
            ins.targets.append(table + v)
