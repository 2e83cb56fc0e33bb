"""Reads bytes at a virtual address of an ELF file (for jump tables in read-only data)."""

import struct


class Image:
    def __init__(self, path):
        self.data = open(path, "rb").read()
        d = self.data
        wide = d[4] == 2  # ELFCLASS64
        if wide:
            phoff, phentsize, phnum = struct.unpack_from("<Q", d, 0x20)[0], *struct.unpack_from("<HH", d, 0x36)
        else:
            phoff, phentsize, phnum = struct.unpack_from("<I", d, 0x1C)[0], *struct.unpack_from("<HH", d, 0x2A)
        self.loads = []
        for i in range(phnum):
            o = phoff + i * phentsize
            if wide:
                ptype, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", d, o)
            else:
                ptype, off, vaddr, _, filesz = struct.unpack_from("<IIIII", d, o)
            if ptype == 1:  # PT_LOAD
                self.loads.append((vaddr, off, filesz))

    def read(self, addr, n):
        for vaddr, off, size in self.loads:
            if vaddr <= addr and addr + n <= vaddr + size:
                return self.data[off + addr - vaddr: off + addr - vaddr + n]
        return None

    def i32(self, addr):
        b = self.read(addr, 4)
        return struct.unpack("<i", b)[0] if b else None
