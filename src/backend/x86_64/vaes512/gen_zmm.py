#!/usr/bin/env python3
"""Generates zmm/: the 512-bit pass (zmm/mod.rs) and tail (zmm/tail.rs) of x86_64-vaes512, an `asm!` template each.

Usage (the contract of the other generators under src/backend, gen_*.py):
  python3 src/backend/x86_64/vaes512/gen_zmm.py            write zmm/mod.rs and zmm/tail.rs (beside this file)
  python3 src/backend/x86_64/vaes512/gen_zmm.py --verify   write nothing: exit 1 unless zmm/
                                                           is what this generates

Why generated: the listing is flat (every instruction of one iteration in order, the
GHASH groups and the reduction steps slotted between the AES rounds, `.if` on the
template's constants for the key size and the AES / GHASH switches); the tables in the
parts say the order once. The method and the register plan are in zmm/mod.rs's opening
comment.

The parts, modules beside this file (not named gen_*.py: scripts/test.sh runs those):
  zmm_counters.py  the counter steps and the round-1 table's build, with their constants
  zmm_ghash.py     the GHASH stream, the reduction, the spreading of a stream over rounds
  zmm_pass.py      listing(): the pass's instructions in order
  zmm_tail.py      tail_listing(): the tail's
  zmm_text.py      the Rust text around both (doc comments, CONSTANTS, the wrappers)
This file joins them (`generate`) and writes or checks zmm/.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
# The parts beside this file (Python puts the script's folder on the path).
from zmm_pass import listing  # noqa: E402
from zmm_tail import tail_listing  # noqa: E402
from zmm_text import HEAD, TAIL, TAIL_FN_HEAD, TAIL_FN_TAIL  # noqa: E402

# The pass (with the constants both templates read) and the tail, a file each.
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zmm')


def generate():
    clobbers = ''.join(f'            out("zmm{k}") _,\n' for k in range(32))
    masks = ''.join(f'            out("k{k}") _,\n' for k in range(1, 8))
    return {
        'mod.rs': HEAD + listing() + TAIL.replace('@CLOBBERS@', clobbers + masks[:2 * len(masks) // 7]),
        'tail.rs': TAIL_FN_HEAD + tail_listing()
        + TAIL_FN_TAIL.replace('@CLOBBERS@', clobbers + masks),
    }


if __name__ == '__main__':
    files = generate()
    if sys.argv[1:] == ['--verify']:
        def current(name, text):
            try:
                with open(os.path.join(DIR, name)) as f:
                    return f.read() == text
            except OSError:
                return False
        sys.exit(0 if all(current(n, t) for n, t in files.items()) else 1)
    elif sys.argv[1:]:
        sys.exit(__doc__)
    os.makedirs(DIR, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(DIR, name), 'w') as f:
            f.write(text)
