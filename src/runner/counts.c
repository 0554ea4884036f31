// SPDX-License-Identifier: MIT
/*
 * counts.c - the counts state of --confirm (confirm.h): which counts a fail
 * rested on at earlier runs of this boot, so that an Xid logged once or an
 * error counter that ticked during fabric settling is reported by the run that
 * saw it, and by no later run unless it rises again.
 *
 * counts.json: {"boot_id": "...", "counts": {"<check>/<subject>": {name: value}}}.
 * Its directory is root's (default /var/lib/preflight); the file is trusted
 * only when it is a regular file of root or the caller that others cannot
 * write; anything else, or a file of another boot, is no state at all
 * (a first run), never an error of the checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confirm.h"
#include "output.h"
#include "preflight/fs.h"

#define COUNTS_FILE "counts.json"
#define COUNTS_MAX_BYTES (1u << 20)

static char *entry_key(const char *check, const char *subject)
{
	return pf_xasprintf("%s/%s", check, subject ? subject : "");
}

/* The file's text, read from @dfd; -errno, or -EPERM with *ret_warn for an untrusted file. */
static int read_trusted(int dfd, const char *shown, char **ret, char **ret_warn)
{
	pf_autoclose int fd = -1;
	struct stat st;
	size_t len;
	int r;

	fd = openat(dfd, COUNTS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? (*ret_warn = pf_xasprintf("%s/%s is a symlink", shown,
							COUNTS_FILE), -EPERM) : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !pf_output_trusted_owner(st.st_uid) || (st.st_mode & 022)) {
		*ret_warn = pf_xasprintf("%s/%s is not a regular file of root's that only its "
					 "owner writes", shown, COUNTS_FILE);
		return -EPERM;
	}
	if (st.st_size > COUNTS_MAX_BYTES) {
		*ret_warn = pf_xasprintf("%s/%s is larger than %u bytes", shown, COUNTS_FILE,
					 COUNTS_MAX_BYTES);
		return -EFBIG;
	}
	r = pf_fs_read_fd(fd, COUNTS_MAX_BYTES, ret, &len);
	if (r == -EFBIG)
		*ret_warn = pf_xasprintf("%s/%s is larger than %u bytes", shown, COUNTS_FILE,
					 COUNTS_MAX_BYTES);
	return r;
}

int pf_counts_load(const char *dir, const char *boot_id, cJSON **ret, char **ret_warn)
{
	pf_autofree char *shown = NULL, *text = NULL;
	pf_autoclose int dfd = -1;
	cJSON *j, *counts;
	const cJSON *b;
	int r;

	*ret = NULL;
	*ret_warn = NULL;
	dfd = pf_output_opendir(dir, true, &shown, ret_warn);
	if (dfd < 0)
		return dfd;
	r = read_trusted(dfd, shown ? shown : dir, &text, ret_warn);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		if (!*ret_warn)
			*ret_warn = pf_xasprintf("cannot read %s/%s: %s", shown ? shown : dir,
						 COUNTS_FILE, strerror(-r));
		return 0;
	}
	j = cJSON_Parse(text);
	b = cJSON_GetObjectItemCaseSensitive(j, "boot_id");
	counts = cJSON_GetObjectItemCaseSensitive(j, "counts");
	if (!cJSON_IsString(b) || !cJSON_IsObject(counts)) {
		*ret_warn = pf_xasprintf("%s/%s is not a counts state (ignored)", shown ? shown : dir,
					 COUNTS_FILE);
		cJSON_Delete(j);
		return 0;
	}
	/* another boot: its counts were reset by the reboot, and so is the state */
	if (strcmp(b->valuestring, boot_id) == 0)
		*ret = cJSON_DetachItemViaPointer(j, counts);
	cJSON_Delete(j);
	return 0;
}

/* Whether every count of @now is in @before and none has risen. */
static bool none_risen(const cJSON *before, const cJSON *now)
{
	const cJSON *c;

	if (!cJSON_IsObject(before))
		return false;
	cJSON_ArrayForEach(c, now) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(before, c->string);

		if (!cJSON_IsNumber(b) || !cJSON_IsNumber(c) || c->valuedouble > b->valuedouble)
			return false;
	}
	return true;
}

void pf_counts_apply(const cJSON *prev, struct pf_run *runs, size_t n)
{
	for (size_t i = 0; prev && i < n; i++) {
		struct pf_result *res = &runs[i].res;
		bool changed = false;

		for (size_t k = 0; k < res->n_findings; k++) {
			struct pf_finding *f = &res->findings[k];
			pf_autofree char *key = NULL, *msg = NULL;

			if (f->status != PF_STATUS_FAIL || !f->counts)
				continue;
			key = entry_key(runs[i].check->name, f->subject);
			if (!none_risen(cJSON_GetObjectItemCaseSensitive(prev, key), f->counts))
				continue;
			msg = f->message;
			f->message = pf_xasprintf("%s; reported by an earlier run of this boot, not "
						  "risen since", msg);
			f->status = PF_STATUS_WARN;
			f->code_num = PF_CODE_REPORTED_BEFORE;
			pf_code_resolve(f, runs[i].check->name, PF_ACTION_NONE);
			changed = true;
		}
		if (changed) {
			free(res->summary);
			res->summary = NULL;
			pf_result_finish(res);
		}
	}
}

cJSON *pf_counts_next(const cJSON *prev, const struct pf_run *runs, size_t n, const char *boot_id)
{
	cJSON *state = cJSON_CreateObject(), *counts;
	const cJSON *e;

	cJSON_AddStringToObject(state, "boot_id", boot_id);
	counts = cJSON_AddObjectToObject(state, "counts");
	/* what checks that did not run this time remembered */
	cJSON_ArrayForEach(e, prev) {
		const char *slash = strchr(e->string, '/');
		bool ran = false;

		for (size_t i = 0; slash && i < n && !ran; i++)
			ran = strlen(runs[i].check->name) == (size_t)(slash - e->string) &&
			      !strncmp(runs[i].check->name, e->string, (size_t)(slash - e->string));
		if (!ran)
			cJSON_AddItemToObject(counts, e->string, cJSON_Duplicate(e, 1));
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].res.n_findings; k++) {
			const struct pf_finding *f = &runs[i].res.findings[k];
			pf_autofree char *key = NULL;

			if (!f->counts)
				continue;
			key = entry_key(runs[i].check->name, f->subject);
			cJSON_DeleteItemFromObjectCaseSensitive(counts, key);
			cJSON_AddItemToObject(counts, key, cJSON_Duplicate(f->counts, 1));
		}
	return state;
}

int pf_counts_save(const char *dir, const cJSON *state, char **ret_err)
{
	pf_autofree char *text = cJSON_PrintUnformatted(state);
	pf_autofree char *path = pf_xasprintf("%s/%s", dir, COUNTS_FILE), *err = NULL;
	int r;

	if (!text)
		return -ENOMEM;
	r = pf_output_write(path, text, strlen(text), &err);
	if (ret_err)
		*ret_err = PF_TAKE_PTR(err);
	return r;
}
