"""Taint analysis over a disassembled function: the architecture-neutral part.

Each instruction is first decoded (x86.py, a64.py) into an `Insn`: the registers it
reads and writes, its memory operands, whether it moves vector data into a general
register, and what kind of control transfer it is. The analysis then runs forward over
the function's control-flow graph to a fixed point, tracking for every general register
(and the flags) a set of labels saying where its value may come from:

  S            secret: vector data (every vector register is assumed to hold secrets),
               memory that is not the stack frame or read-only data (addresses formed
               PC-relative), an unknown call result;
  L:aN+OFF     a load from OFF bytes into the N-th pointer argument (argument registers
               keep their provenance through moves and constant offsets);
  (none)       public: arguments (pointers and counts: the backend interface passes
               secrets only by reference), constants, the stack and PC-relative data.

Stack slots written with a labelled value keep the label (flow-insensitively: once a
slot is labelled it stays so for the whole function). A *sink* is a conditional branch
on labelled flags or registers, a memory address built from a labelled register, an
indirect call or jump through one, a division of labelled operands (variable-time on
most CPUs), or a call to a variable-time library routine (memcmp, bcmp). A sink whose
labels are all explained in the kernel table (e.g. a key-size field) is an allowed
exception; any other is a finding.

Functions called directly from analysed functions get the join of their call sites'
argument labels; the others (entry points and indirect-call targets) start with public
arguments. Call results are secret unless the callee is analysed (then its return
labels are used); the analysis iterates over all functions until nothing changes.
"""

from dataclasses import dataclass, field

SECRET = "S"
# An offset the decoder cannot know (a base moved by a register): labels through it name
# no table entry, and a stack address with it reads every slot.
UNKNOWN_OFF = 1 << 40


@dataclass
class Mem:
    base: str | None = None  # canonical register name, 'pc' for PC-relative, None
    index: str | None = None
    disp: int = 0
    size: int = 8
    load: bool = False
    store: bool = False
    writeback: bool = False


@dataclass
class Insn:
    addr: int
    text: str
    reads: list = field(default_factory=list)  # general registers read (values flow to writes)
    writes: list = field(default_factory=list)  # general registers written
    mems: list = field(default_factory=list)  # memory operands
    reads_flags: bool = False
    writes_flags: bool = False
    flags_only: bool = False  # cmp/test: reads feed the flags only
    cond: bool = False  # conditional branch (on flags, or on `cond_regs`)
    cond_regs: list = field(default_factory=list)
    jump: int | None = None  # direct branch target
    indirect: bool = False  # jump/call through a register or memory
    call: int | None = None  # direct call target
    is_call: bool = False
    ret: bool = False
    stop: bool = False  # no fall-through (ret, unconditional jump, trap)
    vec_to_gpr: bool = False  # vector data lands in `writes` (or the flags)
    zero_idiom: bool = False  # xor r,r: result public whatever r held
    const: bool = False  # result is a constant (adrp, mov imm, lea from pc)
    divide: bool = False
    vt_call: str | None = None  # call to a variable-time routine (name)
    callee: str | None = None  # name of a direct call's target (set by the driver)
    gather: bool = False  # memory address from vector lanes
    unknown: bool = False
    stack_store_from_vector: int = 0  # bytes of vector data stored to a stack slot
    push: str | list | None = None  # register(s) saved (a list: A32 push/stm to sp)
    pop: str | list | None = None  # register(s) restored
    keep_prov: bool = False  # writes[0] = reads[0] + constant (pointer provenance kept)
    const_addr: bool = False  # writes[0] = the address of constant data (lea x(%rip), adrp)
    keep_const: bool = False  # writes[0] = reads[0] + a register: stays inside a constant table
    targets: list = field(default_factory=list)  # jump-table targets (resolved by the driver)
    base_update: tuple | None = None  # (register, offset): writeback addressing
    public_load: str | None = None  # the kernel table explains why this load is public
    prov_off: int = 0
    cc: str | None = None  # A32: the condition of a predicated instruction
    sources: list | None = None  # A32 predicated ALU: the registers its new value comes from


class Arch:
    """What the engine needs to know about an ABI."""

    args: list  # integer argument registers, in order
    ret_regs: list
    caller_saved: list
    stack_regs: set
    slot = 8  # bytes of a stack slot (the width of a general register)
    sp_prov = False  # track sp offsets (registers derived from sp address the frame)
    flow_slots = False  # stack slots per program point (spill slots reused for other values)


def label_str(labels):
    return ",".join(sorted(labels)) if labels else "public"


class Function:
    def __init__(self, name, insns):
        self.name = name
        self.insns = insns
        self.index = {ins.addr: i for i, ins in enumerate(insns)}
        self.entry = {}  # arg register -> labels (join over direct call sites)
        self.ret_labels = frozenset()
        self.sinks = {}  # (addr, kind) -> labels
        self.transfers = [i.addr for i in insns if i.vec_to_gpr]  # vector -> general moves


