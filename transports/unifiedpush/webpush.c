/*
 * webpush.c: RFC 8291 decryption over RFC 8188 (aes128gcm), with libcrypto.
 *
 * The body:  salt (16) | rs (4, big-endian) | idlen (1) | keyid (idlen) | records
 * For Web Push the keyid is the sender's public key (65 bytes), and
 *
 *   ecdh    = ECDH(receiver's private key, sender's public key)
 *   ikm     = HKDF(salt = auth, ikm = ecdh,
 *                  info = "WebPush: info" 0x00 | receiver public | sender public, 32)
 *   cek     = HKDF(salt = salt, ikm = ikm, info = "Content-Encoding: aes128gcm" 0x00, 16)
 *   nonce   = HKDF(salt = salt, ikm = ikm, info = "Content-Encoding: nonce" 0x00, 12)
 *
 * Record i (rs bytes, the last one shorter) is AES-128-GCM under cek with
 * nonce XOR i (big-endian), its 16-byte tag last; its plaintext ends with a
 * delimiter (2 in the last record, 1 in the others) and zero padding.
 */
#include "webpush.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

#define SALT_BYTES 16
#define TAG_BYTES 16
#define NONCE_BYTES 12
#define CEK_BYTES 16
#define HEADER_BYTES (SALT_BYTES + 4 + 1)

/* An EC P-256 key from its public point and, when private_key is not NULL,
 * its private scalar; NULL when the bytes are not such a key. */
static EVP_PKEY *p256_key(const uint8_t *private_key, const uint8_t *public_key) {
    OSSL_PARAM_BLD *build = OSSL_PARAM_BLD_new();
    BIGNUM *scalar = private_key ? BN_bin2bn(private_key, WEBPUSH_PRIVATE_BYTES, NULL) : NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key = NULL;
    if (build && (scalar || !private_key) &&
        OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
        OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, public_key, WEBPUSH_PUBLIC_BYTES) &&
        (!scalar || OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_PRIV_KEY, scalar)) &&
        (params = OSSL_PARAM_BLD_to_param(build)) && (ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) &&
        EVP_PKEY_fromdata_init(ctx) > 0) {
        if (EVP_PKEY_fromdata(ctx, &key, scalar ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0) key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    BN_clear_free(scalar);
    OSSL_PARAM_BLD_free(build);
    return key;
}

int webpush_generate(webpush_keys *keys) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    BIGNUM *scalar = NULL;
    size_t length = 0;
    int ok = key && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) &&
             BN_bn2binpad(scalar, keys->private_key, WEBPUSH_PRIVATE_BYTES) == WEBPUSH_PRIVATE_BYTES &&
             EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, keys->public_key,
                                             WEBPUSH_PUBLIC_BYTES, &length) &&
             length == WEBPUSH_PUBLIC_BYTES && keys->public_key[0] == 0x04 &&
             RAND_bytes(keys->auth, WEBPUSH_AUTH_BYTES) == 1;
    BN_clear_free(scalar);
    EVP_PKEY_free(key);
    return ok ? 0 : -1;
}

int webpush_keys_match(const webpush_keys *keys) {
    EVP_PKEY *key = p256_key(keys->private_key, keys->public_key);
    EVP_PKEY_CTX *ctx = key ? EVP_PKEY_CTX_new(key, NULL) : NULL;
    int match = ctx && EVP_PKEY_pairwise_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return match;
}

/* HKDF-SHA-256, extract then expand. 0, or -1. */
static int hkdf(const uint8_t *salt, size_t salt_n, const uint8_t *ikm, size_t ikm_n, const uint8_t *info,
                size_t info_n, uint8_t *out, size_t out_n) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_n),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_n),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_n),
        OSSL_PARAM_construct_end(),
    };
    int ok = ctx && EVP_KDF_derive(ctx, out, out_n, params) > 0;
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
    return ok ? 0 : -1;
}

