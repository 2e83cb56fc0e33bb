#!/usr/bin/env python3
"""Static constant-time check of the built library's backend kernels (docs/constant-time.md).

For backends that valgrind cannot run (x86_64-vaes: valgrind hides VAES; aarch64-ce-eor3:
valgrind 3.19 has no SHA3 instructions; arm-ce: armhf valgrind hides AES/PMULL) and as a second opinion for the others: every
function of a backend's modules is disassembled (llvm-objdump-19) and run through a taint
analysis (scripts/ct_static/) which proves that no conditional branch, memory address,
indirect jump, division or variable-time library call depends on data that may be secret
(vector registers, caller memory), except the explained exceptions in the kernel table
(scripts/ct-static.txt). Functions are selected by their demangled Rust path, so the check
follows code that moves between files; each backend must match its required kernels.

usage: ct-static.py --lib LIB --arch x86_64|aarch64|armv7 [--backend NAME] [--verbose]
       ct-static.py --selftest    the checker must flag a deliberately leaky function
Prints one line per backend and "N passed, M failed".
"""

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ct_static import a32, a64, elf, engine, x86  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OBJDUMP = os.environ.get("LLVM_OBJDUMP", "llvm-objdump-19")
ARCHES = {"x86_64": (x86, x86.X86()), "aarch64": (a64, a64.A64()), "armv7": (a32, a32.A32())}


def read_table(path):
    """backend lines: NAME ARCH SELECT-REGEX REQUIRED,KERNELS; exclude/allow lines."""
    table, shared = {}, {}  # (name, arch) -> spec; name -> exclude/allow lists shared by arches
    for raw in open(path):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("allow") else raw.strip()
        if not line:
            continue
        words = line.split(None, 3)
        kind, name = words[0], words[1]
        common = shared.setdefault(name, {"exclude": [], "allow": {}, "loads": []})
        if kind == "backend":
            arch, rest = words[2], words[3].split()
            table[(name, arch)] = dict(common, arch=arch, select=re.compile(rest[0]),
                                       require=rest[1].split(",") if len(rest) > 1 else [])
        elif kind == "exclude":
            common["exclude"].append(re.compile(words[2]))
        elif kind == "allow":
            label, why = words[2], words[3].strip().strip('"') if len(words) > 3 else ""
            common["allow"][label] = why
        elif kind == "allowload":
            m = re.fullmatch(r'(\S+)\s+"([^"]+)"\s+"([^"]+)"', words[2] + " " + words[3])
            common["loads"].append((re.compile(m.group(1)), re.compile(m.group(2)), m.group(3)))
    return table


