// SPDX-License-Identifier: MIT
/*
 * result.c - findings storage, status arithmetic and JSON (de)serialisation
 * of a check's result.  The same JSON crosses the runner's pipe and lands in
 * the report, so a result read back is identical to the one written.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preflight/result.h"

static const char *const status_names[PF_STATUS_COUNT] = {
	[PF_STATUS_PASS] = "pass", [PF_STATUS_WARN] = "warn",
	[PF_STATUS_FAIL] = "fail", [PF_STATUS_SKIP] = "skip",
	[PF_STATUS_ERROR] = "error",
};

const char *pf_status_name(enum pf_status s)
{
	return s < PF_STATUS_COUNT ? status_names[s] : "error";
}

int pf_status_from_name(const char *name, enum pf_status *ret)
{
	for (int i = 0; i < PF_STATUS_COUNT; i++)
		if (name && !strcmp(name, status_names[i])) {
			*ret = (enum pf_status)i;
			return 0;
		}
	return -EINVAL;
}

int pf_status_rank(enum pf_status s)
{
	static const int rank[PF_STATUS_COUNT] = {
		[PF_STATUS_SKIP] = 0, [PF_STATUS_PASS] = 1, [PF_STATUS_WARN] = 2,
		[PF_STATUS_ERROR] = 3, [PF_STATUS_FAIL] = 4,
	};
	return s < PF_STATUS_COUNT ? rank[s] : 3;
}

enum pf_status pf_status_worst(enum pf_status a, enum pf_status b)
{
	return pf_status_rank(a) >= pf_status_rank(b) ? a : b;
}

void pf_result_init(struct pf_result *res)
{
	memset(res, 0, sizeof(*res));
	res->status = PF_STATUS_ERROR;
}

static void finding_release(struct pf_finding *f)
{
	free(f->subject);
	free(f->message);
	free(f->remedy);
	free(f->code);
	cJSON_Delete(f->counts);
	cJSON_Delete(f->observed);
	cJSON_Delete(f->expected);
}

void pf_result_release(struct pf_result *res)
{
	for (size_t i = 0; i < res->n_findings; i++)
		finding_release(&res->findings[i]);
	if (res->findings)
		munmap(res->findings, PF_FINDINGS_MAX * sizeof(struct pf_finding));
	free(res->summary);
	pf_result_init(res);
}

static char *vformat(const char *fmt, va_list ap) PF_PRINTF(1, 0);
static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		s = pf_xstrdup("out of memory");
	return s;
}

/*
 * Room for one more finding without moving the ones before it (result.h):
 * the whole PF_FINDINGS_MAX array is reserved as address space only
 * (PROT_NONE, no memory committed) on the first add, and made writable a
 * page at a time as it fills.  Out of memory aborts, as pf_xmalloc() does.
 */
static void findings_grow(struct pf_result *res)
{
	const size_t size = sizeof(struct pf_finding);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want;

	PF_BUG_ON(res->n_findings >= PF_FINDINGS_MAX);
	if (!res->findings) {
		void *p = mmap(NULL, PF_FINDINGS_MAX * size, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			pf_oom();
		res->findings = p;
		res->findings_room = 0;
	}
	if (res->n_findings < res->findings_room)
		return;
	want = ((res->n_findings + 1) * size + page - 1) / page * page;
	if (want > PF_FINDINGS_MAX * size)
		want = PF_FINDINGS_MAX * size;
	if (mprotect(res->findings, want, PROT_READ | PROT_WRITE) < 0)
		pf_oom();
	res->findings_room = want / size;
}

static struct pf_finding *add_finding(struct pf_result *res, enum pf_status st,
				      const char *subject, char *message)
{
	struct pf_finding *f;

	findings_grow(res);
	f = &res->findings[res->n_findings++];
	memset(f, 0, sizeof(*f));
	f->status = st;
	f->subject = subject ? pf_xstrdup(subject) : NULL;
	f->message = message;
	return f;
}

struct pf_finding *pf_add(struct pf_result *res, enum pf_status st, const char *subject,
			  const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	return add_finding(res, st, subject, msg);
}

struct pf_finding *pf_last(struct pf_result *res)
{
	PF_BUG_ON(res->n_findings == 0);
	return &res->findings[res->n_findings - 1];
}

static cJSON *obj(cJSON **slot)
{
	if (!*slot)
		*slot = cJSON_CreateObject();
	return *slot;
}

void pf_obs_num(struct pf_finding *f, const char *key, double v)
{
	cJSON_AddNumberToObject(obj(&f->observed), key, v);
}

void pf_obs_str(struct pf_finding *f, const char *key, const char *v)
{
	cJSON_AddStringToObject(obj(&f->observed), key, v ? v : "");
}

void pf_obs_bool(struct pf_finding *f, const char *key, bool v)
{
	cJSON_AddBoolToObject(obj(&f->observed), key, v);
}

void pf_obs_json(struct pf_finding *f, const char *key, cJSON *v)
{
	cJSON_AddItemToObject(obj(&f->observed), key, v);
}

void pf_exp_num(struct pf_finding *f, const char *key, double v)
{
	cJSON_AddNumberToObject(obj(&f->expected), key, v);
}

void pf_exp_str(struct pf_finding *f, const char *key, const char *v)
{
	cJSON_AddStringToObject(obj(&f->expected), key, v ? v : "");
}

void pf_exp_bool(struct pf_finding *f, const char *key, bool v)
{
	cJSON_AddBoolToObject(obj(&f->expected), key, v);
}

void pf_remedy(struct pf_finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->remedy);
	va_start(ap, fmt);
	f->remedy = vformat(fmt, ap);
	va_end(ap);
}

