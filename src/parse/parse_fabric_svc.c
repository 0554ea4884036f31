// SPDX-License-Identifier: MIT
/*
 * parse_fabric_svc.c - what the NVLink fabric's services say about
 * themselves: a systemd unit's state as `systemctl show` prints it, Fabric
 * Manager's version line, nvidia-imex-ctl's JSON domain status and IMEX's
 * node list (fabric_svc.h).  Tool output is untrusted text: every field is
 * bounded and a value of the wrong type is skipped, never trusted.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "preflight/fabric_svc.h"
#include "preflight/macro.h"

/* @len bytes of @src into @dst, cut, NUL-terminated, control bytes dropped. */
static void copy_word(char *dst, size_t size, const char *src, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < size; i++)
		if ((unsigned char)src[i] >= 0x20 && src[i] != 0x7f)
			dst[o++] = src[i];
	dst[o] = '\0';
}

int pf_parse_unit_state(const char *text, struct pf_unit_state *ret)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "LoadState=", offsetof(struct pf_unit_state, load) },
		{ "ActiveState=", offsetof(struct pf_unit_state, active) },
		{ "SubState=", offsetof(struct pf_unit_state, sub) },
	};
	const char *line = text;

	memset(ret, 0, sizeof(*ret));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		for (size_t k = 0; k < PF_ARRAY_SIZE(keys); k++) {
			size_t kl = strlen(keys[k].key);

			if (len >= kl && !strncmp(line, keys[k].key, kl))
				copy_word((char *)ret + keys[k].off, sizeof(ret->load), line + kl,
					  len - kl);
		}
		line = end ? end + 1 : NULL;
	}
	return ret->load[0] || ret->active[0] ? 0 : -EINVAL;
}

int pf_parse_fm_version(const char *text, char *buf, size_t len)
{
	const char *p = text ? strcasestr(text, "version") : NULL;

	if (!p || !len)
		return -EINVAL;
	for (p += 7; *p && *p != '\n'; p++) {
		size_t n = 0, dots = 0;

		if (!isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)p[n]) || (p[n] == '.' && isdigit((unsigned char)p[n + 1])))
			dots += p[n++] == '.';
		if (!dots || n >= len)
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return 0;
	}
	return -EINVAL;
}

/* A string member of @obj into @dst (cut), "" when absent or not a string. */
static void str_member(const cJSON *obj, const char *key, char *dst, size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	dst[0] = '\0';
	if (cJSON_IsString(v) && v->valuestring)
		copy_word(dst, size, v->valuestring, strlen(v->valuestring));
}

/* The connections of one node: how many, how many CONNECTED, the others named. */
static void read_connections(const cJSON *conns, struct pf_imex_node *n)
{
	const cJSON *c;

	if (!cJSON_IsObject(conns) && !cJSON_IsArray(conns))
		return;
	cJSON_ArrayForEach(c, conns) {
		char host[PF_IMEX_WORD], status[PF_IMEX_WORD];
		size_t used = strlen(n->not_connected);

		if (!cJSON_IsObject(c))
			continue;
		str_member(c, "host", host, sizeof(host));
		str_member(c, "status", status, sizeof(status));
		n->n_conn++;
		if (!strcmp(status, "CONNECTED")) {
			n->n_connected++;
			continue;
		}
		if (used + 1 < sizeof(n->not_connected))
			snprintf(n->not_connected + used, sizeof(n->not_connected) - used, "%s%s %s",
				 used ? ", " : "", host[0] ? host : "?", status[0] ? status : "?");
	}
}

int pf_parse_imex_status(const char *text, size_t len, struct pf_imex_status *ret)
{
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *nodes, *it;

	memset(ret, 0, sizeof(*ret));
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return -EINVAL;
	}
	str_member(root, "status", ret->domain, sizeof(ret->domain));
	nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	if (!cJSON_IsObject(nodes) && !ret->domain[0]) {
		cJSON_Delete(root);
		return -EINVAL;
	}
	if (!cJSON_IsObject(nodes))
		nodes = NULL; /* a domain status alone */
	cJSON_ArrayForEach(it, nodes) {
		struct pf_imex_node *n;

		if (!cJSON_IsObject(it) || ret->n_nodes >= PF_IMEX_MAX_NODES)
			continue;
		n = &ret->nodes[ret->n_nodes++];
		str_member(it, "host", n->host, sizeof(n->host));
		str_member(it, "status", n->status, sizeof(n->status));
		str_member(it, "version", n->version, sizeof(n->version));
		read_connections(cJSON_GetObjectItemCaseSensitive(it, "connections"), n);
	}
	cJSON_Delete(root);
	return 0;
}

/* Whether @word is an IPv4 or IPv6 address. */
static bool is_address(const char *word)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, word, buf) == 1 || inet_pton(AF_INET6, word, buf) == 1;
}

int pf_parse_imex_nodes(const char *text, struct pf_imex_nodes *ret)
{
	const char *line = text;
	unsigned int no = 0;

	memset(ret, 0, sizeof(*ret));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *hash = memchr(line, '#', len);
		const char *a = line, *b = line + (hash ? (size_t)(hash - line) : len);
		char word[PF_IMEX_WORD];

		no++;
		line = end ? end + 1 : NULL;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (a == b)
			continue;
		if ((size_t)(b - a) < sizeof(word))
			copy_word(word, sizeof(word), a, (size_t)(b - a));
		if ((size_t)(b - a) >= sizeof(word) || strlen(word) != (size_t)(b - a) ||
		    !is_address(word)) {
			ret->n_bad++;
			if (!ret->first_bad)
				ret->first_bad = no;
			continue;
		}
		if (ret->n >= PF_IMEX_MAX_ADDRS) {
			ret->n_more++;
			continue;
		}
		memcpy(ret->addr[ret->n++], word, sizeof(word));
	}
	return 0;
}

void pf_imex_nodes_path(const char *config, char *buf, size_t len)
{
	static const char key[] = "IMEX_NODE_CONFIG_FILE=";
	const char *line = config;

	snprintf(buf, len, "/etc/nvidia-imex/nodes_config.cfg");
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		while (n && isspace((unsigned char)*line))
			line++, n--;
		if (n > sizeof(key) - 1 && !strncmp(line, key, sizeof(key) - 1) &&
		    line[sizeof(key) - 1] == '/') {
			size_t v = n - (sizeof(key) - 1);

			while (v && isspace((unsigned char)line[sizeof(key) - 1 + v - 1]))
				v--;
			if (v < len)
				copy_word(buf, len, line + sizeof(key) - 1, v);
		}
		line = end ? end + 1 : NULL;
	}
}
