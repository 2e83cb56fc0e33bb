/* Linked into the sanitized C tests (scripts/sanitize.sh): the ASan options as compiled-in
 * defaults, not only as ASAN_OPTIONS. Under proot + qemu-user (the emulated roots of
 * scripts/test-arm-host.sh) the environment did not reach ASan's early option parsing in
 * some runs -- it reads /proc/self/environ, which there is the emulator's -- so the
 * link-order check and LeakSanitizer (which cannot run under ptrace) fired regardless.
 * The environment still overrides these. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return SGCM_ASAN_OPTIONS; }
