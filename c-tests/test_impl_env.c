/*
 * STITCHGCM_IMPL handling: run with the variable set. With argv[1] = "reject" the forced
 * name must be refused everywhere (open and one-shot calls return
 * SGCM_ERR_NOT_SUPPORTED, sgcm_impl_name() is NULL) rather than silently replaced; with
 * argv[1] = a backend name, that backend must be the one in use.
 */
#include <stitchgcm.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    unsigned char key[16] = {0}, tag[16], buf[16] = {0};
    sgcm_cipher_hd_t h;
    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "reject") == 0) {
        int ok = sgcm_impl_name() == NULL &&
                 sgcm_cipher_open(&h, SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0) == SGCM_ERR_NOT_SUPPORTED &&
                 h == NULL &&
                 sgcm_seal(key, 16, key, 12, NULL, 0, buf, 16, buf, tag, 16) == SGCM_ERR_NOT_SUPPORTED;
        printf("%s: %s\n", ok ? "ok" : "FAIL", sgcm_strerror(SGCM_ERR_NOT_SUPPORTED));
        printf("%d passed, %d failed\n", ok, !ok);
        return !ok;
    }
    const char *name = sgcm_impl_name();
    int ok = name && strcmp(name, argv[1]) == 0 &&
             sgcm_seal(key, 16, key, 12, NULL, 0, buf, 16, buf, tag, 16) == 0;
    printf("%s: forced %s, running %s\n", ok ? "ok" : "FAIL", argv[1], name ? name : "(none)");
    printf("%d passed, %d failed\n", ok, !ok);
    return !ok;
}
