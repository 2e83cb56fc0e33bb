/*
 * Runs a command (proot, for scripts/roots.sh) with a seccomp filter that makes the system
 * calls Debian 12's proot 5.1 does not know fail with ENOSYS, so that their callers fall
 * back to the older calls proot translates.
 *
 * proot rewrites the paths of the system calls it knows; one it does not know reaches the
 * kernel with the root's path unchanged and so acts on the host's file of that name. Under
 * qemu-user the guest's calls become the host's: armhf's glibc stats with statx (64-bit
 * time), Rust's std stats with statx on every architecture, glibc's faccessat with flags
 * uses faccessat2, and glibc creates threads and processes with clone3. Each of them has a
 * documented fallback when the kernel answers ENOSYS (qemu-user's statx emulation falls back
 * to fstatat, glibc's faccessat to faccessat, its clone wrappers to clone), so answering
 * ENOSYS here keeps every caller inside proot's view. The filter is inherited by proot and
 * everything it runs; it only looks at x86_64 system call numbers, the host's.
 *
 * usage: proot-syscalls COMMAND [ARGS...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                 BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS)

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
#if !defined(__x86_64__)
  /* Other hosts: their numbers differ; run the command unfiltered. */
#else
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      DENY(332), /* statx */
      DENY(435), /* clone3 */
      DENY(437), /* openat2 */
      DENY(439), /* faccessat2 */
      DENY(452), /* fchmodat2 */
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    perror("proot-syscalls: seccomp");
    return 1;
  }
#endif
  execvp(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}
