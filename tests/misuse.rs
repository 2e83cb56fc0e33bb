//! Misuse of every front-end, driven by one table (tests/misuse.txt: case → front-end →
//! expected code or abort). Each row runs in a forked child process (the length-limit rows
//! excepted, see below), so that a crash or an unexpected abort is that row's failure and
//! the others still run; rows that
//! must abort (nettle's failed assertions) are checked for SIGABRT and their message on
//! stderr. Every implemented case must have a row and every row an implementation.
//!
//! The implementations are in tests/misuse/: the handle API, the one-shot functions, the
//! Rust API, the nettle ABI, and the GCM length limit (tested with genuinely mapped memory).
//! This binary holds one test so that forking happens with no other test thread running.

mod common;
#[path = "common/nettle_abi.rs"]
mod nettle_abi;
mod misuse {
    pub mod handle;
    pub mod limits;
    pub mod nettle;
    pub mod oneshot;
    pub mod rfc4106;
    pub mod rust_api;
}

use misuse::*;
use std::io::Read;
use stitchgcm::ffi::native::*;

/// What a case returns: an `SGCM_ERR_*` code (0 = OK), or one of these.
pub const MIXED: u32 = 1000; // the case's calls disagreed with each other
pub const NOT_HERE: u32 = 1001; // cannot be set up on this target (reason printed)
const PANICKED: u32 = 1002; // an assertion inside the case failed

pub struct Case {
    pub front: &'static str,
    pub name: &'static str,
    pub run: fn() -> u32,
}

/// The one code all of `codes` agree on, or MIXED.
pub fn same(codes: &[u32]) -> u32 {
    if codes.iter().all(|&c| c == codes[0]) {
        codes[0]
    } else {
        eprintln!("calls disagree: {codes:?}");
        MIXED
    }
}

fn code_of(name: &str) -> Option<u32> {
    Some(match name {
        "OK" => SGCM_ERR_NO_ERROR,
        "CHECKSUM" => SGCM_ERR_CHECKSUM,
        "CIPHER_ALGO" => SGCM_ERR_CIPHER_ALGO,
        "INV_KEYLEN" => SGCM_ERR_INV_KEYLEN,
        "INV_ARG" => SGCM_ERR_INV_ARG,
        "NOT_SUPPORTED" => SGCM_ERR_NOT_SUPPORTED,
        "INV_CIPHER_MODE" => SGCM_ERR_INV_CIPHER_MODE,
        "INV_LENGTH" => SGCM_ERR_INV_LENGTH,
        "INV_STATE" => SGCM_ERR_INV_STATE,
        "MISSING_KEY" => SGCM_ERR_MISSING_KEY,
        "BUFFER_TOO_SHORT" => SGCM_ERR_BUFFER_TOO_SHORT,
        _ => return None,
    })
}

enum Expect {
    Code(u32),
    Abort(String),
}

struct Row {
    line: usize,
    name: String,
    front: String,
    expect: Expect,
}

fn table() -> Vec<Row> {
    let text = include_str!("misuse.txt");
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(
            cols.len(),
            3,
            "misuse.txt:{}: want `case | front-end | expect`",
            i + 1
        );
        let expect = match cols[2].strip_prefix("abort ") {
            Some(m) => Expect::Abort(m.trim_matches('"').to_string()),
            None => Expect::Code(code_of(cols[2]).unwrap_or_else(|| {
                panic!("misuse.txt:{}: unknown expectation {:?}", i + 1, cols[2])
            })),
        };
        rows.push(Row {
            line: i + 1,
            name: cols[0].to_string(),
            front: cols[1].to_string(),
            expect,
        });
    }
    rows
}

/// How a child ended: its exit code (the case's result), or the signal that killed it,
/// with everything it wrote to stderr.
enum Ended {
    Exited(u32),
    Signal(i32),
}

