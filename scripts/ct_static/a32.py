"""AArch32 (A32) decoding for the taint analysis (llvm-objdump syntax, AAPCS with VFP).

The armv7-unknown-linux-gnueabihf library is A32 code (its functions start at even
addresses; objdump follows the $a/$t/$d mapping symbols, so literal pools come out as
`.word` and are skipped). General registers are r0-r12, sp, lr, pc (objdump prints r11
and r12, not fp/ip). Every A32 instruction may carry a condition: a predicated ALU
instruction is a select on the flags (like csel: the destination keeps its old value
or takes the new one), a predicated load, store or branch is a control-flow sink on the
flags. Vector data reaches a general register only through vmov to a core register and
vmrs: those are the transfers. `push`/`pop` save and restore registers (the engine's
pushed set), `pop {..., pc}`, `ldm sp!, {..., pc}` and `bx lr` return. Calls go through
the PLT, whose entries are resolved to their GOT slot (`plt_entries`). A mnemonic the
decoder does not know is reported, never guessed.
"""

import re

from . import a64
from .a64 import imm
from .engine import UNKNOWN_OFF, Arch, Insn, Mem

OBJDUMP_ARGS = ["--triple=armv8a-linux-gnueabihf", "--mattr=+crypto,+neon"]


class A32(Arch):
    args = ["r0", "r1", "r2", "r3"]
    ret_regs = ["r0", "r1"]
    caller_saved = ["r0", "r1", "r2", "r3", "r12", "lr"]
    slot = 4
    sp_prov = True
    flow_slots = True
    stack_regs = {"sp"}  # and, by provenance, registers set from sp (r11, the frame pointer)


ALIASES = {"r13": "sp", "r14": "lr", "r15": "pc", "fp": "r11", "ip": "r12", "sb": "r9", "sl": "r10"}


def gpr(op):
    op = ALIASES.get(op.strip(), op.strip())
    if re.fullmatch(r"r\d+|sp|lr|pc", op):
        return op
    return None


def is_vec(op):
    return re.match(r"\s*([qds]\d+\b|\{\s*[qds]\d+)", op) is not None


COND = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"}
ALU = {"add", "adc", "sub", "sbc", "rsb", "rsc", "and", "orr", "eor", "bic", "orn", "mov", "mvn",
       "lsl", "lsr", "asr", "ror", "rrx", "mul", "mla", "mls", "umull", "smull", "umlal", "smlal",
       "movw", "movt", "bfc", "bfi", "ubfx", "sbfx", "uxtb", "uxth", "sxtb", "sxth", "uxtab",
       "uxtah", "sxtab", "sxtah", "rev", "rev16", "revsh", "rbit", "clz", "pkhbt", "pkhtb",
       "udiv", "sdiv", "uadd8", "usub8", "sel", "qadd", "qsub", "smulbb", "smlabb", "umaal",
       "adr"}
FLAG_ONLY = {"cmp", "cmn", "tst", "teq"}
READS_FLAGS = {"adc", "sbc", "rsc", "rrx", "sel"}
READS_DEST = {"movt", "bfc", "bfi", "umlal", "smlal", "umaal"}
TWO_DEST = {"umull", "smull", "umlal", "smlal", "umaal"}
LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrd", "ldrex", "ldrexb", "ldrexd", "ldrt", "ldrbt"}
STORES = {"str", "strb", "strh", "strd", "strex", "strexb", "strexd", "strt", "strbt"}
MULTI = {"ldm", "ldmia", "ldmib", "ldmda", "ldmdb", "stm", "stmia", "stmib", "stmda", "stmdb", "push", "pop"}
BRANCH = {"b", "bl", "blx", "bx"}
NOPS = {"nop", "dmb", "dsb", "isb", "yield", "pld", "pldw", "clrex", "bkpt", "udf", "trap"}
BASES = ALU | FLAG_ONLY | LOADS | STORES | MULTI | BRANCH | NOPS | {"svc", "mrc", "mcr"}
FLAG_SETTABLE = ALU - {"movw", "movt", "bfc", "bfi", "ubfx", "sbfx", "udiv", "sdiv"}


