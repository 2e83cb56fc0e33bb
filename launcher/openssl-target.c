/*
 * A plain OpenSSL program for launcher/test-run.sh: AES-128-GCM through EVP_aes_128_gcm()
 * (the implicit fetch that default_properties steers), one known answer (McGrew-Viega test
 * case 4: 60 bytes, 20 bytes of AAD) encrypted and decrypted, and the name of the provider
 * that served the context. Prints "openssl-target: provider NAME, known answer right|WRONG";
 * exit 0 only when right.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

static int unhex(const char *s, unsigned char *out) {
  size_t n = strlen(s) / 2;
  for (size_t i = 0; i < n; i++) sscanf(s + 2 * i, "%2hhx", &out[i]);
  return (int)n;
}

int main(void) {
  unsigned char key[16], iv[12], aad[20], pt[60], ct[60], tag[16], out[64], got[16];
  unhex("feffe9928665731c6d6a8f9467308308", key);
  unhex("cafebabefacedbaddecaf888", iv);
  int aadlen = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2", aad);
  int len = unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", pt);
  unhex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
        "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091", ct);
  unhex("5bc94fbc3221a5db94fae95ae7121a47", tag);

  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = 0, m = 0, right = ctx && EVP_CipherInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, iv, 1);
  const EVP_CIPHER *c = right ? EVP_CIPHER_CTX_get0_cipher(ctx) : NULL;
  const OSSL_PROVIDER *prov = c ? EVP_CIPHER_get0_provider(c) : NULL;
  const char *name = prov ? OSSL_PROVIDER_get0_name(prov) : "(none)";
  right = right && EVP_CipherUpdate(ctx, NULL, &n, aad, aadlen) &&
          EVP_CipherUpdate(ctx, out, &n, pt, len) && EVP_CipherFinal_ex(ctx, out + n, &m) &&
          n + m == len && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, got) &&
          !memcmp(out, ct, len) && !memcmp(got, tag, 16);
  /* And back, the tag checked. */
  right = right && EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, 0) &&
          EVP_CipherUpdate(ctx, NULL, &n, aad, aadlen) && EVP_CipherUpdate(ctx, out, &n, ct, len) &&
          EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) &&
          EVP_CipherFinal_ex(ctx, out + n, &m) && n + m == len && !memcmp(out, pt, len);
  EVP_CIPHER_CTX_free(ctx);
  printf("openssl-target: provider %s, known answer %s\n", name, right ? "right" : "WRONG");
  return right ? 0 : 1;
}