void pf_summary(struct pf_result *res, const char *fmt, ...)
{
	va_list ap;

	free(res->summary);
	va_start(ap, fmt);
	res->summary = vformat(fmt, ap);
	va_end(ap);
}

int pf_error(struct pf_result *res, int err, const char *fmt, ...)
{
	va_list ap;
	char *msg, *full;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	full = err ? pf_xasprintf("%s: %s", msg, strerror(err < 0 ? -err : err)) : pf_xstrdup(msg);
	free(msg);
	add_finding(res, PF_STATUS_ERROR, NULL, full);
	return err < 0 ? err : -err;
}

int pf_skip(struct pf_result *res, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	add_finding(res, PF_STATUS_SKIP, NULL, msg);
	free(res->summary);
	res->summary = pf_xstrdup(pf_last(res)->message);
	return 0;
}

/*
 * A check's own summary of a failing or erroring result must say what is
 * wrong (it is JUnit's failure message and Slurm's drain reason): when it
 * names neither the first such finding's subject nor its message, append
 * them, as the generic summary does (only the subject when the message is
 * longer than 80 bytes).
 */
static void name_first_problem(struct pf_result *res, enum pf_status worst)
{
	const struct pf_finding *f = NULL;
	char *s;

	if (worst != PF_STATUS_FAIL && worst != PF_STATUS_ERROR)
		return;
	for (size_t i = 0; i < res->n_findings && !f; i++)
		if (res->findings[i].status == worst)
			f = &res->findings[i];
	if (!f || strstr(res->summary, f->message) ||
	    (f->subject && *f->subject && strstr(res->summary, f->subject)))
		return;
	/* a long message stays in its finding: the subject says where to look */
	if (f->subject && *f->subject && strlen(f->message) > 80)
		s = pf_xasprintf("%s (first: %s)", res->summary, f->subject);
	else
		s = pf_xasprintf("%s (first: %s%s%s)", res->summary, f->subject ? f->subject : "",
				 f->subject && *f->subject ? ": " : "", f->message);
	free(res->summary);
	res->summary = s;
}

void pf_result_finish(struct pf_result *res)
{
	size_t count[PF_STATUS_COUNT] = { 0 };
	enum pf_status worst = PF_STATUS_SKIP;
	size_t i;

	if (res->n_findings == 0) {
		add_finding(res, PF_STATUS_ERROR, NULL,
			    pf_xstrdup("check recorded no findings"));
	}
	for (i = 0; i < res->n_findings; i++) {
		worst = pf_status_worst(worst, res->findings[i].status);
		count[res->findings[i].status]++;
	}
	res->status = worst;
	if (res->summary) {
		name_first_problem(res, worst);
		return;
	}
	if (worst == PF_STATUS_PASS || worst == PF_STATUS_SKIP) {
		if (res->n_findings == 1)
			res->summary = pf_xstrdup(res->findings[0].message);
		else
			res->summary = pf_xasprintf("%zu of %zu subjects %s", count[worst],
						    res->n_findings, pf_status_name(worst));
		return;
	}
	/* Lead with the first finding of the worst status. */
	for (i = 0; i < res->n_findings; i++)
		if (res->findings[i].status == worst)
			break;
	if (count[worst] == 1) {
		const struct pf_finding *f = &res->findings[i];

		res->summary = f->subject ? pf_xasprintf("%s: %s", f->subject, f->message)
					  : pf_xstrdup(f->message);
	} else {
		res->summary = pf_xasprintf("%zu of %zu subjects %s (first: %s%s%s)", count[worst],
					    res->n_findings, pf_status_name(worst),
					    res->findings[i].subject ? res->findings[i].subject : "",
					    res->findings[i].subject ? ": " : "",
					    res->findings[i].message);
	}
}

static const char *const action_names[PF_ACTION_COUNT] = {
	[PF_ACTION_NONE] = "none",
	[PF_ACTION_RECONFIGURE] = "reconfigure",
	[PF_ACTION_RELOAD_DRIVER] = "reload_driver",
	[PF_ACTION_RESET_GPU] = "reset_gpu",
	[PF_ACTION_REBOOT] = "reboot",
	[PF_ACTION_RESEAT_OR_REPLACE] = "reseat_or_replace",
	[PF_ACTION_CONTACT_VENDOR] = "contact_vendor",
};

const char *pf_action_name(enum pf_action a)
{
	return a < PF_ACTION_COUNT ? action_names[a] : "none";
}

