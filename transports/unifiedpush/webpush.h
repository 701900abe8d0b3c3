/*
 * webpush.h: Web Push message decryption (RFC 8291, on RFC 8188's
 * aes128gcm content coding), and the receiver's keys, with OpenSSL's
 * libcrypto for every primitive (P-256 ECDH, HKDF-SHA-256, AES-128-GCM).
 *
 * The receiver (this side, the "user agent") holds a P-256 key pair and a
 * 16-byte authentication secret; it gives the sender its public key
 * (p256dh) and the secret (auth), and the sender encrypts each message to
 * them. No state is kept here: each call gets the keys.
 */
#ifndef WEBPUSH_H
#define WEBPUSH_H

#include <stddef.h>
#include <stdint.h>

#define WEBPUSH_PRIVATE_BYTES 32
#define WEBPUSH_PUBLIC_BYTES 65 /* uncompressed: 0x04, x, y */
#define WEBPUSH_AUTH_BYTES 16

typedef struct webpush_keys {
    uint8_t private_key[WEBPUSH_PRIVATE_BYTES];
    uint8_t public_key[WEBPUSH_PUBLIC_BYTES];
    uint8_t auth[WEBPUSH_AUTH_BYTES];
} webpush_keys;

/* Makes a fresh key pair and authentication secret. 0, or -1. */
int webpush_generate(webpush_keys *keys);

/* Whether public_key is the public key of private_key (a loaded key file is
 * checked so). 1 yes, 0 no. */
int webpush_keys_match(const webpush_keys *keys);

/* Decrypts an aes128gcm body encrypted to keys. On success returns 0 and
 * *plaintext (malloc'd, NUL-ended, free it) with *length bytes; on failure
 * returns -1 with *reason, a static text saying why (truncated header, wrong
 * key id length, not a P-256 point, bad tag, bad padding ...). */
int webpush_decrypt(const webpush_keys *keys, const uint8_t *body, size_t size, uint8_t **plaintext, size_t *length,
                    const char **reason);

/* base64url without padding, for p256dh and auth: a new string (free it),
 * or NULL when out of memory. */
char *webpush_base64url(const uint8_t *bytes, size_t n);

/* Decodes base64url (padding and standard alphabet accepted too) into out,
 * at most cap bytes; the length, or -1 when it is not base64 or too long. */
long webpush_unbase64(const char *text, uint8_t *out, size_t cap);

#endif
