// SPDX-License-Identifier: MIT
/*
 * link_facts.c - the link_nl providers and what checks call over them
 * (preflight/link_facts.h): the FEC counters and the module EEPROM of a
 * netdev, live from ethtool netlink or replayed from the replies a
 * snapshot recorded, through the same parsers.  The recorder's side is
 * pf_record_link() below:
 *
 *   preflight/ethtool/<if>/fec.nl          ETHTOOL_MSG_FEC_GET reply (stats)
 *   preflight/ethtool/<if>/fec.after.nl    the same, preflight/window_ms later
 *   preflight/ethtool/<if>/module/p<page>-b<bank>-a<i2c>-o<offset>.nl
 *                                          ETHTOOL_MSG_MODULE_EEPROM_GET reply
 *
 * A reply is kept as the kernel sent it, an NLMSG_ERROR ("not supported")
 * included, so a snapshot answers as the node did.
 */
#include <string.h>

#include "preflight/link_facts.h"
#include "preflight/net_facts.h"
#include "preflight/providers.h"
#include "record.h"

#define EEPROM_PAGE 128
#define EEPROM_I2C 0x50 /* SFF-8636 and CMIS: the module's 2-wire address A0h >> 1 */

static bool ifname_ok(const char *ifname)
{
	return *ifname && !strchr(ifname, '/') && strcmp(ifname, ".") && strcmp(ifname, "..");
}

char *pf_link_nl_path(const struct pf_link_ask *ask)
{
	const struct pf_eeprom_ask *e = &ask->eeprom;

	if (ask->kind == PF_LINK_FEC)
		return pf_xasprintf("preflight/ethtool/%s/%s", ask->ifname,
				    ask->sample ? "fec.after.nl" : "fec.nl");
	return pf_xasprintf("preflight/ethtool/%s/module/p%02x-b%u-a%02x-o%u.nl", ask->ifname,
			    e->page, e->bank, e->i2c_address, e->offset);
}

int pf_live_link_nl(const struct pf_ctx *ctx, const struct pf_link_ask *ask, void **ret_buf,
		    size_t *ret_len)
{
	if (ask->kind == PF_LINK_FEC)
		return pf_ethtool_fec_request(ctx->prov->ethtool, ask->ifname, ret_buf, ret_len);
	if (ask->kind == PF_LINK_EEPROM)
		return ctx->prov->ethtool->eeprom(ask->ifname, &ask->eeprom, ret_buf, ret_len);
	return -EINVAL;
}

int pf_recorded_link_nl(const struct pf_ctx *ctx, const struct pf_link_ask *ask,
			void **ret_buf, size_t *ret_len)
{
	pf_autofree char *rel = NULL, *path = NULL;
	char *buf = NULL;
	int r;

	if (!ifname_ok(ask->ifname) || ask->sample > 1)
		return -EINVAL;
	rel = pf_link_nl_path(ask);
	path = pf_xasprintf("/%s", rel);
	r = pf_fs_read_full(ctx->fs, path, 0, &buf, ret_len);
	if (r < 0)
		return r;
	*ret_buf = buf;
	return 0;
}

int pf_link_fec(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
		struct pf_fec *ret)
{
	const struct pf_link_ask ask = { .kind = PF_LINK_FEC, .ifname = ifname, .sample = sample };
	pf_autofree void *buf = NULL;
	size_t len = 0;
	int r;

	r = ctx->prov->link_nl(ctx, &ask, &buf, &len);
	return r < 0 ? r : pf_ethtool_parse_fec(buf, len, ret);
}

/* One 128-byte page (@page 0 with @offset 0: the lower page) into @data. */
static int read_page(const struct pf_ctx *ctx, const char *ifname, uint8_t page,
		     uint32_t offset, uint8_t data[EEPROM_PAGE])
{
	const struct pf_link_ask ask = {
		.kind = PF_LINK_EEPROM, .ifname = ifname,
		.eeprom = { .page = page, .bank = 0, .i2c_address = EEPROM_I2C,
			    .offset = offset, .length = EEPROM_PAGE },
	};
	pf_autofree void *buf = NULL;
	size_t len = 0, n = 0;
	int r;

	r = ctx->prov->link_nl(ctx, &ask, &buf, &len);
	if (r < 0)
		return r;
	r = pf_ethtool_parse_module_eeprom(buf, len, data, EEPROM_PAGE, &n);
	if (r < 0)
		return r;
	return n == EEPROM_PAGE ? 0 : -EBADMSG;
}

