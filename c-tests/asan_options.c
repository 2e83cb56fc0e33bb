/* Linked into the sanitized C tests (scripts/sanitize.sh): the ASan options as compiled-in
 * defaults, not only as ASAN_OPTIONS. Under proot + qemu-user (the emulated roots of
 * scripts/test-arm-host.sh) ASAN_OPTIONS does not reach ASan: it reads its options from
 * /proc/self/environ, which there shows the environment the emulator was first started
 * with, not the program's -- so the link-order check and LeakSanitizer (which cannot run
 * under ptrace) fired whatever the script set. Where the environment is seen, it still
 * overrides these. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return SGCM_ASAN_OPTIONS; }