/* The content key and the base nonce for this body. NULL, or the reason. */
static const char *derive(const webpush_keys *keys, const uint8_t *salt, const uint8_t *sender,
                          uint8_t cek[CEK_BYTES], uint8_t nonce[NONCE_BYTES]) {
    EVP_PKEY *mine = p256_key(keys->private_key, keys->public_key);
    EVP_PKEY *theirs = p256_key(NULL, sender);
    EVP_PKEY_CTX *ctx = mine && theirs ? EVP_PKEY_CTX_new(mine, NULL) : NULL;
    uint8_t secret[32], ikm[32];
    size_t secret_n = sizeof secret;
    const char *why = NULL;
    if (!mine) why = "the receiver's keys are not a P-256 key pair";
    else if (!theirs) why = "the sender's key is not a point on P-256";
    else if (!ctx || EVP_PKEY_derive_init(ctx) <= 0 || EVP_PKEY_derive_set_peer(ctx, theirs) <= 0 ||
             EVP_PKEY_derive(ctx, secret, &secret_n) <= 0 || secret_n != sizeof secret)
        why = "ECDH with the sender's key failed";
    if (!why) {
        static const char label[] = "WebPush: info"; /* and its NUL */
        uint8_t info[sizeof label + 2 * WEBPUSH_PUBLIC_BYTES];
        memcpy(info, label, sizeof label);
        memcpy(info + sizeof label, keys->public_key, WEBPUSH_PUBLIC_BYTES);
        memcpy(info + sizeof label + WEBPUSH_PUBLIC_BYTES, sender, WEBPUSH_PUBLIC_BYTES);
        static const char cek_info[] = "Content-Encoding: aes128gcm", nonce_info[] = "Content-Encoding: nonce";
        if (hkdf(keys->auth, WEBPUSH_AUTH_BYTES, secret, sizeof secret, info, sizeof info, ikm, sizeof ikm) < 0 ||
            hkdf(salt, SALT_BYTES, ikm, sizeof ikm, (const uint8_t *)cek_info, sizeof cek_info, cek, CEK_BYTES) < 0 ||
            hkdf(salt, SALT_BYTES, ikm, sizeof ikm, (const uint8_t *)nonce_info, sizeof nonce_info, nonce,
                 NONCE_BYTES) < 0)
            why = "HKDF failed";
    }
    OPENSSL_cleanse(secret, sizeof secret);
    OPENSSL_cleanse(ikm, sizeof ikm);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(theirs);
    EVP_PKEY_free(mine);
    return why;
}

/* Opens one record into out; its plaintext length (padding included), or -1. */
static long open_record(const uint8_t cek[CEK_BYTES], const uint8_t base[NONCE_BYTES], uint64_t sequence,
                        const uint8_t *record, size_t n, uint8_t *out) {
    uint8_t nonce[NONCE_BYTES];
    memcpy(nonce, base, NONCE_BYTES);
    for (int i = 0; i < 8; i++) nonce[NONCE_BYTES - 1 - i] ^= (uint8_t)(sequence >> (8 * i));
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int part = 0, last = 0;
    long length = -1;
    size_t body = n - TAG_BYTES;
    if (ctx && EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, NULL, NULL) > 0 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, NONCE_BYTES, NULL) > 0 &&
        EVP_DecryptInit_ex(ctx, NULL, NULL, cek, nonce) > 0 &&
        EVP_DecryptUpdate(ctx, out, &part, record, (int)body) > 0 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TAG_BYTES, (void *)(record + body)) > 0 &&
        EVP_DecryptFinal_ex(ctx, out + part, &last) > 0)
        length = part + last;
    EVP_CIPHER_CTX_free(ctx);
    return length;
}

