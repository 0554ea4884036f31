// SPDX-License-Identifier: MIT
/*
 * sha256.c - SHA-256 as FIPS 180-4 section 6.2 states it, and HMAC over it
 * as RFC 2104 section 2 does (sha256.h).
 */
#include <string.h>

#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* One 512-bit block into the hash value (FIPS 180-4 6.2.2). */
static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ w[t - 15] >> 3;
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ w[t - 2] >> 10;

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}
	memcpy(v, h, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
			      ((e & v[5]) ^ (~e & v[6])) + K[t] + w[t];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
			      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void pf_sha256_init(struct pf_sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->n = 0;
}

void pf_sha256_update(struct pf_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->bytes += len;
	while (len) {
		size_t take = PF_SHA256_BLOCK - s->n < len ? PF_SHA256_BLOCK - s->n : len;

		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		len -= take;
		if (s->n == PF_SHA256_BLOCK) {
			sha256_block(s->h, s->buf);
			s->n = 0;
		}
	}
}

/* The padding of FIPS 180-4 5.1.1: a 1 bit, zeros, the length in bits. */
void pf_sha256_final(struct pf_sha256 *s, unsigned char out[PF_SHA256_LEN])
{
	uint64_t bits = s->bytes * 8;

	s->buf[s->n++] = 0x80;
	if (s->n > PF_SHA256_BLOCK - 8) {
		memset(s->buf + s->n, 0, PF_SHA256_BLOCK - s->n);
		sha256_block(s->h, s->buf);
		s->n = 0;
	}
	memset(s->buf + s->n, 0, PF_SHA256_BLOCK - 8 - s->n);
	for (int i = 0; i < 8; i++)
		s->buf[PF_SHA256_BLOCK - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(s->h, s->buf);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
	memset(s, 0, sizeof(*s));
}

void pf_hmac_init(struct pf_hmac *m, const void *key, size_t key_len)
{
	unsigned char k[PF_SHA256_BLOCK] = { 0 }, ikey[PF_SHA256_BLOCK];

	if (key_len > PF_SHA256_BLOCK) { /* a long key is hashed first (RFC 2104 2) */
		struct pf_sha256 s;

		pf_sha256_init(&s);
		pf_sha256_update(&s, key, key_len);
		pf_sha256_final(&s, k);
	} else if (key_len) {
		memcpy(k, key, key_len);
	}
	for (int i = 0; i < PF_SHA256_BLOCK; i++) {
		ikey[i] = k[i] ^ 0x36;
		m->okey[i] = k[i] ^ 0x5c;
	}
	pf_sha256_init(&m->inner);
	pf_sha256_update(&m->inner, ikey, sizeof(ikey));
	memset(k, 0, sizeof(k));
	memset(ikey, 0, sizeof(ikey));
}

void pf_hmac_update(struct pf_hmac *m, const void *data, size_t len)
{
	pf_sha256_update(&m->inner, data, len);
}

void pf_hmac_final(struct pf_hmac *m, unsigned char out[PF_SHA256_LEN])
{
	unsigned char ih[PF_SHA256_LEN];
	struct pf_sha256 outer;

	pf_sha256_final(&m->inner, ih);
	pf_sha256_init(&outer);
	pf_sha256_update(&outer, m->okey, sizeof(m->okey));
	pf_sha256_update(&outer, ih, sizeof(ih));
	pf_sha256_final(&outer, out);
	memset(m, 0, sizeof(*m));
}

bool pf_mem_equal_ct(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;

	for (size_t i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}
