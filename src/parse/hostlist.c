// SPDX-License-Identifier: MIT
/*
 * hostlist.c - expand Slurm hostlist expressions (hostlist.h).
 *
 * Two passes per name: parse it into literal text and bracket groups and
 * count what it expands to (bounded before anything is allocated), then
 * expand the product, leftmost group slowest, as Slurm's _push_range_list().
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "preflight/macro.h"

#define HL_DIGITS_MAX 9 /* a number of at most 9 digits cannot overflow */

struct hl_range {
	unsigned long lo, hi;
	int width; /* digits of lo: Slurm pads the whole range to it */
};

struct hl_seg {
	const char *lit; /* text before the group (or the tail, nr == 0) */
	size_t lit_len;
	struct hl_range *r;
	size_t nr;
};

struct hl_name {
	struct hl_seg *segs;
	size_t n_segs;
	size_t count, len_max;
};

static void hl_name_release(struct hl_name *nm)
{
	for (size_t i = 0; i < nm->n_segs; i++)
		free(nm->segs[i].r);
	free(nm->segs);
	memset(nm, 0, sizeof(*nm));
}

static bool hl_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

static bool hl_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* "@what '@s'" into @why (the text cut at 64 bytes); returns @rc. */
static int hl_why(struct pf_strbuf *why, int rc, const char *what, const char *s, size_t len)
{
	if (why) {
		pf_strbuf_setlen(why, 0);
		pf_strbuf_addf(why, "%s '%.*s'", what, (int)(len > 64 ? 64 : len), s);
	}
	return rc;
}

