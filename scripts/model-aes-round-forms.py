#!/usr/bin/env python3
"""model-aes-round-forms.py - llvm-mca (Cortex-A57) price of one AES round per lane for 1..6
lanes interleaved, in four register-only forms for AArch64 NEON without the crypto
extensions; a hand-written round each, so that a form can be judged before it is written
as real code (docs/modeling.md, "S-box in registers").

Forms:
  vperm         aarch64-neon's vector-permute round (neon/vperm.rs: Hamburg's nibble
                inversion, each block half in its own register, every `tbl` the one-µop
                `.8b` form, MixColumns by `ext` across the halves);
  vperm-merged  the same with the S-box outputs merged (`trn1`) and MixColumns on whole
                registers;
  tbl16-chain   the whole 256-byte S-box in 16 registers: `tbl` on the first 64 bytes and
                `tbx` on the next three groups with the index lowered by 64 each time
                (the method of Linux's arch/arm64/crypto/aes-neon.S), all `.16b`;
                ShiftRows one `tbl`, MixColumns by xtime and 32-bit rotations; at
                most five lanes fit in the registers;
  tbl16-par     the same with four independent `tbl` and `orr` (out-of-range indices
                read 0), a shorter dependency chain;
  tbl8          the 256-byte S-box with `.8b` lookups on column-pair halves (ShiftRows
                a two-register `tbl` per half); at most two lanes fit in the registers.
The rounds are repeated (-iterations=100, the state carried between iterations), so a row
is the steady cost of a middle round; AES-128 runs nine of them plus the first and last.

usage: scripts/model-aes-round-forms.py [--mcpu cortex-a57]
"""
import argparse
import subprocess


def invert_and_outputs(x, a, d):
    """Hamburg's inversion of one half `x` (8 bytes) and the output tables: `a` = A, `d` = 2A."""
    return [f"and v12.8b, {x}.8b, v30.8b", f"ushr v13.8b, {x}.8b, #4", "eor v14.8b, v13.8b, v12.8b",
            "tbl v15.8b, {v20.16b}, v12.8b",
            "tbl v16.8b, {v21.16b}, v13.8b", "eor v16.8b, v16.8b, v15.8b",
            "tbl v17.8b, {v21.16b}, v14.8b", "eor v17.8b, v17.8b, v15.8b",
            "tbl v16.8b, {v21.16b}, v16.8b", "eor v16.8b, v16.8b, v14.8b",
            "tbl v17.8b, {v21.16b}, v17.8b", "eor v17.8b, v17.8b, v13.8b",
            "tbl v18.8b, {v22.16b}, v16.8b", "tbl v19.8b, {v23.16b}, v17.8b", f"eor {a}.8b, v18.8b, v19.8b",
            "tbl v18.8b, {v24.16b}, v16.8b", "tbl v19.8b, {v25.16b}, v17.8b", f"eor {d}.8b, v18.8b, v19.8b"]


def vperm(n):
    o = ["ldr d27, [x0]", "ldr d28, [x0, #8]"]       # the round key's halves
    for lane in range(n):
        x0, x1 = f"v{2 * lane}", f"v{2 * lane + 1}"
        for h, x in enumerate((x0, x1)):
            o += [f"tbl {x}.8b, {{{x}.16b}}, v29.8b"] + invert_and_outputs(x, f"v{8 + h}", f"v{10 + h}")
        o += ["eor v12.8b, v8.8b, v9.8b", "ext v12.8b, v12.8b, v12.8b, #4",
              "eor v13.8b, v10.8b, v27.8b", "eor v13.8b, v13.8b, v9.8b", "ext v14.8b, v10.8b, v11.8b, #4",
              "eor v14.8b, v14.8b, v12.8b", f"eor {x0}.8b, v13.8b, v14.8b",
              "eor v13.8b, v11.8b, v28.8b", "eor v13.8b, v13.8b, v8.8b", "ext v14.8b, v11.8b, v10.8b, #4",
              "eor v14.8b, v14.8b, v12.8b", f"eor {x1}.8b, v13.8b, v14.8b"]
    return o


def vperm_merged(n):
    o = ["ldr q27, [x0]"]
    for lane in range(n):
        x = f"v{lane}"
        for h in range(2):
            o += [f"tbl v{6 + h}.8b, {{{x}.16b}}, v{28 + h}.8b"]
            o += invert_and_outputs(f"v{6 + h}", f"v{8 + h}", f"v{10 + h}")
        o += ["trn1 v8.2d, v8.2d, v9.2d", "trn1 v10.2d, v10.2d, v11.2d",
              "ext v12.16b, v8.16b, v8.16b, #8", "eor v13.16b, v8.16b, v12.16b", "ext v13.16b, v13.16b, v13.16b, #4",
              "ext v14.16b, v10.16b, v10.16b, #4", "eor v15.16b, v10.16b, v27.16b", "eor v12.16b, v12.16b, v13.16b",
              "eor v15.16b, v15.16b, v14.16b", f"eor {x}.16b, v15.16b, v12.16b"]
    return o


