// SPDX-License-Identifier: MIT
/*
 * test_sha256.c - SHA-256 and HMAC-SHA256 (src/core/sha256.c) against the
 * published vectors: FIPS 180-4's examples ("abc", the 448-bit message, a
 * million 'a' fed in uneven pieces, and the empty message) and RFC 4231's
 * test cases 1, 2, 3, 6 and 7 (a short key, a key shorter than the data, a
 * key longer than a block); and the constant-time comparison.
 */
#include <stdio.h>
#include <string.h>

#include "sha256.h"
#include "testutil.h"

static void hex(const unsigned char *d, char out[2 * PF_SHA256_LEN + 1])
{
	for (int i = 0; i < PF_SHA256_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha(const char *msg, size_t len, size_t piece, const char *want)
{
	struct pf_sha256 s;
	unsigned char d[PF_SHA256_LEN];
	char h[2 * PF_SHA256_LEN + 1];

	pf_sha256_init(&s);
	for (size_t off = 0; off < len; off += piece)
		pf_sha256_update(&s, msg + off, len - off < piece ? len - off : piece);
	pf_sha256_final(&s, d);
	hex(d, h);
	assert_string_equal(h, want);
}

static void test_sha256_fips(void **state)
{
	static char million[1000000];
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	check_sha("abc", 3, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha(m448, strlen(m448), 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha(m448, strlen(m448), 5, /* the same in pieces across the block edge */
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	check_sha(million, sizeof(million), 4093,
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void check_hmac(const void *key, size_t kl, const void *msg, size_t ml, const char *want)
{
	struct pf_hmac m;
	unsigned char d[PF_SHA256_LEN];
	char h[2 * PF_SHA256_LEN + 1];

	pf_hmac_init(&m, key, kl);
	pf_hmac_update(&m, msg, ml / 2); /* in two pieces: the same as one */
	pf_hmac_update(&m, (const char *)msg + ml / 2, ml - ml / 2);
	pf_hmac_final(&m, d);
	hex(d, h);
	assert_string_equal(h, want);
}

static void test_hmac_rfc4231(void **state)
{
	unsigned char k20[20], aa20[20], dd50[50], aa131[131];
	const char *t6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	const char *t7 = "This is a test using a larger than block-size key and a larger than "
			 "block-size data. The key needs to be hashed before being used by the "
			 "HMAC algorithm.";

	(void)state;
	memset(k20, 0x0b, sizeof(k20));
	memset(aa20, 0xaa, sizeof(aa20));
	memset(dd50, 0xdd, sizeof(dd50));
	memset(aa131, 0xaa, sizeof(aa131));
	check_hmac(k20, 20, "Hi There", 8,
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac("Jefe", 4, "what do ya want for nothing?", 28,
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	check_hmac(aa20, 20, dd50, 50,
		   "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	check_hmac(aa131, 131, t6, strlen(t6),
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	check_hmac(aa131, 131, t7, strlen(t7),
		   "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void test_equal_ct(void **state)
{
	(void)state;
	assert_true(pf_mem_equal_ct("abcd", "abcd", 4));
	assert_false(pf_mem_equal_ct("abcd", "abce", 4));
	assert_false(pf_mem_equal_ct("xbcd", "abcd", 4));
	assert_true(pf_mem_equal_ct("a", "b", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_fips),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_equal_ct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
