/* Built against an installed stitchgcm with nothing but `pkg-config --cflags --libs`. */
#include <stitchgcm.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* McGrew–Viega test case 2. */
    static const unsigned char want_ct[16] = {0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
                                              0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78};
    static const unsigned char want_tag[16] = {0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
                                               0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};
    unsigned char key[16] = {0}, iv[12] = {0}, buf[16] = {0}, tag[16];
    sgcm_error_t e = sgcm_seal(key, 16, iv, 12, NULL, 0, buf, 16, buf, tag, 16);
    int ok = e == 0 && memcmp(buf, want_ct, 16) == 0 && memcmp(tag, want_tag, 16) == 0;
    printf("installed stitchgcm %s (%s): %s\n", sgcm_version(), sgcm_impl_name(), ok ? "ok" : "FAIL");
    return !ok;
}
