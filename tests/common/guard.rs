//! Guard pages for the out-of-bounds tests (`guard_pages.rs`, `rfc4106_guard_pages.rs`):
//! a read-write page between two `PROT_NONE` pages, buffers placed so that they end at the
//! following guard (over-reads and over-writes fault) or start right after the preceding one
//! (under-reads fault), and one such region per role of a call.

/// The longest buffer placed at a guard (the tests' data lengths run 0..=MAX_LEN).
pub const MAX_LEN: usize = 300;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum At {
    /// The buffer ends where the next guard page begins.
    End,
    /// The buffer begins where the previous guard page ends.
    Start,
}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    assert!(p > 0, "sysconf(_SC_PAGESIZE) failed");
    p as usize
}

/// One read-write page between two `PROT_NONE` pages.
pub struct Guarded {
    base: *mut u8,
    page: usize,
}

impl Guarded {
    pub fn new() -> Guarded {
        let page = page_size();
        assert!(page >= MAX_LEN + 64);
        // SAFETY: a fresh anonymous private mapping; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                3 * page,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap of a guarded region failed");
        let base = p as *mut u8;
        // SAFETY: the middle page lies inside the 3-page mapping just created.
        let rc = unsafe {
            libc::mprotect(
                base.add(page).cast(),
                page,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        assert_eq!(rc, 0, "mprotect failed");
        Guarded { base, page }
    }

    /// A `len`-byte buffer at the end or the start of the read-write page.
    pub fn place(&mut self, at: At, len: usize) -> &mut [u8] {
        assert!(len <= self.page);
        let off = match at {
            At::End => 2 * self.page - len,
            At::Start => self.page,
        };
        // SAFETY: `off..off + len` lies inside the read-write page of our live mapping;
        // the exclusive borrow of `self` keeps the slice unique while it lives.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(off), len) }
    }

    /// Like `place`, filled with `data`.
    pub fn with(&mut self, at: At, data: &[u8]) -> &mut [u8] {
        let s = self.place(at, data.len());
        s.copy_from_slice(data);
        s
    }

    /// The first byte of the guard page after the read-write page.
    pub fn guard_after(&self) -> *const u8 {
        // SAFETY: offset 2 * page is inside the 3-page mapping.
        unsafe { self.base.add(2 * self.page) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping created in `new`; no slice into it outlives
        // `self` (they all borrow it).
        let rc = unsafe { libc::munmap(self.base.cast(), 3 * self.page) };
        assert_eq!(rc, 0);
    }
}

/// One guarded region per role, so that all buffers of one call can sit at guards.
pub struct Regions {
    pub key: Guarded,
    pub iv: Guarded,
    pub aad: Guarded,
    pub src: Guarded,
    pub dst: Guarded,
    pub tag: Guarded,
}

impl Regions {
    pub fn new() -> Regions {
        Regions {
            key: Guarded::new(),
            iv: Guarded::new(),
            aad: Guarded::new(),
            src: Guarded::new(),
            dst: Guarded::new(),
            tag: Guarded::new(),
        }
    }
}
