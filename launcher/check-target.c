/*
 * A program that uses nettle's and libgcrypt's AES-GCM once each, as a program built against
 * them does (launcher/test-run.sh runs it under `stitchgcm-run --check`). Both compute
 * McGrew-Viega test case 2 (zero key, IV and plaintext block) and must get its tag.
 */
#include <gcrypt.h>
#include <nettle/gcm.h>
#include <stdio.h>
#include <string.h>

static const unsigned char expected_tag[16] = {0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
                                               0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};

int main(void) {
  unsigned char key[16] = {0}, iv[12] = {0}, in[16] = {0}, out[16], tag[16];
  int bad = 0;

  struct gcm_aes128_ctx ctx;
  gcm_aes128_set_key(&ctx, key);
  gcm_aes128_set_iv(&ctx, sizeof iv, iv);
  gcm_aes128_encrypt(&ctx, sizeof in, out, in);
  gcm_aes128_digest(&ctx, sizeof tag, tag);
  if (memcmp(tag, expected_tag, 16)) bad |= 1, printf("nettle: wrong tag\n");

  gcry_cipher_hd_t h;
  if (!gcry_check_version(GCRYPT_VERSION)) return 2;
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  if (gcry_cipher_open(&h, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0) ||
      gcry_cipher_setkey(h, key, sizeof key) || gcry_cipher_setiv(h, iv, sizeof iv) ||
      gcry_cipher_encrypt(h, out, sizeof out, in, sizeof in) || gcry_cipher_gettag(h, tag, sizeof tag))
    bad |= 2, printf("libgcrypt: call failed\n");
  else if (memcmp(tag, expected_tag, 16))
    bad |= 2, printf("libgcrypt: wrong tag\n");
  gcry_cipher_close(h);
  printf("check-target: %s\n", bad ? "FAILED" : "both tags right");
  return bad;
}