int pf_link_optic(const struct pf_ctx *ctx, const char *ifname, struct pf_optic *ret)
{
	uint8_t lower[EEPROM_PAGE], upper[4][EEPROM_PAGE], want[4];
	struct pf_optic_pages pages = { .lower = lower };
	enum pf_optic_kind kind;
	size_t n;
	int r;

	r = read_page(ctx, ifname, 0, 0, lower);
	if (r < 0)
		return r;
	kind = pf_optic_kind_of(lower[0]);
	n = pf_optic_flat(kind, lower) ? 0 : pf_optic_pages_wanted(kind, want, PF_ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		r = read_page(ctx, ifname, want[i], EEPROM_PAGE, upper[i]);
		if (r == 0)
			pages.upper[want[i]] = upper[i];
		else if (r != -EOPNOTSUPP && r != -EINVAL && r != -ENOENT)
			return r; /* a page the module lacks leaves its monitors unset */
	}
	return pf_optic_decode(&pages, ret);
}

/* Write the provider's reply for @ask as the snapshot's file; errors are logged, not fatal. */
static int record_one(struct pf_record *rec, const struct pf_link_ask *ask, void **ret_buf,
		      size_t *ret_len)
{
	const struct pf_ctx *ctx = rec->ctx;
	pf_autofree char *rel = pf_link_nl_path(ask);
	int r;

	r = ctx->prov->link_nl(ctx, ask, ret_buf, ret_len);
	if (!pf_record_answer(rec, rel, r))
		return 0;
	r = rec->put(rec, rel, *ret_buf, *ret_len);
	return r < 0 ? r : 1;
}

int pf_record_link_fec(struct pf_record *rec, const char *ifname, unsigned int sample)
{
	const struct pf_link_ask ask = { .kind = PF_LINK_FEC, .ifname = ifname, .sample = sample };
	pf_autofree void *buf = NULL;
	size_t len = 0;

	return record_one(rec, &ask, &buf, &len);
}

/* The lower page, then the upper pages the module's family needs. */
static int record_module(struct pf_record *rec, const char *ifname)
{
	struct pf_link_ask ask = {
		.kind = PF_LINK_EEPROM, .ifname = ifname,
		.eeprom = { .i2c_address = EEPROM_I2C, .length = EEPROM_PAGE },
	};
	pf_autofree void *buf = NULL;
	uint8_t lower[EEPROM_PAGE], want[4];
	enum pf_optic_kind kind;
	size_t len = 0, got = 0, n;
	int r;

	r = record_one(rec, &ask, &buf, &len);
	if (r <= 0)
		return r;
	if (pf_ethtool_parse_module_eeprom(buf, len, lower, sizeof(lower), &got) < 0 ||
	    got != EEPROM_PAGE)
		return 0; /* "not supported" recorded: nothing more to ask */
	kind = pf_optic_kind_of(lower[0]);
	n = pf_optic_flat(kind, lower) ? 0 : pf_optic_pages_wanted(kind, want, PF_ARRAY_SIZE(want));
	for (size_t i = 0; i < n && r >= 0; i++) {
		pf_autofree void *page = NULL;
		size_t plen = 0;

		ask.eeprom.page = want[i];
		ask.eeprom.offset = EEPROM_PAGE;
		r = record_one(rec, &ask, &page, &plen);
	}
	return r < 0 ? r : 0;
}

int pf_record_link(struct pf_record *rec, const char *ifname)
{
	int r;

	if (!ifname_ok(ifname))
		return 0;
	r = pf_record_link_fec(rec, ifname, 0);
	if (r < 0)
		return r;
	return record_module(rec, ifname);
}