def split_mn(mn):
    """`addseq` -> ('add', True, 'eq'); None for a mnemonic outside the known set."""
    if mn in BASES:
        return mn, False, None
    if mn[-2:] in COND and mn[:-2] in BASES:
        return mn[:-2], False, mn[-2:]
    for rest, cond in ((mn, None), (mn[:-2], mn[-2:])):
        if cond is not None and cond not in COND:
            continue
        if rest.endswith("s") and rest[:-1] in FLAG_SETTABLE:
            return rest[:-1], True, cond
    return None


def split_ops(s):
    """Operands split at top-level commas (A32 comments start with `@`)."""
    return a64.split_ops(s.split("@")[0])


def reg_list(op):
    """`{r4, r5, lr}` or `{d8, d9}` -> names (ranges `r4-r7` expanded)."""
    out = []
    for part in op.strip().strip("{}").split(","):
        part = part.strip()
        m = re.fullmatch(r"([rdqs])(\d+)-[rdqs](\d+)", part)
        if m:
            out += [f"{m.group(1)}{k}" for k in range(int(m.group(2)), int(m.group(3)) + 1)]
        elif part:
            out.append(ALIASES.get(part, part))
    return out


def memop(op):
    """`[base{:align}, #off|{-}index{, shift}]` with an optional `!`."""
    m = re.fullmatch(r"\[([^\]]*)\](!?)", op.strip())
    if not m:
        return None
    parts = [p.strip() for p in m.group(1).split(",")]
    mo = Mem(base=gpr(parts[0].split(":")[0]))
    if len(parts) > 1:
        off = imm(parts[1])
        if off is not None:
            mo.disp = off
        elif gpr(parts[1].lstrip("+-")):
            mo.index = gpr(parts[1].lstrip("+-"))
    mo.writeback = bool(m.group(2))
    return mo


def vec_bytes(names):
    return sum({"q": 16, "d": 8, "s": 4}.get(n[0], 8) for n in names) or 8


def target_of(rest):
    m = re.match(r"\s*0x([0-9a-f]+)\b", rest)
    return int(m.group(1), 16) if m else None


def decode(addr, mn, rest, symbol_of):
    ins = Insn(addr=addr, text=f"{mn} {rest}".strip())
    ops = split_ops(rest)
    if mn.startswith("v") or mn.startswith(("aes", "sha")):
        return vector(ins, mn, ops)
    parsed = split_mn(mn)
    if parsed is None:
        ins.unknown = True
        return ins
    base, setflags, cond = parsed
    predicated = cond not in (None, "al")
    ins.cc = cond if predicated else None  # for pair_predicated
    if base in NOPS:
        ins.stop = base in ("udf", "trap")
        return ins
    if base in BRANCH:
        return branch(ins, base, ops, rest, predicated)
    if base in MULTI:
        return multi(ins, base, ops, predicated)
    if base in LOADS or base in STORES:
        return single(ins, base, ops, predicated)
    if base in ("svc", "mrc", "mcr"):
        ins.unknown = base != "mrc"  # mrc: a thread register read (TLS), public
        ins.writes = [r for r in (gpr(o) for o in ops[2:3]) if r]
        ins.const = True
        return ins
    regs = [gpr(o) for o in ops]
    dest = regs[0] if regs else None
    if base in FLAG_ONLY:
        ins.reads = [r for r in regs if r]
        ins.writes_flags = ins.flags_only = True
        return ins
    if dest == "pc":  # a computed jump (jump table or return): indirect
        ins.indirect = ins.stop = not predicated
        ins.cond = ins.reads_flags = predicated
        ins.reads = [r for r in regs[1:] if r and r != "pc"]
        return ins
    if base == "bfc" and dest == "sp":
        return ins  # realigns the frame: sp keeps its provenance (all later slots shift alike)
    ndest = 2 if base in TWO_DEST else 1
    ins.writes = [r for r in regs[:ndest] if r]
    ins.reads = [r for r in regs[ndest:] if r]
    if predicated and base not in READS_DEST and base not in READS_FLAGS:
        ins.sources = list(ins.reads)  # for pair_predicated
    if base in READS_DEST or predicated:
        ins.reads += ins.writes
    ins.writes_flags = setflags
    ins.reads_flags = base in READS_FLAGS or predicated
    ins.divide = base in ("udiv", "sdiv")
    if "pc" in ins.reads:
        # `add rD, pc, rS` forms the address of read-only data (PIC): a table base,
        # whose value keeps rS's labels (an index folded in stays visible).
        ins.reads = [r for r in ins.reads if r != "pc"]
        ins.const_addr = True
        return ins
    if base == "adr":
        ins.const = ins.const_addr = True
        return ins
    if not ins.reads and not ins.reads_flags:
        ins.const = True  # mov #imm, movw
    if base == "mov" and len(ins.reads) == 1 and not predicated and len(ops) == 2:
        ins.keep_prov = True
    if base in ("add", "sub") and len(ops) == 3 and imm(ops[2]) is not None and not predicated:
        ins.keep_prov = True
        ins.prov_off = imm(ops[2]) * (1 if base == "add" else -1)
    if base == "add" and len(ops) >= 3 and regs[2] and not predicated:
        ins.keep_const = True  # table + index (a constant table stays one)
    if base == "eor" and len(regs) == 3 and regs[1] == regs[2] and regs[1]:
        ins.zero_idiom = True
    return ins