def mix_columns(s, out, key, w, temps=("v28", "v29", "v30", "v24", "v25")):
    """out = xtime(t) ^ r ^ rot16(t) ^ key with r = rot8(s), t = s ^ r; `w` = 16b or 8b;
    0x1b in v17."""
    r, t, m, d, q = temps
    lanes32, lanes16 = ("4s", "8h") if w == "16b" else ("2s", "4h")
    return [f"ushr {r}.{lanes32}, {s}.{lanes32}, #8", f"sli {r}.{lanes32}, {s}.{lanes32}, #24",
            f"eor {t}.{w}, {s}.{w}, {r}.{w}", f"cmlt {m}.{w}, {t}.{w}, #0", f"and {m}.{w}, {m}.{w}, v17.{w}",
            f"add {d}.{w}, {t}.{w}, {t}.{w}", f"eor {d}.{w}, {d}.{w}, {m}.{w}", f"rev32 {q}.{lanes16}, {t}.{lanes16}",
            f"eor {r}.{w}, {r}.{w}, {key}.{w}", f"eor {d}.{w}, {d}.{w}, {q}.{w}", f"eor {out}.{w}, {d}.{w}, {r}.{w}"]


def tbl16(n, chain):
    """Up to five lanes: the S-box, the constants, the key and the temporaries leave five
    registers for the states."""
    if n > 5:
        return None
    o = ["ldr q31, [x0]"]    # S-box v0..v15, 0x40 in v16, 0x1b in v17, ShiftRows in v18
    for lane in range(n):
        x = f"v{19 + lane}"
        o += [f"tbl {x}.16b, {{{x}.16b}}, v18.16b", f"tbl v27.16b, {{v0.16b-v3.16b}}, {x}.16b"]
        if chain:
            o += [f"sub v26.16b, {x}.16b, v16.16b", "tbx v27.16b, {v4.16b-v7.16b}, v26.16b",
                  "sub v26.16b, v26.16b, v16.16b", "tbx v27.16b, {v8.16b-v11.16b}, v26.16b",
                  "sub v26.16b, v26.16b, v16.16b", "tbx v27.16b, {v12.16b-v15.16b}, v26.16b"]
        else:
            o += [f"sub v26.16b, {x}.16b, v16.16b", "tbl v28.16b, {v4.16b-v7.16b}, v26.16b",
                  "sub v25.16b, v26.16b, v16.16b", "tbl v29.16b, {v8.16b-v11.16b}, v25.16b",
                  "sub v24.16b, v25.16b, v16.16b", "tbl v30.16b, {v12.16b-v15.16b}, v24.16b",
                  "orr v27.16b, v27.16b, v28.16b", "orr v29.16b, v29.16b, v30.16b", "orr v27.16b, v27.16b, v29.16b"]
        o += mix_columns("v27", x, "v31", "16b")
    return o


def tbl8(n):
    """Up to two lanes: the S-box, the constants and two lanes' halves fill the 32 registers."""
    if n > 2:
        return None
    o = []     # S-box v0..v15, 0x40 in v16, 0x1b in v17, ShiftRows halves in v18, v19
    for lane in range(n):
        lo, hi = f"v{20 + 2 * lane}", f"v{21 + 2 * lane}"
        o += [f"tbl v24.8b, {{{lo}.16b, {hi}.16b}}, v18.8b", f"tbl v25.8b, {{{lo}.16b, {hi}.16b}}, v19.8b"]
        for h, (x, dst) in enumerate((("v24", lo), ("v25", hi))):
            o += [f"tbl v26.8b, {{v0.16b-v3.16b}}, {x}.8b", f"sub v27.8b, {x}.8b, v16.8b",
                  "tbx v26.8b, {v4.16b-v7.16b}, v27.8b", "sub v27.8b, v27.8b, v16.8b",
                  "tbx v26.8b, {v8.16b-v11.16b}, v27.8b", "sub v27.8b, v27.8b, v16.8b",
                  "tbx v26.8b, {v12.16b-v15.16b}, v27.8b", f"ldr d{24 + h}, [x0, #{8 * h}]"]
            o += mix_columns("v26", dst, x, "8b", ("v28", "v29", "v30", "v31", "v27"))
    return o


FORMS = [("vperm", vperm), ("vperm-merged", vperm_merged), ("tbl16-chain", lambda n: tbl16(n, True)),
         ("tbl16-par", lambda n: tbl16(n, False)), ("tbl8", tbl8)]


def price(lines, mcpu, iterations=100):
    r = subprocess.run(["llvm-mca-19", "-mtriple=aarch64", f"-mcpu={mcpu}", f"-iterations={iterations}"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    d = dict(l.split(":", 1) for l in r.splitlines()[:8] if ":" in l)
    return int(d["Total Cycles"]) / iterations, int(d["Total uOps"]) / iterations


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcpu", default="cortex-a57")
    args = ap.parse_args()
    print(f"cycles per round (µops) on the {args.mcpu} model, lanes interleaved round by round")
    print("| lanes | " + " | ".join(name for name, _ in FORMS) + " |")
    print("|---" * (len(FORMS) + 1) + "|")
    for n in range(1, 7):
        cells = []
        for _, form in FORMS:
            lines = form(n)
            cells.append("—" if lines is None else "%.1f (%.0f)" % price(lines, args.mcpu))
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
