// SPDX-License-Identifier: MIT
/*
 * pattern.c - the engine's arithmetic (include/preflight/loopback.h): the
 * data pattern and its check, decimal Gb/s, how often a run signals, and
 * how long it waits for a completion before it calls the link slow or
 * stalled.
 */
#include <string.h>

#include "preflight/loopback.h"

double pf_lb_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0;
}

unsigned int pf_lb_signal_every(unsigned int cq_mod, unsigned int tx_depth, size_t msg_size)
{
	unsigned int mod = cq_mod < 1 ? 1 : tx_depth && cq_mod > tx_depth ? tx_depth : cq_mod;
	size_t fit = msg_size ? PF_LB_SIGNAL_BYTES / msg_size : mod;

	return fit < 1 ? 1 : fit < mod ? (unsigned int)fit : mod;
}

unsigned int pf_lb_completion_timeout_ms(unsigned int floor_ms, size_t msg_size,
					 unsigned int cq_mod, unsigned int tx_depth,
					 double min_gbps)
{
	unsigned int mod = pf_lb_signal_every(cq_mod, tx_depth, msg_size);
	double gbps = min_gbps > 0 ? min_gbps : PF_LB_FLOOR_GBPS;
	double ms = (double)floor_ms + (double)mod * (double)msg_size * 8 / (gbps * 1e6);

	return ms > 3600000 ? 3600000 : (unsigned int)ms + 1;
}

double pf_lb_below_gbps(uint64_t done, unsigned int cq_mod, size_t msg_size, uint64_t ns)
{
	return pf_lb_gbps((done + (cq_mod ? cq_mod : 1)) * (uint64_t)msg_size, ns);
}

/*
 * A 64-bit word per 8 bytes from a counter and the slot's seed; the tail
 * takes the next word's low bytes.
 */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t seed, size_t i)
{
	return mix(seed << 40 ^ (uint64_t)i);
}

void pf_lb_fill_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t words = len / 8;

	for (size_t i = 0; i < words; i++) {
		uint64_t w = pattern_word(seed, i);

		memcpy(buf + i * 8, &w, 8);
	}
	if (len % 8) {
		uint64_t w = pattern_word(seed, words);

		memcpy(buf + words * 8, &w, len % 8);
	}
}

ssize_t pf_lb_check_pattern(const uint8_t *buf, size_t len, uint64_t seed)
{
	size_t words = len / 8;

	for (size_t i = 0; i <= words; i++) {
		uint64_t w = pattern_word(seed, i);
		size_t n = i < words ? 8 : len % 8;

		if (!n || memcmp(buf + i * 8, &w, n) == 0)
			continue;
		for (size_t b = 0; b < n; b++)
			if (buf[i * 8 + b] != ((const uint8_t *)&w)[b])
				return (ssize_t)(i * 8 + b);
	}
	return -1;
}
