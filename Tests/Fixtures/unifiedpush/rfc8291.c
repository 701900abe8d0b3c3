/*
 * rfc8291.c: runs transports/unifiedpush/webpush.c against RFC 8291's
 * example (section 5 and Appendix A: "When I grow up, I want to be a
 * watermelon"), and against what must fail. Prints one line per case:
 *
 *   vector: <plaintext>
 *   tampered: <reason>        (one byte of the ciphertext flipped)
 *   wrong auth: <reason>      (another authentication secret)
 *   short: <reason>           (the header cut short)
 *   generated: match <0|1> p256dh <length> auth <length>
 *   mismatched: match <0|1>   (a generated private key with the RFC's public key)
 */
#include "webpush.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *body64 =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
    "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

static void attempt(const char *label, const webpush_keys *keys, const uint8_t *body, size_t n) {
    uint8_t *plaintext;
    size_t length;
    const char *reason;
    if (webpush_decrypt(keys, body, n, &plaintext, &length, &reason) == 0) {
        printf("%s: %.*s\n", label, (int)length, (const char *)plaintext);
        free(plaintext);
    } else {
        printf("%s: %s\n", label, reason);
    }
}

int main(void) {
    webpush_keys keys;
    uint8_t body[512];
    long n = webpush_unbase64(body64, body, sizeof body);
    if (webpush_unbase64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94", keys.private_key, sizeof keys.private_key) != 32 ||
        webpush_unbase64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                         keys.public_key, sizeof keys.public_key) != 65 ||
        webpush_unbase64("BTBZMqHH6r4Tts7J_aSIgg", keys.auth, sizeof keys.auth) != 16 || n < 0) {
        puts("the vector does not decode");
        return 1;
    }
    attempt("vector", &keys, body, (size_t)n);

    uint8_t tampered[512];
    memcpy(tampered, body, (size_t)n);
    tampered[n - 20] ^= 1;
    attempt("tampered", &keys, tampered, (size_t)n);

    webpush_keys wrong = keys;
    wrong.auth[0] ^= 1;
    attempt("wrong auth", &wrong, body, (size_t)n);
    attempt("short", &keys, body, 20);

    webpush_keys fresh;
    if (webpush_generate(&fresh) != 0) {
        puts("generated: failed");
        return 1;
    }
    char *p256dh = webpush_base64url(fresh.public_key, sizeof fresh.public_key);
    char *auth = webpush_base64url(fresh.auth, sizeof fresh.auth);
    printf("generated: match %d p256dh %zu auth %zu\n", webpush_keys_match(&fresh), strlen(p256dh), strlen(auth));
    free(p256dh);
    free(auth);
    memcpy(fresh.public_key, keys.public_key, sizeof keys.public_key);
    printf("mismatched: match %d\n", webpush_keys_match(&fresh));
    return 0;
}