/* "007" -> 7, width 3; digits only, at most HL_DIGITS_MAX of them. */
static int hl_number(const char *s, size_t len, unsigned long *v)
{
	unsigned long x = 0;

	if (len == 0 || len > HL_DIGITS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		x = x * 10 + (unsigned long)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static int hl_digits(unsigned long v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* One "lo" or "lo-hi" item of a bracket. */
static int hl_item(const char *s, size_t len, struct hl_range *r)
{
	const char *dash = memchr(s, '-', len);
	size_t lo_len = dash ? (size_t)(dash - s) : len;

	if (hl_number(s, lo_len, &r->lo) < 0)
		return -EINVAL;
	r->width = (int)lo_len;
	r->hi = r->lo;
	if (dash && hl_number(dash + 1, len - lo_len - 1, &r->hi) < 0)
		return -EINVAL;
	return r->lo > r->hi ? -EINVAL : 0;
}

/* The body of one bracket, s[0..len): its ranges into @seg; the count. */
static int hl_group(const char *s, size_t len, struct hl_seg *seg, size_t *count,
		    struct pf_strbuf *why)
{
	size_t start = 0;

	*count = 0;
	for (size_t i = 0; i <= len; i++) {
		struct hl_range r;

		if (i < len && s[i] != ',')
			continue;
		if (hl_item(s + start, i - start, &r) < 0)
			return hl_why(why, -EINVAL, "bad range in a hostlist bracket:",
				      s + start, i - start);
		seg->r = realloc(seg->r, (seg->nr + 1) * sizeof(*seg->r));
		if (!seg->r)
			abort();
		seg->r[seg->nr++] = r;
		*count += r.hi - r.lo + 1;
		if (*count > PF_HOSTLIST_MAX)
			return hl_why(why, -E2BIG, "a hostlist bracket holds more than 65536 hosts:",
				      s, len);
		start = i + 1;
	}
	return 0;
}

static struct hl_seg *hl_push_seg(struct hl_name *nm, const char *lit, size_t lit_len)
{
	nm->segs = realloc(nm->segs, (nm->n_segs + 1) * sizeof(*nm->segs));
	if (!nm->segs)
		abort();
	nm->segs[nm->n_segs] = (struct hl_seg){ .lit = lit, .lit_len = lit_len };
	return &nm->segs[nm->n_segs++];
}

static size_t hl_width_max(const struct hl_seg *seg)
{
	size_t w = 0;

	for (size_t i = 0; i < seg->nr; i++) {
		size_t d = (size_t)hl_digits(seg->r[i].hi);

		d = d > (size_t)seg->r[i].width ? d : (size_t)seg->r[i].width;
		w = d > w ? d : w;
	}
	return w;
}

/* Parse one name s[0..len) (no separator outside brackets) into @nm. */
static int hl_name_parse(const char *s, size_t len, size_t max, struct hl_name *nm,
			 struct pf_strbuf *why)
{
	size_t lit = 0;

	nm->count = 1;
	for (size_t i = 0; i < len; i++) {
		const char *close;
		struct hl_seg *seg;
		size_t n;
		int rc;

		if (s[i] == ']')
			return hl_why(why, -EINVAL, "unmatched ']' in hostlist name", s, len);
		if (s[i] != '[') {
			if (!hl_name_char(s[i]))
				return hl_why(why, -EINVAL, "bad character in hostlist name",
					      s, len);
			continue;
		}
		close = memchr(s + i + 1, ']', len - i - 1);
		if (!close || memchr(s + i + 1, '[', (size_t)(close - s) - i - 1))
			return hl_why(why, -EINVAL, "unmatched or nested '[' in hostlist name",
				      s, len);
		seg = hl_push_seg(nm, s + lit, i - lit);
		rc = hl_group(s + i + 1, (size_t)(close - s) - i - 1, seg, &n, why);
		if (rc < 0)
			return rc;
		nm->len_max += seg->lit_len + hl_width_max(seg);
		if (n > max / nm->count)
			return hl_why(why, -E2BIG, "hostlist expands past the limit at",
				      s, len);
		nm->count *= n;
		i = (size_t)(close - s);
		lit = i + 1;
	}
	hl_push_seg(nm, s + lit, len - lit);
	nm->len_max += len - lit;
	if (nm->len_max > PF_HOSTNAME_MAX)
		return hl_why(why, -E2BIG, "longer than a host name can be: hostlist name",
			      s, len);
	return 0;
}

static void hl_add(struct pf_hostlist *hl, const char *name)
{
	char *dup = strdup(name);

	hl->hosts = realloc(hl->hosts, (hl->n + 1) * sizeof(*hl->hosts));
	if (!hl->hosts || !dup)
		abort();
	hl->hosts[hl->n++] = dup;
}

static void hl_expand(const struct hl_name *nm, size_t i, struct pf_strbuf *sb,
		      struct pf_hostlist *hl)
{
	const struct hl_seg *seg = &nm->segs[i];
	size_t mark;

	pf_strbuf_add(sb, seg->lit, seg->lit_len);
	if (i + 1 == nm->n_segs) {
		hl_add(hl, sb->buf);
		return;
	}
	mark = sb->len;
	for (size_t k = 0; k < seg->nr; k++) {
		for (unsigned long v = seg->r[k].lo; v <= seg->r[k].hi; v++) {
			pf_strbuf_setlen(sb, mark);
			pf_strbuf_addf(sb, "%0*lu", seg->r[k].width, v);
			hl_expand(nm, i + 1, sb, hl);
		}
	}
}

/* The end of the name starting at s: the first separator outside brackets. */
static size_t hl_name_len(const char *s)
{
	size_t i = 0;
	int depth = 0;

	for (; s[i] && (depth > 0 || !hl_sep(s[i])); i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
	}
	return i;
}

static int hl_one(const char *s, size_t len, size_t max, struct pf_hostlist *hl,
		  struct pf_strbuf *why)
{
	struct hl_name nm = { 0 };
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;
	int rc = hl_name_parse(s, len, max - hl->n, &nm, why);

	if (rc == 0 && nm.count > max - hl->n)
		rc = hl_why(why, -E2BIG, "hostlist expands past the limit at", s, len);
	if (rc == 0)
		hl_expand(&nm, 0, &sb, hl);
	hl_name_release(&nm);
	return rc;
}

int pf_hostlist_expand(const char *text, size_t max, struct pf_hostlist *hl,
		       struct pf_strbuf *why)
{
	const char *s = text;

	memset(hl, 0, sizeof(*hl));
	if (max == 0 || max > PF_HOSTLIST_MAX)
		max = PF_HOSTLIST_MAX;
	while (*s) {
		size_t len;
		int rc;

		while (hl_sep(*s))
			s++;
		len = hl_name_len(s);
		if (len == 0)
			continue;
		rc = hl_one(s, len, max, hl, why);
		if (rc < 0) {
			pf_hostlist_release(hl);
			return rc;
		}
		s += len;
	}
	return (int)hl->n;
}

void pf_hostlist_release(struct pf_hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->hosts[i]);
	free(hl->hosts);
	hl->hosts = NULL;
	hl->n = 0;
}

bool pf_hostlist_one_name(const char *name)
{
	static const char plain[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
	size_t n = strlen(name);

	if (!n || n > PF_NODE_NAME_MAX || name[0] == '-' || name[0] == '.')
		return false;
	if (!strcasecmp(name, "ALL"))
		return false; /* scontrol's keyword for every node */
	return name[strspn(name, plain)] == '\0';
}