def branch(ins, base, ops, rest, predicated):
    target = target_of(rest)
    ins.cond = ins.reads_flags = predicated
    if base == "b":
        ins.jump, ins.stop = target, not predicated
    elif base == "bl" or (base == "blx" and target is not None):
        ins.is_call, ins.call = True, target
    elif base == "bx" and gpr(ops[0]) == "lr":
        ins.ret, ins.stop = True, not predicated
    else:  # blx rX / bx rX
        ins.indirect = True
        ins.reads = [gpr(ops[0])]
        ins.is_call = base == "blx"
        ins.stop = base == "bx" and not predicated
    return ins


def multi(ins, base, ops, predicated):
    if base in ("push", "pop"):
        rbase, names, wb = "sp", reg_list(ops[0]), True
        base = "stmdb" if base == "push" else "ldmia"
    else:
        rbase, names, wb = gpr(ops[0].rstrip("!")), reg_list(ops[1]), ops[0].endswith("!")
    n = len(names)
    mode = base[3:] or "ia"
    first = {"ia": 0, "ib": 4, "da": -4 * (n - 1), "db": -4 * n}[mode]
    m = Mem(base=rbase, disp=first, size=4 * n, writeback=wb)
    ins.mems = [m]
    ins.cond = ins.reads_flags = predicated
    if base.startswith("ld"):
        m.load = True
        ins.writes = [r for r in names if r != "pc"]
        if rbase == "sp" and wb:
            ins.pop = ins.writes  # restores what the prologue saved
        if "pc" in names:
            ins.ret = True
            ins.stop = not predicated
    else:
        m.store = True
        ins.reads = names
        if rbase == "sp":
            ins.push = names
    if wb:
        ins.base_update = (rbase, 4 * n if mode in ("ia", "ib") else -4 * n)
    return ins