int webpush_decrypt(const webpush_keys *keys, const uint8_t *body, size_t size, uint8_t **plaintext, size_t *length,
                    const char **reason) {
    *plaintext = NULL;
    *length = 0;
    if (size < HEADER_BYTES) {
        *reason = "shorter than the aes128gcm header (21 bytes)";
        return -1;
    }
    uint32_t rs = (uint32_t)body[16] << 24 | (uint32_t)body[17] << 16 | (uint32_t)body[18] << 8 | body[19];
    size_t idlen = body[20];
    if (rs < TAG_BYTES + 2) {
        *reason = "its record size is below 18 bytes";
        return -1;
    }
    if (idlen != WEBPUSH_PUBLIC_BYTES || size < HEADER_BYTES + idlen) {
        *reason = "its key id is not the sender's 65-byte public key";
        return -1;
    }
    const uint8_t *records = body + HEADER_BYTES + idlen;
    size_t left = size - HEADER_BYTES - idlen;
    if (left < TAG_BYTES + 1) {
        *reason = "it holds no record";
        return -1;
    }
    uint8_t cek[CEK_BYTES], nonce[NONCE_BYTES];
    if ((*reason = derive(keys, body, body + HEADER_BYTES, cek, nonce))) return -1;
    size_t cap = left + 1;
    uint8_t *out = malloc(cap);
    if (!out) {
        *reason = "out of memory";
        return -1;
    }
    size_t written = 0;
    *reason = NULL;
    for (uint64_t sequence = 0; left > 0 && !*reason; sequence++) {
        size_t n = left < rs ? left : rs;
        int final = n == left;
        long opened = n > TAG_BYTES ? open_record(cek, nonce, sequence, records, n, out + written) : -1;
        if (opened < 0) {
            *reason = "it does not decrypt with these keys (wrong keys, or altered)";
            break;
        }
        /* Strip the zero padding, then the delimiter. */
        size_t end = written + (size_t)opened;
        while (end > written && out[end - 1] == 0) end--;
        if (end == written || out[end - 1] != (final ? 2 : 1)) {
            *reason = final ? "its last record lacks the padding delimiter 2" : "a record lacks the padding delimiter 1";
            break;
        }
        written = end - 1;
        records += n;
        left -= n;
    }
    OPENSSL_cleanse(cek, sizeof cek);
    if (*reason) {
        OPENSSL_cleanse(out, cap);
        free(out);
        return -1;
    }
    out[written] = '\0';
    *plaintext = out;
    *length = written;
    return 0;
}

char *webpush_base64url(const uint8_t *bytes, size_t n) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc((n + 2) / 3 * 4 + 1), *at = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < n ? (uint32_t)bytes[i + 1] << 8 : 0) | (i + 2 < n ? bytes[i + 2] : 0);
        *at++ = alphabet[v >> 18 & 63];
        *at++ = alphabet[v >> 12 & 63];
        if (i + 1 < n) *at++ = alphabet[v >> 6 & 63];
        if (i + 2 < n) *at++ = alphabet[v & 63];
    }
    *at = '\0';
    return out;
}

static int sextet(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-' || c == '+') return 62;
    if (c == '_' || c == '/') return 63;
    return -1;
}

long webpush_unbase64(const char *text, uint8_t *out, size_t cap) {
    uint32_t bits = 0;
    int count = 0;
    size_t n = 0;
    for (const char *c = text; *c && *c != '='; c++) {
        int v = sextet(*c);
        if (v < 0) return -1;
        bits = bits << 6 | (uint32_t)v;
        if (++count == 4) {
            if (n + 3 > cap) return -1;
            out[n++] = (uint8_t)(bits >> 16);
            out[n++] = (uint8_t)(bits >> 8);
            out[n++] = (uint8_t)bits;
            bits = 0;
            count = 0;
        }
    }
    if (count == 1) return -1;
    if (count > 1) {
        bits <<= 6 * (4 - count);
        if (n + (size_t)(count - 1) > cap) return -1;
        out[n++] = (uint8_t)(bits >> 16);
        if (count == 3) out[n++] = (uint8_t)(bits >> 8);
    }
    return (long)n;
}
