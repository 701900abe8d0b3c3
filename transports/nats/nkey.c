/*
 * nkey.c: the public key of a user NKey seed, which libnats needs beside
 * the seed file (natsOptions_SetNKeyFromSeed).
 *
 * An NKey is base32 (RFC 4648, no padding) of a prefix, the key, and a
 * CRC16 (XMODEM) of both, little-endian. A seed, SU... (58 characters), is
 * 2 prefix bytes, the 32-byte Ed25519 seed and the CRC: 5 bits "seed" (18)
 * and the 8-bit kind of key (user: 20 << 3) across the first two bytes. A
 * user's public key, U... (56 characters), is the byte 20 << 3, the 32-byte
 * Ed25519 public key and the CRC.
 */
#include "jetstream.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <string.h>

enum {
    SEED_TEXT = 58,    /* characters of an encoded seed */
    SEED_BYTES = 36,   /* 2 prefix bytes, 32 of seed, 2 of CRC */
    PUBLIC_BYTES = 35, /* 1 prefix byte, 32 of key, 2 of CRC */
    KEY_BYTES = 32,
    PREFIX_SEED = 18 << 3,
    PREFIX_USER = 20 << 3,
};

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static uint16_t crc16(const unsigned char *data, size_t length) {
    uint16_t crc = 0;
    for (size_t i = 0; i < length; i++) {
        crc ^= (uint16_t)(data[i] << 8);
        for (int bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (uint16_t)(crc << 1) ^ 0x1021 : (uint16_t)(crc << 1);
    }
    return crc;
}

/* Decodes `length` base32 characters into out (room for length * 5 / 8
 * bytes); the bytes written, or -1 for a character not in the alphabet. */
static int base32_decode(const char *text, size_t length, unsigned char *out) {
    unsigned bits = 0, held = 0;
    int written = 0;
    for (size_t i = 0; i < length; i++) {
        const char *at = text[i] ? strchr(alphabet, text[i]) : NULL;
        if (!at) return -1;
        bits = (bits << 5) | (unsigned)(at - alphabet);
        held += 5;
        if (held >= 8) {
            held -= 8;
            out[written++] = (unsigned char)(bits >> held);
        }
    }
    return written;
}

/* Encodes `length` bytes into out (room for length * 8 / 5 rounded up, and a NUL). */
static void base32_encode(const unsigned char *data, size_t length, char *out) {
    unsigned bits = 0, held = 0;
    for (size_t i = 0; i < length; i++) {
        bits = (bits << 8) | data[i];
        held += 8;
        while (held >= 5) {
            held -= 5;
            *out++ = alphabet[(bits >> held) & 31];
        }
    }
    if (held > 0) *out++ = alphabet[(bits << (5 - held)) & 31];
    *out = 0;
}

/* Checks the decoded seed (SEED_BYTES); NULL, or why it is not a user seed. */
static const char *check_seed(const unsigned char *raw) {
    if (crc16(raw, SEED_BYTES - 2) != (uint16_t)(raw[SEED_BYTES - 2] | raw[SEED_BYTES - 1] << 8))
        return "its checksum (CRC16) does not match: it was mistyped or cut";
    if ((raw[0] & 0xf8) != PREFIX_SEED) return "it is not a seed (a seed starts with S)";
    switch ((raw[0] & 7) << 5 | raw[1] >> 3) {
    case PREFIX_USER: return NULL;
    case 14 << 3: return "it is an operator's seed (SO...), not a user's (SU...)";
    case 0: return "it is an account's seed (SA...), not a user's (SU...)";
    case 13 << 3: return "it is a server's seed (SN...), not a user's (SU...)";
    case 2 << 3: return "it is a cluster's seed (SC...), not a user's (SU...)";
    default: return "it is the seed of an unknown kind of key, not a user's (SU...)";
    }
}

/* The Ed25519 public key of a 32-byte seed; 0, or -1. */
static int ed25519_public(const unsigned char *seed, unsigned char *public_key) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, KEY_BYTES);
    size_t length = KEY_BYTES;
    int ok = key && EVP_PKEY_get_raw_public_key(key, public_key, &length) == 1 && length == KEY_BYTES;
    EVP_PKEY_free(key);
    return ok ? 0 : -1;
}

const char *jetstream_nkey_user_public(const char *seed, char public_key[JETSTREAM_NKEY_PUBLIC_SIZE]) {
    size_t length = strlen(seed);
    if (length == 56 && strchr("UAONC", seed[0])) return "it holds a public key; the setting takes the seed (SU...)";
    if (strncmp(seed, "eyJ", 3) == 0) return "it holds a JWT; a .creds file goes in the setting credentials";
    if (length != SEED_TEXT) return length < SEED_TEXT ? "it is too short for a seed (58 characters)"
                                                       : "it is too long for a seed (58 characters)";
    unsigned char raw[SEED_BYTES];
    if (base32_decode(seed, length, raw) != SEED_BYTES) {
        OPENSSL_cleanse(raw, sizeof raw);
        return "it has a character an NKey does not (A to Z, 2 to 7)";
    }
    const char *reason = check_seed(raw);
    unsigned char public_raw[PUBLIC_BYTES];
    public_raw[0] = PREFIX_USER;
    if (!reason && ed25519_public(raw + 2, public_raw + 1) < 0) reason = "libcrypto could not make its Ed25519 public key";
    OPENSSL_cleanse(raw, sizeof raw);
    if (reason) return reason;
    uint16_t crc = crc16(public_raw, PUBLIC_BYTES - 2);
    public_raw[PUBLIC_BYTES - 2] = (unsigned char)(crc & 0xff);
    public_raw[PUBLIC_BYTES - 1] = (unsigned char)(crc >> 8);
    base32_encode(public_raw, PUBLIC_BYTES, public_key);
    return NULL;
}