int pf_action_from_name(const char *name, enum pf_action *ret)
{
	for (int a = 0; name && a < PF_ACTION_COUNT; a++)
		if (strcmp(name, action_names[a]) == 0) {
			*ret = (enum pf_action)a;
			return 0;
		}
	return -EINVAL;
}

void pf_count(struct pf_finding *f, const char *key, double v)
{
	if (!f->counts)
		f->counts = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(f->counts, key);
	cJSON_AddNumberToObject(f->counts, key, v);
}

void pf_code(struct pf_finding *f, unsigned int num)
{
	PF_BUG_ON(num == 0 || num > 999);
	f->code_num = num;
}

char *pf_code_name(const char *check_name, unsigned int num)
{
	char *code = pf_xasprintf("PF-%s-%03u", check_name, num);

	for (char *c = code; *c; c++)
		*c = *c == '_' ? '-' : (char)toupper((unsigned char)*c);
	return code;
}

void pf_code_resolve(struct pf_finding *f, const char *check_name, enum pf_action action)
{
	free(f->code);
	f->code = pf_code_name(check_name, f->code_num);
	f->action = action;
}

void pf_result_resolve_codes(struct pf_result *res, const char *check_name,
			     const struct pf_code *codes)
{
	size_t n = res->n_findings;

	for (size_t i = 0; i < n; i++) {
		struct pf_finding *f = &res->findings[i];
		const struct pf_code *c = codes;

		if (!f->code_num)
			continue;
		if (f->status != PF_STATUS_FAIL && f->status != PF_STATUS_WARN) {
			f->code_num = 0;
			continue;
		}
		while (c && c->num && c->num != f->code_num)
			c++;
		if (c && c->num)
			pf_code_resolve(f, check_name, c->action);
		else
			pf_add(res, PF_STATUS_ERROR, f->subject, "%s gave code %u, which its "
			       "code table lacks (a bug of the check)", check_name, f->code_num);
	}
}

cJSON *pf_result_to_json(const struct pf_result *res)
{
	cJSON *j = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(j, "status", pf_status_name(res->status));
	cJSON_AddStringToObject(j, "summary", res->summary ? res->summary : "");
	arr = cJSON_AddArrayToObject(j, "findings");
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct pf_finding *f = &res->findings[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "subject", f->subject ? f->subject : "");
		cJSON_AddStringToObject(o, "status", pf_status_name(f->status));
		cJSON_AddStringToObject(o, "message", f->message);
		if (f->observed)
			cJSON_AddItemToObject(o, "observed", cJSON_Duplicate(f->observed, 1));
		if (f->expected)
			cJSON_AddItemToObject(o, "expected", cJSON_Duplicate(f->expected, 1));
		if (f->remedy)
			cJSON_AddStringToObject(o, "remedy", f->remedy);
		if (f->code) {
			cJSON_AddStringToObject(o, "code", f->code);
			cJSON_AddStringToObject(o, "action", pf_action_name(f->action));
		}
		if (f->counts)
			cJSON_AddItemToObject(o, "counts", cJSON_Duplicate(f->counts, 1));
		cJSON_AddItemToArray(arr, o);
	}
	return j;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int pf_result_from_json(const cJSON *json, struct pf_result *res)
{
	const cJSON *arr, *it;
	enum pf_status st;

	pf_result_init(res);
	if (!cJSON_IsObject(json) || pf_status_from_name(json_str(json, "status"), &st) < 0)
		return -EINVAL;
	arr = cJSON_GetObjectItemCaseSensitive(json, "findings");
	if (!cJSON_IsArray(arr))
		return -EINVAL;
	/* more than a result may hold is a broken sender, never a bug of ours */
	if ((size_t)cJSON_GetArraySize(arr) > PF_FINDINGS_MAX)
		return -E2BIG;
	cJSON_ArrayForEach(it, arr) {
		const char *subject = json_str(it, "subject"), *msg = json_str(it, "message");
		const char *remedy = json_str(it, "remedy"), *code = json_str(it, "code");
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(it, "observed");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(it, "expected");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "counts");
		struct pf_finding *f;
		enum pf_status fst;

		if (!msg || pf_status_from_name(json_str(it, "status"), &fst) < 0) {
			pf_result_release(res);
			return -EINVAL;
		}
		f = add_finding(res, fst, subject && *subject ? subject : NULL, pf_xstrdup(msg));
		if (cJSON_IsObject(o))
			f->observed = cJSON_Duplicate(o, 1);
		if (cJSON_IsObject(e))
			f->expected = cJSON_Duplicate(e, 1);
		if (remedy)
			f->remedy = pf_xstrdup(remedy);
		if (cJSON_IsObject(n))
			f->counts = cJSON_Duplicate(n, 1);
		/* a code travels with its action; an action we do not know is "none" */
		if (code) {
			f->code = pf_xstrdup(code);
			if (pf_action_from_name(json_str(it, "action"), &f->action) < 0)
				f->action = PF_ACTION_NONE;
		}
	}
	res->status = st;
	if (json_str(json, "summary"))
		res->summary = pf_xstrdup(json_str(json, "summary"));
	return 0;
}
