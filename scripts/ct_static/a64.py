"""AArch64 decoding for the taint analysis (llvm-objdump syntax, AAPCS64).

General registers are x0-x30 / w0-w30 (one name each), sp; xzr/wzr are constants.
Vector data reaches a general register only through umov/smov (and their `mov` alias),
fmov to a general register and fcvt*/fcmp*: those are the transfers. Loads and stores
name their base register, an index register and writeback; `ldr x, <label>` reads a
literal (public). A mnemonic the decoder does not know is reported, never guessed.
"""

import re

from .engine import Arch, Insn, Mem


class A64(Arch):
    args = [f"x{i}" for i in range(8)]
    ret_regs = ["x0", "x1"]
    caller_saved = [f"x{i}" for i in range(19)]
    stack_regs = {"sp", "x29"}


def gpr(op):
    op = op.strip()
    m = re.fullmatch(r"([xw])(\d+)", op)
    if m:
        return f"x{m.group(2)}"
    if op in ("sp", "wsp"):
        return "sp"
    return None


def is_zero(op):
    return op.strip() in ("xzr", "wzr")


def is_vec(op):
    return re.match(r"\s*(v\d+|[qdshb]\d+\b|\{)", op) is not None


def split_ops(s):
    s = s.split("//")[0].strip()
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def imm(op):
    m = re.fullmatch(r"#(-?0x[0-9a-f]+|-?\d+)", op.strip())
    return int(m.group(1), 0) if m else None


COND = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al", "nv"}
FLAG_SET = {"adds", "subs", "ands", "bics", "negs", "adcs", "sbcs", "ngcs"}
FLAG_ONLY = {"cmp", "cmn", "tst", "ccmp", "ccmn"}
FLAG_READ = {"csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg",
             "adc", "sbc", "ngc", "adcs", "sbcs", "ccmp", "ccmn"}
GPR_ALU = {"add", "sub", "adds", "subs", "and", "ands", "orr", "eor", "bic", "bics", "orn",
           "eon", "lsl", "lsr", "asr", "ror", "lslv", "lsrv", "asrv", "rorv", "mul", "madd",
           "msub", "mneg", "umulh", "smulh", "umull", "smull", "umaddl", "smaddl", "neg", "negs",
           "mvn", "mov", "movk", "sxtw", "sxtb", "sxth", "uxtb", "uxth", "uxtw", "ubfx", "sbfx",
           "ubfiz", "sbfiz", "bfi", "bfxil", "extr", "rev", "rev16", "rev32", "clz", "cls",
           "rbit", "adc", "sbc", "ngc", "csel", "csinc", "csinv", "csneg", "cset", "csetm",
           "cinc", "cinv", "cneg", "udiv", "sdiv", "bfc"}
NOPS = {"nop", "hint", "dmb", "dsb", "isb", "yield", "paciasp", "autiasp", "bti", "pacibsp", "autibsp", "clrex"}
TRANSFER = re.compile(r"(umov|smov|fcvtz[su]|fcvta[su]|fcvtm[su]|fcvtn[su]|fcvtp[su])$")
FLAG_VEC = {"fcmp", "fcmpe", "fccmp", "fccmpe"}


def reg_bytes(mn, r):
    """Bytes one register moves in a load or store (`ldrb w0` moves one, `ldr w0` four)."""
    base = mn.split(".")[0]
    if base.endswith(("rb", "rsb")) or base in ("ldurb", "sturb", "ldursb"):
        return 1
    if base.endswith(("rh", "rsh")) or base in ("ldurh", "sturh", "ldursh"):
        return 2
    if base in ("ldrsw", "ldursw"):
        return 4
    return {"x": 8, "w": 4, "q": 16, "d": 8, "s": 4, "h": 2, "b": 1, "v": 16}.get(r[0], 8)


def memop(op):
    """`[base, off|index{, ext}]` with an optional `!`; post-index is a separate operand."""
    m = re.fullmatch(r"\[([^\]]*)\](!?)", op.strip())
    if not m:
        return None
    parts = [p.strip() for p in m.group(1).split(",")]
    base = gpr(parts[0])
    mo = Mem(base=base)
    if len(parts) > 1:
        off = imm(parts[1])
        if off is not None:
            mo.disp = off
        elif gpr(parts[1]):
            mo.index = gpr(parts[1])
    mo.writeback = bool(m.group(2))
    return mo