fn in_child(run: fn() -> u32) -> (Ended, String) {
    let mut fds = [0; 2];
    // SAFETY: pipe() fills two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: this binary runs one test, so no other thread is inside the library or the
    // allocator; the child only runs the case and leaves with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: stderr becomes the pipe's write end; the read end is closed.
        unsafe {
            libc::dup2(fds[1], 2);
            libc::close(fds[0]);
        }
        let status = match std::panic::catch_unwind(run) {
            Ok(MIXED) => 254,
            Ok(NOT_HERE) => 253,
            Ok(code) if code < 250 => code as i32,
            _ => 252, // a panic (a failed assertion inside the case) or a code out of range
        };
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(status) };
    }
    // SAFETY: the parent keeps the read end only.
    unsafe { libc::close(fds[1]) };
    let mut err = String::new();
    // SAFETY: `fds[0]` is our pipe's read end, owned by the File from here on.
    let mut f = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) };
    let _ = f.read_to_string(&mut err);
    let mut status = 0;
    // SAFETY: waits for our child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    let ended = if libc::WIFSIGNALED(status) {
        Ended::Signal(libc::WTERMSIG(status))
    } else {
        Ended::Exited(match libc::WEXITSTATUS(status) {
            254 => MIXED,
            253 => NOT_HERE,
            252 => PANICKED,
            c => c as u32,
        })
    };
    (ended, err)
}

/// A case run in this process (it must not abort: a crash fails the whole test).
fn in_process(run: fn() -> u32) -> u32 {
    std::panic::catch_unwind(run).unwrap_or(PANICKED)
}

#[test]
fn every_front_end_handles_misuse_as_the_table_says() {
    // The limit cases run last and in this process: they need 128 GiB of mapped address
    // space, which would make every later fork slow (very slow under qemu-user).
    let forked = [
        handle::cases(),
        oneshot::cases(),
        rust_api::cases(),
        nettle::cases(),
        rfc4106::cases(),
    ];
    let cases: Vec<(Case, bool)> = forked
        .into_iter()
        .flatten()
        .map(|c| (c, true))
        .chain(limits::cases().into_iter().map(|c| (c, false)))
        .collect();
    let rows = table();
    let mut failures = Vec::new();
    let mut not_here = 0;
    let mut per_front = std::collections::BTreeMap::<&str, usize>::new();
    for (c, _) in &cases {
        if !rows.iter().any(|r| r.name == c.name && r.front == c.front) {
            failures.push(format!(
                "case {:?} / {} has no row in misuse.txt",
                c.name, c.front
            ));
        }
    }
    let mut order: Vec<(&Row, Option<&(Case, bool)>)> = rows
        .iter()
        .map(|r| {
            (
                r,
                cases
                    .iter()
                    .find(|(c, _)| c.name == r.name && c.front == r.front),
            )
        })
        .collect();
    order.sort_by_key(|(_, c)| c.is_some_and(|(_, fork)| !fork));
    for (row, found) in order {
        let Some((case, fork)) = found else {
            failures.push(format!("misuse.txt:{}: no implementation", row.line));
            continue;
        };
        let (ended, err) = if *fork {
            in_child(case.run)
        } else {
            limits::prepare();
            (Ended::Exited(in_process(case.run)), limits::unavailable())
        };
        let what = format!("misuse.txt:{}: {} / {}", row.line, row.name, row.front);
        match (&row.expect, ended) {
            (_, Ended::Exited(NOT_HERE)) => {
                println!("{what}: not on this target: {}", err.trim());
                not_here += 1;
                continue;
            }
            (Expect::Code(want), Ended::Exited(got)) if got == *want => {}
            (Expect::Abort(msg), Ended::Signal(libc::SIGABRT)) if err.contains(msg.as_str()) => {}
            (Expect::Code(want), Ended::Exited(got)) => failures.push(format!(
                "{what}: returned {got}, want {want} {}",
                err.trim()
            )),
            (Expect::Abort(msg), Ended::Signal(libc::SIGABRT)) => failures.push(format!(
                "{what}: aborted, but stderr lacks {msg:?}: {err:?}"
            )),
            (_, Ended::Signal(s)) => {
                failures.push(format!("{what}: killed by signal {s}: {}", err.trim()))
            }
            (Expect::Abort(_), Ended::Exited(got)) => {
                failures.push(format!("{what}: returned {got} instead of aborting"))
            }
        }
        *per_front.entry(case.front).or_default() += 1;
    }
    let summary: Vec<String> = per_front.iter().map(|(f, n)| format!("{f} {n}")).collect();
    println!(
        "misuse: {} rows checked ({}), {not_here} not applicable on this target",
        rows.len() - not_here,
        summary.join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