def analyse(fn, arch, summaries, call_args):
    """One pass of the fixed point over `fn`. `summaries` maps function address to its
    return labels; `call_args` collects (callee address -> arg labels) for direct calls."""
    slots = {}  # (base, disp) -> labels; grows monotonically, then the pass is rerun
    pushed = frozenset()
    while True:
        grew, pushed = _pass(fn, arch, summaries, call_args, slots, pushed)
        if not grew:
            return


def _pass(fn, arch, summaries, call_args, slots, pushed):
    n = len(fn.insns)
    init_regs = {r: fn.entry.get(r, frozenset()) for r in arch.args}
    init_prov = {r: (f"a{i}", 0) for i, r in enumerate(arch.args)}
    if arch.sp_prov:
        init_prov["sp"] = ("sp", 0)
    states = [None] * n
    states[0] = (init_regs, init_prov, frozenset(), {})
    pushed_in = pushed
    slots_grew = False
    work = [0]
    fn.sinks = {}
    ret_labels = frozenset()
    fn.tail_jumps = []

    def reg(st, r):
        return st[0].get(r, frozenset())

    def sink(ins, kind, labels):
        if labels:
            key = (ins.addr, kind)
            fn.sinks[key] = fn.sinks.get(key, frozenset()) | labels

    def stack_base(ins, m, prov):
        if arch.sp_prov and m.index is None and prov.get(m.base, ("",))[0] == "sp":
            return True
        return m.base in arch.stack_regs and m.index is None

    def slot_key(m, prov):
        """(base, offset) of a stack operand; with sp_prov, registers derived from sp
        name the same slots as sp (offsets from sp at entry)."""
        if arch.sp_prov and prov.get(m.base, ("",))[0] == "sp":
            off = prov[m.base][1] + m.disp
            return ("sp", off) if abs(off) < UNKNOWN_OFF // 2 else ("sp?", 0)
        return m.base, m.disp

    while work:
        i = work.pop()
        regs, prov, flags, fslots = states[i]
        ins = fn.insns[i]
        regs = dict(regs)
        prov = dict(prov)
        fslots = dict(fslots)
        st = (regs, prov, flags)
        src = frozenset().union(*(reg(st, r) for r in ins.reads)) if ins.reads else frozenset()
        # Memory operands: address sinks, loads and stores.
        loaded = frozenset()
        for m in ins.mems:
            addr = frozenset()
            for r in (m.base, m.index):
                if r and r != "pc":
                    addr |= reg(st, r)
            sink(ins, "address", addr)
            if m.load:
                if ins.public_load:
                    pass
                elif m.base == "pc" and m.index is None:
                    pass
                elif stack_base(ins, m, prov):
                    kb, kd = slot_key(m, prov)
                    if arch.flow_slots and kb != "sp":  # an unknown offset: any slot
                        loaded |= frozenset().union(*fslots.values())
                    for (b, d), lab in (fslots if arch.flow_slots else slots).items():
                        if b == "*" or b == kb and d < kd + m.size and kd < d + arch.slot:
                            loaded |= lab
                elif m.base in prov and prov[m.base][0] == "const":
                    pass  # a table in read-only data (the index is checked above)
                elif m.base in prov and m.index is None and not addr:
                    a, off = prov[m.base]
                    loaded |= {f"L:{a}+{off + m.disp:#x}"}
                else:
                    loaded |= {SECRET}
            if m.store and arch.flow_slots:
                for r in ins.reads:  # a stack address stored anywhere: the frame escapes
                    if prov.get(r, ("",))[0] == "sp":
                        fslots[("esc", prov[r][1])] = frozenset()
            if m.store and stack_base(ins, m, prov):
                val = src if not ins.stack_store_from_vector else frozenset({SECRET})
                size = max(m.size, ins.stack_store_from_vector)
                kb, kd = slot_key(m, prov)
                if arch.flow_slots:
                    # Per program point: a store replaces the slots it covers whole.
                    if kb != "sp":
                        fslots[("*", 0)] = fslots.get(("*", 0), frozenset()) | val
                        continue
                    for d in range(kd - kd % arch.slot, kd + size, arch.slot):
                        whole = kd <= d and d + arch.slot <= kd + size
                        fslots[("sp", d)] = val | (frozenset() if whole else fslots.get(("sp", d), frozenset()))
                    continue
                for d in range(kd - kd % arch.slot, kd + size, arch.slot):
                    key = (kb, d)
                    if not val <= slots.get(key, frozenset()):
                        slots[key] = slots.get(key, frozenset()) | val
                        slots_grew = True
        if ins.gather:
            sink(ins, "address", frozenset({SECRET}))
        value = src | loaded
        if ins.vec_to_gpr:
            value |= {SECRET}
        if ins.reads_flags and not ins.cond:
            value |= flags  # cmov, adc, setcc
        if ins.zero_idiom or ins.const:
            value = frozenset()
        # Sinks of control flow and timing.
        if ins.cond:
            sink(ins, "branch", (flags if ins.reads_flags else frozenset())
                 | frozenset().union(*(reg(st, r) for r in ins.cond_regs)))
        if ins.indirect:
            sink(ins, "indirect", value)
        if ins.divide:
            sink(ins, "division", value)
        if ins.vt_call:
            sink(ins, f"call {ins.vt_call}", frozenset({SECRET}))
        # Effects.
        if ins.writes_flags:
            flags = value
        if ins.push:
            for r in [ins.push] if isinstance(ins.push, str) else ins.push:
                pushed = pushed | reg(st, r)
        fills_public = ins.callee == "memset" and not reg(st, arch.args[1])
        if ins.is_call and arch.flow_slots and not fills_public:
            # The callee may write wherever a stack address it can see points: from the
            # lowest such address up to the frame's top, the slots become secret (memset
            # with a public byte writes public values: slots keep their labels).
            esc = [prov[r][1] for r in arch.args if prov.get(r, ("",))[0] == "sp"]
            esc += [d for (b, d) in fslots if b == "esc"]
            if esc:
                for d in range(min(esc) - min(esc) % arch.slot, 0, arch.slot):
                    fslots[("sp", d)] = fslots.get(("sp", d), frozenset()) | {SECRET}
        if ins.is_call:
            for r in arch.args:
                if ins.call is not None:
                    call_args.setdefault(ins.call, {}).setdefault(r, frozenset())
                    call_args[ins.call][r] |= reg(st, r)
            result = summaries.get(ins.call, frozenset({SECRET}))
            for r in arch.caller_saved:
                regs[r] = frozenset({SECRET})
                prov.pop(r, None)
            for r in arch.ret_regs:
                regs[r] = result
            flags = frozenset({SECRET})
        elif not ins.flags_only:
            pops = [ins.pop] if isinstance(ins.pop, str) else ins.pop or []
            for k, r in enumerate(ins.writes):
                regs[r] = value if r not in pops else pushed
                if ins.const_addr:
                    prov[r] = ("const", 0)
                elif (ins.keep_const and k == 0 and ins.reads
                      and prov.get(ins.reads[0], ("",))[0] == "const"):
                    prov[r] = prov[ins.reads[0]]  # the index stays in the value's labels
                elif ins.keep_prov and k == 0 and ins.reads and ins.reads[0] in prov:
                    a, off = prov[ins.reads[0]]
                    prov[r] = (a, off + ins.prov_off)
                else:
                    prov.pop(r, None)
        if ins.base_update:
            r, off = ins.base_update
            if r in prov and r not in ins.writes:
                a, o = prov[r]
                prov[r] = (a, o + off)
        if ins.ret:
            for r in arch.ret_regs:
                ret_labels |= regs.get(r, frozenset())
        # Successors.
        succ = [fn.index[t] for t in ins.targets if t in fn.index]
        if not (ins.indirect and not ins.is_call):  # an indirect jump leaves (tail call)
            if ins.jump is not None and ins.jump in fn.index:
                succ.append(fn.index[ins.jump])
            if not ins.stop and i + 1 < n:
                succ.append(i + 1)
            if ins.jump is not None and ins.jump not in fn.index:
                fn.tail_jumps.append(ins.addr)  # a direct jump out: a tail call
        new = (regs, prov, flags, fslots)
        for j in succ:
            old = states[j]
            if old is None:
                states[j] = new
                work.append(j)
                continue
            merged_regs = dict(old[0])
            changed = False
            for r, lab in regs.items():
                if not lab <= merged_regs.get(r, frozenset()):
                    merged_regs[r] = merged_regs.get(r, frozenset()) | lab
                    changed = True
            merged_prov = {r: p for r, p in old[1].items() if prov.get(r) == p}
            if len(merged_prov) != len(old[1]):
                changed = True
            merged_flags = old[2] | flags
            if merged_flags != old[2]:
                changed = True
            merged_slots = dict(old[3])
            for k, lab in fslots.items():
                if not lab <= merged_slots.get(k, frozenset()):
                    merged_slots[k] = merged_slots.get(k, frozenset()) | lab
                    changed = True
            if changed:
                states[j] = (merged_regs, merged_prov, merged_flags, merged_slots)
                work.append(j)
    fn.ret_labels = ret_labels
    fn.unknown = [ins for ins in fn.insns if ins.unknown]
    # Code no path reaches (e.g. the targets of a jump table) was not analysed: it is
    # reported, so nothing escapes the check silently. Padding after the end is fine.
    fn.unreached = [ins for k, ins in enumerate(fn.insns)
                    if states[k] is None and not ins.text.startswith(("int3", "nop", "udf", "ud2"))]
    return slots_grew or pushed != pushed_in, pushed


def run(functions, arch, rounds=20):
    """Fixed point over all functions (entry labels and return summaries)."""
    by_addr = {f.insns[0].addr: f for f in functions if f.insns}
    summaries = {}
    for _ in range(rounds):
        call_args = {}
        for f in functions:
            if f.insns:
                analyse(f, arch, summaries, call_args)
        changed = False
        for a, f in by_addr.items():
            if summaries.get(a) != f.ret_labels:
                summaries[a] = f.ret_labels
                changed = True
            ent = call_args.get(a, {})
            if ent != f.entry:
                f.entry = ent
                changed = True
        if not changed:
            return True
    return False
