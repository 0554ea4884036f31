/* SPDX-License-Identifier: MIT */
/*
 * sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), written
 * from the standards for the mesh rendezvous' authentication (docs/mesh.md
 * "Authentication"); tests/unit/test_sha256.c holds the FIPS 180-4 and
 * RFC 4231 test vectors.
 */
#ifndef PREFLIGHT_SHA256_H
#define PREFLIGHT_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PF_SHA256_LEN 32
#define PF_SHA256_BLOCK 64

struct pf_sha256 {
	uint32_t h[8];
	uint64_t bytes;                  /* message length so far */
	unsigned char buf[PF_SHA256_BLOCK];
	size_t n;                        /* bytes waiting in buf */
};

void pf_sha256_init(struct pf_sha256 *s);
void pf_sha256_update(struct pf_sha256 *s, const void *data, size_t len);
void pf_sha256_final(struct pf_sha256 *s, unsigned char out[PF_SHA256_LEN]);

/* HMAC-SHA256 built up in parts: the key once, then the message in pieces. */
struct pf_hmac {
	struct pf_sha256 inner;
	unsigned char okey[PF_SHA256_BLOCK]; /* key XOR opad */
};

void pf_hmac_init(struct pf_hmac *m, const void *key, size_t key_len);
void pf_hmac_update(struct pf_hmac *m, const void *data, size_t len);
void pf_hmac_final(struct pf_hmac *m, unsigned char out[PF_SHA256_LEN]);

/* Are @a and @b (both @len bytes) equal?  The time does not depend on where they differ. */
bool pf_mem_equal_ct(const void *a, const void *b, size_t len);

#endif