def single(ins, base, ops, predicated):
    mem_k = next((k for k, o in enumerate(ops) if o.startswith("[")), None)
    if mem_k is None:
        ins.unknown = True
        return ins
    m = memop(ops[mem_k])
    regs = [gpr(o) for o in ops[:mem_k]]
    post = ops[mem_k + 1] if len(ops) > mem_k + 1 else None
    m.size = {"b": 1, "h": 2, "d": 8}.get(base.removesuffix("t").removeprefix("ldrex")[-1:], 4)
    ins.mems = [m]
    ins.cond = ins.reads_flags = predicated
    if base in LOADS:
        m.load = True
        ins.writes = [r for r in regs if r and r != "pc"]
        if "pc" in regs:  # ldr pc, [...]: a jump through memory (or a return)
            ins.indirect = True
            ins.stop = not predicated
        if predicated:
            ins.reads = list(ins.writes)
    else:
        m.store = True
        if base.startswith("strex"):
            ins.writes, regs = [regs[0]], regs[1:]
        ins.reads = [r for r in regs if r]
    if post is not None:
        off = imm(post)
        if off is None and gpr(post.lstrip("+-")):
            # Register post-index: the next address depends on that register, and the
            # base's offset is no longer known.
            ins.mems.append(Mem(base=m.base, index=gpr(post.lstrip("+-")), size=0))
            ins.base_update = (m.base, UNKNOWN_OFF)
        else:
            ins.base_update = (m.base, off or 0)
    elif m.writeback:
        ins.base_update = (m.base, m.disp)
    return ins


def vector(ins, mn, ops):
    base = mn.split(".")[0]
    if base in ("vmov", "vmrs") and ops and gpr(ops[0]) or (base == "vmrs" and ops and ops[0] == "APSR_nzcv"):
        # vmov r, s / vmov r, r, d / vmov.32 r, d[n] / vmrs r, fpscr: vector data to core.
        if ops[0] == "APSR_nzcv":
            ins.writes_flags = ins.flags_only = ins.vec_to_gpr = True
            return ins
        dests = [r for r in (gpr(o) for o in ops) if r]
        ins.writes = dests
        ins.vec_to_gpr = True
        return ins
    if base in ("vpush", "vpop"):
        names = reg_list(ops[0])
        m = Mem(base="sp", disp=-vec_bytes(names) if base == "vpush" else 0, size=vec_bytes(names),
                writeback=True)
        m.load, m.store = base == "vpop", base == "vpush"
        if m.store:
            ins.stack_store_from_vector = m.size
        ins.mems = [m]
        ins.base_update = ("sp", -m.size if base == "vpush" else m.size)
        return ins
    if base in ("vldr", "vstr", "vld1", "vld2", "vld3", "vld4", "vst1", "vst2", "vst3", "vst4",
                "vldm", "vstm", "vldmia", "vstmia", "vldmdb", "vstmdb"):
        if base.startswith(("vldm", "vstm")):
            m = Mem(base=gpr(ops[0].rstrip("!")), writeback=ops[0].endswith("!"))
            names = reg_list(ops[1])
            post = None
        else:
            mem_k = next((k for k, o in enumerate(ops) if o.startswith("[")), None)
            if mem_k is None:  # vldr d0, 0x1234 <label>: a literal (public)
                return ins
            m = memop(ops[mem_k])
            names = [n for o in ops[:mem_k] for n in reg_list(o)]
            post = ops[mem_k + 1] if len(ops) > mem_k + 1 else None
        m.size = vec_bytes(names)
        m.load = base.startswith("vld")
        m.store = not m.load
        if m.store:
            ins.stack_store_from_vector = m.size
        ins.mems = [m]
        if post is not None and gpr(post):
            ins.mems.append(Mem(base=m.base, index=gpr(post), size=0))
            ins.base_update = (m.base, UNKNOWN_OFF)
        elif post is not None or m.writeback:
            ins.base_update = (m.base, m.size if post is None or imm(post) is None else imm(post))
        return ins
    if base in ("vcmp", "vcmpe"):
        return ins  # into FPSCR: reaches the flags only through vmrs (a transfer)
    # Everything else computes on vector registers (general registers read by vdup or
    # vmov d, r, r are public inputs: their values enter the vector unit, not control).
    if not any(is_vec(o) for o in ops):
        ins.unknown = True
    return ins


LINE = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")


def parse_line(line, symbol_of):
    if ".word" in line or ".short" in line or ".byte" in line:
        return None  # literal pool data ($d)
    m = LINE.match(line)
    if not m or m.group(2).startswith("<unknown>"):
        return None
    return decode(int(m.group(1), 16), m.group(2), m.group(3), symbol_of)