def relocations(lib, starts):
    """GOT slot address -> callee name, for calls through the GOT: imported symbols, and
    RELATIVE slots holding the address of one of the library's own functions."""
    out = subprocess.run(["readelf", "-rW", lib], capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 4 and re.fullmatch(r"[0-9a-f]+", p[0]):
            if "RELATIVE" in p[2] and int(p[3], 16) in starts:
                got[int(p[0], 16)] = starts[int(p[3], 16)]
            elif len(p) >= 5:
                got[int(p[0], 16)] = p[4].split("@")[0]
    return got


def thumb_functions(lib):
    """Start addresses of the functions whose symbol has the Thumb bit set (odd value)."""
    out = subprocess.run(["readelf", "-sW", lib], capture_output=True, text=True).stdout
    return {int(p[1], 16) - 1 for p in (line.split(None, 7) for line in out.splitlines())
            if len(p) == 8 and p[3] == "FUNC" and re.fullmatch(r"[0-9a-f]+", p[1])
            and int(p[1], 16) & 1}


# Callees that never return (Rust's panics and aborts): no fall-through after the call.
NORETURN = re.compile(r"panic|_fail\b|unwrap_failed|expect_failed|\babort\b|::die$|handle_alloc_error")


def disassemble(lib, extra=()):
    out = subprocess.run([OBJDUMP, "-d", "--demangle", "--no-show-raw-insn", *extra, lib],
                         capture_output=True, text=True, check=True).stdout
    funcs, name, body = [], None, []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            if name:
                funcs.append((name, body))
            name, body = m.group(1), []
        elif name and line.strip():
            body.append(line)
    if name:
        funcs.append((name, body))
    return funcs


def strip_hash(name):
    return re.sub(r"::h[0-9a-f]{16}$", "", name)


def check(lib, arch_name, table, only=None, verbose=False):
    mod, arch = ARCHES[arch_name]
    raw = disassemble(lib, getattr(mod, "OBJDUMP_ARGS", ()))
    image = elf.Image(lib)
    starts = {int(body[0].split(":")[0], 16): strip_hash(name) for name, body in raw
              if body and re.match(r"\s*[0-9a-f]+:", body[0])}
    got = relocations(lib, starts)
    plt = {}

    def symbol_of(text):
        m = re.search(r"#\s*0x([0-9a-f]+)", text) or re.search(r"\b0x([0-9a-f]+)\b", text)
        if m and int(m.group(1), 16) in got:
            return f"<{got[int(m.group(1), 16)]}>"
        m = re.search(r"<([^>+]+)@plt>", text)
        return f"<{m.group(1)}>" if m else text

    for name, body in raw:
        m = re.fullmatch(r"(\S+)@plt", name)
        if m and body:
            plt[int(body[0].split(":")[0], 16)] = m.group(1)
        if name == ".plt" and hasattr(mod, "plt_entries"):  # no @plt symbols (AArch32)
            plt.update(mod.plt_entries(body, got))
    thumb = thumb_functions(lib) if arch_name == "armv7" else set()
    passed = failed = 0
    for (backend, _), spec in table.items():
        if spec["arch"] != arch_name or (only and backend not in only):
            continue
        funcs = []
        for name, body in raw:
            short = strip_hash(name)
            if not spec["select"].search(short) or any(x.search(short) for x in spec["exclude"]):
                continue
            insns = [i for i in (mod.parse_line(line, symbol_of) for line in body) if i]
            if insns:
                mod.resolve_jump_tables(insns, image)
                if hasattr(mod, "pair_predicated"):
                    mod.pair_predicated(insns)
            for k, i in enumerate(insns):
                # The pattern sees this instruction with the two before it, joined by " ; ".
                window = " ; ".join(x.text for x in insns[max(0, k - 2): k + 1])
                for fre, ire, why in spec["loads"]:
                    if fre.search(short) and ire.search(window) and any(m.load for m in i.mems):
                        if ire.search(window).end() == len(window):
                            i.public_load = why
                if not i.is_call:
                    continue
                callee = plt.get(i.call) or starts.get(i.call) or symbol_of(i.text).strip("<>")
                i.callee = callee
                if callee in x86.VT_CALLS:
                    i.vt_call = callee
                if NORETURN.search(callee or ""):
                    i.stop = True
            funcs.append(engine.Function(short, insns))
        problems = [f"{f.name}: a Thumb function (the decoder reads A32)" for f in funcs
                    if f.insns and f.insns[0].addr in thumb]
        missing = [r for r in spec["require"]
                   if not any(alt in f.name for alt in r.split("|") for f in funcs)]
        if missing:
            problems.append(f"required kernels not found: {', '.join(missing)}")
        if funcs and not engine.run(funcs, arch):
            problems.append("analysis did not converge")
        allowed, transfers, ninsn = {}, 0, 0
        for f in funcs:
            ninsn += len(f.insns)
            transfers += len(f.transfers)
            for ins in f.unknown:
                problems.append(f"{f.name}: unknown instruction {ins.text!r}")
            unreached = [i for i in f.unreached if not linker_patch(f, i, arch_name)]
            if unreached:
                problems.append(f"{f.name}: {len(unreached)} instructions not reached by the "
                                f"analysis (jump table?), first at {unreached[0].addr:#x}")
            for (addr, kind), labels in sorted(f.sinks.items()):
                bad = [lab for lab in labels if lab not in spec["allow"]]
                ins = f.insns[f.index[addr]]
                if bad:
                    problems.append(f"{f.name}: {kind} from {engine.label_str(labels)} at "
                                    f"{addr:#x}: {ins.text}")
                else:
                    for lab in labels:
                        allowed.setdefault(lab, 0)
                        allowed[lab] += 1
        status = "ok" if not problems else "FAIL"
        print(f"ct-static {backend}: {status}: {len(funcs)} functions, {ninsn} instructions, "
              f"{transfers} vector->general moves, {sum(allowed.values())} sinks on explained "
              f"public values, {len(problems)} findings")
        for lab, count in sorted(allowed.items()):
            print(f"  allowed {lab} ({count} sinks): {spec['allow'][lab]}")
        sites = {}
        for f in funcs:
            for i in f.insns:
                if i.public_load:
                    sites.setdefault(i.public_load, []).append(f"{i.addr:#x}")
        for why, where in sorted(sites.items()):
            print(f"  public load at {len(where)} sites ({', '.join(where[:4])}"
                  f"{', ...' if len(where) > 4 else ''}): {why}")
        for p in problems[: None if verbose else 40]:
            print(f"  {p}")
        if len(problems) > 40 and not verbose:
            print(f"  ... {len(problems) - 40} more (--verbose)")
        passed += not problems
        failed += bool(problems)
    return passed, failed


SELFTEST = {
    "x86_64": ("gcc", "-O2"),
    "aarch64": ("aarch64-linux-gnu-gcc", "-O2"),
    "armv7": ("arm-linux-gnueabihf-gcc", "-O2 -marm -march=armv7-a -mfpu=neon -mfloat-abi=hard"),
}
LEAKY_C = r"""
#include <immintrin.h>
#include <stdint.h>
static const uint8_t table[256] = {1};
/* Vector data to a general register, then a table index and a branch from it. */
int stitchgcm_leaky_kernel(const uint8_t *key, const uint8_t *p) {
  __m128i v = _mm_xor_si128(_mm_loadu_si128((const void *)key), _mm_loadu_si128((const void *)p));
  int lane = _mm_cvtsi128_si32(v);
  if (lane & 1) return table[lane & 255];
  return 0;
}
/* A byte of caller memory used as an index. */
int stitchgcm_leaky_lookup(const uint8_t *key) { return table[key[3]]; }
"""
LEAKY_A64 = r"""
#include <arm_neon.h>
#include <stdint.h>
static const uint8_t table[256] = {1};
int stitchgcm_leaky_kernel(const uint8_t *key, const uint8_t *p) {
  uint8x16_t v = veorq_u8(vld1q_u8(key), vld1q_u8(p));
  int lane = vgetq_lane_u32(vreinterpretq_u32_u8(v), 0);
  if (lane & 1) return table[lane & 255];
  return 0;
}
int stitchgcm_leaky_lookup(const uint8_t *key) { return table[key[3]]; }
/* A lane moved to a general register (umov; vmov.u8 on AArch32) and branched on: a
   conditional call cannot become a select. */
extern void stitchgcm_sink(void);
void stitchgcm_leaky_lane(const uint8_t *key) {
  if (vgetq_lane_u8(vld1q_u8(key), 5) & 1) stitchgcm_sink();
}
#ifdef __arm__
/* A32: a store whose address a same-condition ALU instruction just made from a key byte
   (pair_predicated must hand the store that instruction's sources, the key byte among
   them). Divided syntax, GCC's for inline asm: strneb is strbne. */
void stitchgcm_leaky_pair(const uint8_t *key, uint8_t *out, unsigned n) {
  unsigned k = key[0];
  __asm__ volatile("tst %[n], #1\n\taddne r3, %[out], %[k]\n\tstrneb %[n], [r3]"
                   : : [n] "r"(n), [out] "r"(out), [k] "r"(k) : "r3", "cc", "memory");
}
#endif
"""


def selftest(native=None):
    """Each leaky function must be flagged (named in a finding), for each architecture (with
    the cross compilers), or, on an ARM host, for `native` alone (with its own gcc)."""
    spec = {
        "leaky": {"arch": None, "select": re.compile(r"^stitchgcm_leaky_"),
                  "require": ["stitchgcm_leaky_kernel", "stitchgcm_leaky_lookup"],
                  "exclude": [], "allow": {}, "loads": []},
    }
    ok = bad = 0
    compilers = SELFTEST if native is None else {native: ("gcc", SELFTEST[native][1])}
    for arch_name, (cc, opt) in compilers.items():
        with tempfile.TemporaryDirectory() as d:
            src, lib = os.path.join(d, "leaky.c"), os.path.join(d, "leaky.so")
            open(src, "w").write(LEAKY_C if arch_name == "x86_64" else LEAKY_A64)
            r = subprocess.run([cc, *opt.split(), "-shared", "-fPIC", "-o", lib, src],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"selftest {arch_name}: cannot build the leaky library: {r.stderr[:200]}")
                bad += 1
                continue
            names = ["stitchgcm_leaky_kernel", "stitchgcm_leaky_lookup"]
            names += [] if arch_name == "x86_64" else ["stitchgcm_leaky_lane"]
            names += ["stitchgcm_leaky_pair"] if arch_name == "armv7" else []
            spec["leaky"].update(arch=arch_name, require=names)
            print(f"selftest {arch_name}: the checker must FAIL on this library:")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                p, f = check(lib, arch_name, {("leaky", arch_name): spec["leaky"]}, verbose=True)
            print(out.getvalue(), end="")
            unflagged = [n for n in names if not re.search(rf"^  {n}: (branch|address)", out.getvalue(), re.M)]
            if f == 1 and p == 0 and not unflagged:
                ok += 1
            else:
                print(f"selftest {arch_name}: NOT flagged: {', '.join(unflagged) or 'the library'}")
                bad += 1
    return ok, bad


def linker_patch(f, ins, arch):
    """Whether an unreached instruction of `f` belongs to a linker's erratum patch, which the
    linker places between functions and so inside a symbol's range: for Cortex-A53 erratum
    843419 (an `adrp` in one of a page's last two words, then a load or store using it),
    GNU ld moves the load or store to a patch that runs it and branches back with `b`, and
    leaves it in place when it relaxes the `adrp` instead. Such a patch is an unreached run
    of at most two instructions ending in an unconditional `b`, whose other instruction, if
    any, is a copy of one of the function's own."""
    if arch != "aarch64":
        return False
    k = f.index[ins.addr]
    unreached = {i.addr for i in f.unreached}
    lo = k
    while lo > 0 and f.insns[lo - 1].addr in unreached:
        lo -= 1
    hi = k
    while hi + 1 < len(f.insns) and f.insns[hi + 1].addr in unreached:
        hi += 1
    run = f.insns[lo:hi + 1]
    if not 1 <= len(run) <= 2 or not re.match(r"b\s+0x", run[-1].text):
        return False
    own = {i.text for i in f.insns if i.addr not in unreached}
    return len(run) == 1 or run[0].text in own


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib")
    ap.add_argument("--arch", choices=sorted(ARCHES))
    ap.add_argument("--table", default=os.path.join(HERE, "ct-static.txt"))
    ap.add_argument("--backend", action="append")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        p, f = selftest(a.arch)
    else:
        if not a.lib or not a.arch:
            ap.error("--lib and --arch are required")
        p, f = check(a.lib, a.arch, read_table(a.table), a.backend, a.verbose)
        if p + f == 0:
            print("no backend of the table matched this architecture")
            f = 1
    print(f"{p} passed, {f} failed")
    return 1 if f else 0


if __name__ == "__main__":
    sys.exit(main())