def decode(addr, mn, rest, symbol_of):
    ins = Insn(addr=addr, text=f"{mn} {rest}".strip())
    ops = split_ops(rest)
    base_mn = mn.split(".")[0]
    if mn in NOPS or base_mn in NOPS or mn.startswith("prfm") and False:
        return ins
    if mn in ("brk", "udf", "hlt"):
        ins.stop = True
        return ins
    target = re.search(r"\b0x([0-9a-f]+)\b", rest)
    # Control flow.
    if mn == "b":
        ins.jump, ins.stop = int(target.group(1), 16), True
        return ins
    if mn.startswith("b.") and mn[2:] in COND:
        ins.cond = ins.reads_flags = True
        ins.jump = int(target.group(1), 16)
        return ins
    if mn in ("cbz", "cbnz", "tbz", "tbnz"):
        ins.cond = True
        ins.cond_regs = [gpr(ops[0])]
        ins.jump = int(re.search(r"0x([0-9a-f]+)", ops[-1]).group(1), 16)
        return ins
    if mn == "bl":
        ins.is_call = True
        ins.call = int(target.group(1), 16)
        return ins
    if mn in ("blr", "br"):
        ins.indirect = True
        ins.reads = [gpr(ops[0])]
        ins.is_call = mn == "blr"
        ins.stop = mn == "br"
        return ins
    if mn == "ret":
        ins.ret = ins.stop = True
        return ins
    # Memory.
    mem_k = next((k for k, o in enumerate(ops) if o.startswith("[")), None)
    if mn.startswith(("ld", "st", "prfm")) and mem_k is None and mn.startswith("ld"):
        # Literal load: `ldr x0, 0x1234 <label>`.
        ins.writes = [r for r in (gpr(o) for o in ops[:1]) if r]
        ins.const = True
        return ins
    if mem_k is not None:
        m = memop(ops[mem_k])
        regs = ops[:mem_k]
        post = imm(ops[mem_k + 1]) if len(ops) > mem_k + 1 else None
        regnames = [r for o in regs for r in re.split(r"[{},\s]+", o) if r]
        vec = any(is_vec(r) for r in regnames)
        m.size = sum(reg_bytes(mn, r) for r in regnames) or 8
        if mn.startswith("prfm"):
            ins.mems = [m]
            return ins
        if mn.startswith("ld"):
            m.load = True
            ins.writes = [r for r in (gpr(x) for x in regnames) if r]
        elif mn.startswith("st"):
            m.store = True
            srcs = regnames[1:] if mn.startswith(("stxr", "stlxr", "stxp", "stlxp")) else regnames
            ins.reads = [r for r in (gpr(x) for x in srcs) if r]
            if mn.startswith(("stxr", "stlxr")):
                ins.writes = [gpr(regnames[0])]
            if vec:
                ins.stack_store_from_vector = m.size
        else:
            ins.unknown = True
        ins.mems = [m]
        if m.base and (m.writeback or post is not None):
            ins.base_update = (m.base, post if post is not None else m.disp)
        return ins
    # Vector data into general registers or flags.
    if mn in FLAG_VEC:
        ins.writes_flags = ins.flags_only = ins.vec_to_gpr = True
        return ins
    dest = ops[0] if ops else ""
    if TRANSFER.match(mn) or (mn in ("mov", "fmov") and gpr(dest) and len(ops) == 2 and is_vec(ops[1])):
        ins.writes = [gpr(dest)] if gpr(dest) else []
        ins.vec_to_gpr = bool(ins.writes)
        return ins
    if is_vec(dest) or mn in ("movi", "mvni") or any(is_vec(o) for o in ops):
        # Vector result (general registers read, e.g. dup/ins/fmov from x, are public).
        return ins
    # General-register instructions.
    if mn in ("adrp", "adr"):
        ins.writes = [gpr(dest)]
        ins.const = ins.const_addr = True
        return ins
    if mn == "mrs":
        ins.writes = [gpr(dest)]
        ins.const = True
        return ins
    if mn in FLAG_ONLY or mn in GPR_ALU:
        srcs = [gpr(o) for o in (ops if mn in FLAG_ONLY else ops[1:])]
        ins.reads = [r for r in srcs if r]
        if mn == "movk" or mn.startswith("bf"):
            ins.reads.append(gpr(dest))
        if mn in FLAG_ONLY:
            ins.writes_flags = ins.flags_only = True
            ins.reads_flags = mn in FLAG_READ
            return ins
        ins.writes = [gpr(dest)] if gpr(dest) else []
        ins.writes_flags = mn in FLAG_SET
        ins.reads_flags = mn in FLAG_READ
        ins.divide = mn in ("udiv", "sdiv")
        if not ins.reads and not ins.reads_flags:
            ins.const = True  # mov #imm, mov xzr
        if mn in ("mov",) and len(ins.reads) == 1:
            ins.keep_prov = True
        if mn in ("add", "sub") and len(ops) >= 3 and imm(ops[2]) is not None:
            shift = 12 if len(ops) > 3 and "lsl #12" in ops[3] else 0
            ins.keep_prov = True
            ins.prov_off = (imm(ops[2]) << shift) * (1 if mn == "add" else -1)
        return ins
    ins.unknown = True
    return ins


LINE = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")


def parse_line(line, symbol_of):
    m = LINE.match(line)
    if not m or m.group(2).startswith(("<unknown>", ".word")):
        return None
    return decode(int(m.group(1), 16), m.group(2), m.group(3), symbol_of)


def resolve_jump_tables(insns, image):
    """LLVM AArch64 jump tables (`adrp/add` table, `ldrb|ldrh w, [xT, xI]`, `adr xB`,
    `add xD, xB, w, lsl #2`, `br xD`) are not resolved yet: their targets stay
    unreached and are reported by the engine."""