def resolve_jump_tables(insns, image):
    """LLVM's A32 jump table: `cmp rI, #N-1; bhi ...; add rB, pc, #d; ldr rO, [rB, rI,
    lsl #2]; add pc, rB, rO` with N words of offsets from the table (at rB) in the code.
    The index is checked as an address; the targets become the jump's successors. Other
    computed jumps keep no successors: their code stays unreached and is reported."""
    for k in range(2, len(insns)):
        a, b, c = insns[k - 2], insns[k - 1], insns[k]
        ma = re.fullmatch(r"add (r\d+), pc, #(\d+|0x[0-9a-f]+)", a.text.replace("\t", " "))
        mb = re.fullmatch(r"ldr (r\d+), \[(r\d+), (r\d+), lsl #2\]", b.text.replace("\t", " "))
        mc = re.fullmatch(r"add pc, (r\d+), (r\d+)", c.text.replace("\t", " "))
        if not (ma and mb and mc and mb.group(2) == ma.group(1) == mc.group(1) and mc.group(2) == mb.group(1)):
            continue
        bound = None
        for p in reversed(insns[max(0, k - 8): k - 2]):
            mp = re.fullmatch(rf"cmp {mb.group(3)}, #(\d+)", p.text.replace("\t", " "))
            if mp:
                bound = int(mp.group(1)) + 1
                break
        if bound is None:
            continue
        table = a.addr + 8 + int(ma.group(2), 0)
        offs = [image.i32(table + 4 * i) for i in range(bound)]
        if None not in offs:
            c.targets = [table + o for o in offs]


def pair_predicated(insns):
    """`addne r1, r12, r7 ; strbne r6, [r1, -r2]`: alone, a predicated ALU instruction is
    a select of its destination's old and new value, but the instruction right after it
    with the same condition (no flags written between, no branch into it) runs only when
    it did, so it sees the new value: its uses of that register become the ALU
    instruction's sources (in an address: the base the first, the others address-only
    operands)."""
    entered = {i.jump for i in insns if i.jump is not None} | {t for i in insns for t in i.targets}
    for a, b in zip(insns, insns[1:]):
        # (Not when the second writes the register too: its own select keeps the value from
        # before the first.)
        if not (a.sources is not None and a.cc == b.cc and not a.writes_flags and len(a.writes) == 1
                and b.addr not in entered and a.writes[0] not in a.sources + b.writes):
            continue
        d, srcs = a.writes[0], a.sources
        if d in b.reads:
            b.reads = [r for r in b.reads if r != d] + srcs
        for m in list(b.mems):
            if d in (m.base, m.index):
                if m.base == d:
                    m.base = srcs[0] if srcs else None
                else:
                    m.index = srcs[0] if srcs else None
                b.mems += [Mem(index=r, size=0) for r in srcs[1:]]


def ror32(v, r):
    r %= 32
    return ((v >> r) | (v << (32 - r))) & 0xFFFFFFFF if r else v


def plt_entries(body, got):
    """PLT entry address -> callee, from `add r12, pc, #A{, #rot}; add r12, r12, #B{, #rot};
    ldr pc, [r12, #C]!` (the GOT slot is entry + 8 + A + B + C)."""
    out, lines = {}, []
    for line in body:
        m = LINE.match(line)
        if m and ".word" not in line:
            lines.append((int(m.group(1), 16), m.group(2), split_ops(m.group(3))))

    def value(ops):
        v = [imm(o) for o in ops[2:]]
        return ror32(v[0], v[1]) if len(v) == 2 else v[0]

    for k in range(len(lines) - 2):
        (a, m1, o1), (_, m2, o2), (_, m3, o3) = lines[k: k + 3]
        if (m1, m2, m3) == ("add", "add", "ldr") and o1[:2] == ["r12", "pc"] and o2[:2] == ["r12", "r12"]:
            mem = memop(o3[1])
            if mem and mem.base == "r12":
                slot = (a + 8 + value(o1) + value(o2) + mem.disp) & 0xFFFFFFFF
                if slot in got:
                    out[a] = got[slot]
    return out
