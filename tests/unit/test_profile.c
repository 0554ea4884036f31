// SPDX-License-Identifier: MIT
/*
 * test_profile.c - defaults < profile file < --set, and every error path
 * with a message that names the offending file, check and key.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "profile.h"
#include "registry.h"
#include "testutil.h"

struct acfg {
	uint64_t count;
	int64_t offset;
	double ratio;
	bool flag;
	char *names;
};

struct bcfg {
	uint64_t limit;
};

static int trun(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	return 0;
}

static const struct pf_param alpha_params[] = {
	PF_PARAM_U64(struct acfg, count, "10", 0, 100, "widgets", "how many"),
	PF_PARAM_I64(struct acfg, offset, "-1", -5, 5, NULL, "an offset"),
	PF_PARAM_DOUBLE(struct acfg, ratio, "0.5", 0, 1, NULL, "a ratio"),
	PF_PARAM_BOOL(struct acfg, flag, "true", "a switch"),
	PF_PARAM_STRING(struct acfg, names, "a,b", "a list"),
	PF_PARAM_END,
};

static const struct pf_param beta_params[] = {
	PF_PARAM_U64(struct bcfg, limit, "7", 0, 1000, NULL, "a limit"),
	PF_PARAM_END,
};

static const struct pf_check alpha = {
	.name = "alpha", .summary = "a", .reads = "r", .params = alpha_params,
	.cfg_size = sizeof(struct acfg), .timeout_s = 1, .run = trun,
};
static const struct pf_check beta = {
	.name = "beta", .summary = "b", .reads = "r", .params = beta_params,
	.cfg_size = sizeof(struct bcfg), .timeout_s = 1, .run = trun,
};
static const struct pf_check *const checks[] = { &alpha, &beta };

#define assert_contains(hay, needle)                                            \
	do {                                                                    \
		if (!(hay) || !strstr((hay), (needle)))                         \
			fail_msg("'%s' does not contain '%s'", (hay) ? (hay) : "(null)", \
				 (needle));                                     \
	} while (0)

static struct acfg *build_alpha(const struct pf_profile *p)
{
	void *cfg = NULL;
	char *err = NULL;

	if (pf_config_build(&alpha, p, &cfg, &err) < 0)
		fail_msg("%s", err);
	return cfg;
}

static void test_defaults(void **state)
{
	struct pf_profile p;
	struct acfg *a;
	char *err = NULL;

	pf_profile_init(&p);
	assert_int_equal(pf_profile_validate(&p, checks, 2, &err), 0);
	a = build_alpha(&p);
	assert_int_equal(a->count, 10);
	assert_int_equal(a->offset, -1);
	assert_true(a->ratio == 0.5);
	assert_true(a->flag);
	assert_string_equal(a->names, "a,b");
	pf_config_free(&alpha, a);
	/* a NULL profile means the defaults too */
	a = build_alpha(NULL);
	assert_int_equal(a->count, 10);
	pf_config_free(&alpha, a);
	pf_profile_release(&p);
}

static const char *const profile_text =
	"/* a profile with comments */\n"
	"{\n"
	"  \"name\": \"lab\", // trailing comment\n"
	"  \"description\": \"test profile\",\n"
	"  \"checks\": {\n"
	"    \"alpha\": { \"count\": 20, \"offset\": -3, \"ratio\": 0.25,\n"
	"               \"flag\": false, \"names\": [\"x\", \"y\", \"z\"] },\n"
	"    \"beta\": { \"limit\": 1000 }\n"
	"  }\n"
	"}\n";

static void test_profile_overrides(void **state)
{
	struct pf_profile p;
	struct acfg *a;
	struct bcfg *b = NULL;
	char *err = NULL;
	cJSON *j;

	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, profile_text, "lab.json", &err), 0);
	assert_string_equal(p.name, "lab");
	assert_string_equal(p.path, "lab.json");
	assert_int_equal(pf_profile_validate(&p, checks, 2, &err), 0);
	a = build_alpha(&p);
	assert_int_equal(a->count, 20);
	assert_int_equal(a->offset, -3);
	assert_true(a->ratio == 0.25);
	assert_false(a->flag);
	assert_string_equal(a->names, "x,y,z");

	/* the report's "config" shows the effective values */
	j = pf_config_to_json(&alpha, a);
	assert_int_equal(cJSON_GetObjectItem(j, "count")->valuedouble, 20);
	assert_int_equal(cJSON_GetObjectItem(j, "offset")->valuedouble, -3);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "flag")));
	assert_string_equal(cJSON_GetObjectItem(j, "names")->valuestring, "x,y,z");
	assert_true(cJSON_GetObjectItem(j, "ratio")->valuedouble == 0.25);
	assert_int_equal(cJSON_GetArraySize(j), 5);
	cJSON_Delete(j);
	pf_config_free(&alpha, a);

	assert_int_equal(pf_config_build(&beta, &p, (void **)&b, &err), 0);
	assert_int_equal(b->limit, 1000);
	pf_config_free(&beta, b);
	pf_profile_release(&p);

	/* without "name" the profile is called after its file; an empty list is "" */
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\":{\"alpha\":{\"names\":[]}}}",
					  "site.json", &err), 0);
	assert_string_equal(p.name, "site.json");
	a = build_alpha(&p);
	assert_string_equal(a->names, "");
	assert_int_equal(a->count, 10);
	pf_config_free(&alpha, a);
	pf_profile_release(&p);
}

static void test_set_overrides_profile(void **state)
{
	struct pf_profile p;
	struct acfg *a;
	char *err = NULL;

	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, profile_text, "lab.json", &err), 0);
	pf_profile_add_set(&p, "alpha.count=30");
	pf_profile_add_set(&p, "alpha.names=q");
	pf_profile_add_set(&p, "alpha.flag=yes");
	pf_profile_add_set(&p, "alpha.ratio=1e-1");
	pf_profile_add_set(&p, "alpha.offset=0x2");
	pf_profile_add_set(&p, "alpha.count=31"); /* the last one wins */
	pf_profile_add_set(&p, "beta.limit=0");
	assert_int_equal(pf_profile_validate(&p, checks, 2, &err), 0);
	a = build_alpha(&p);
	assert_int_equal(a->count, 31);
	assert_string_equal(a->names, "q");
	assert_true(a->flag);
	assert_true(a->ratio == 0.1);
	assert_int_equal(a->offset, 2);
	pf_config_free(&alpha, a);
	pf_profile_release(&p);

	/* a value may contain '.' and '=' */
	pf_profile_init(&p);
	pf_profile_add_set(&p, "alpha.names=a.b=c");
	a = build_alpha(&p);
	assert_string_equal(a->names, "a.b=c");
	pf_config_free(&alpha, a);
	pf_profile_release(&p);
}

/* Parse @text as profile "bad.json" and validate it; expect -EINVAL naming @want. */
static void expect_profile_error(const char *text, const char *const *sets, const char *want)
{
	struct pf_profile p;
	char *err = NULL;
	int r;

	pf_profile_init(&p);
	for (size_t i = 0; sets && sets[i]; i++)
		pf_profile_add_set(&p, sets[i]);
	r = text ? pf_profile_parse(&p, text, "bad.json", &err) : 0;
	if (r == 0)
		r = pf_profile_validate(&p, checks, 2, &err);
	assert_int_equal(r, -EINVAL);
	assert_contains(err, want);
	free(err);
	pf_profile_release(&p);
}

static void test_profile_errors(void **state)
{
	/* a duplicate key anywhere is an error, never first- or last-wins */
	expect_profile_error("{\"checks\": {\"alpha\": {}, \"alpha\": {\"count\": 1}}}", NULL,
			     "profile 'bad.json': 'checks.alpha' is given twice");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": 1, \"count\": 2}}}", NULL,
			     "'checks.alpha.count' is given twice");
	expect_profile_error("{\"name\": \"a\", \"name\": \"b\"}", NULL, "'name' is given twice");
	expect_profile_error("{ \"checks\": ", NULL, "profile 'bad.json': not valid JSON");
	expect_profile_error("", NULL, "profile 'bad.json': not valid JSON");
	expect_profile_error("[1, 2]", NULL, "profile 'bad.json': top level must be an object");
	expect_profile_error("{\"chekcs\": {}}", NULL, "profile 'bad.json': unknown key 'chekcs'");
	expect_profile_error("{\"name\": 3}", NULL, "profile 'bad.json': 'name' must be a string");
	expect_profile_error("{\"description\": []}", NULL, "'description' must be a string");
	expect_profile_error("{\"checks\": []}", NULL, "'checks' must be an object");
	expect_profile_error("{\"checks\": {\"gamma\": {}}}", NULL,
			     "profile 'bad.json': unknown check 'gamma'");
	expect_profile_error("{\"checks\": {\"alpha\": 1}}", NULL,
			     "profile 'bad.json': checks.alpha must be an object");
	expect_profile_error("{\"checks\": {\"alpha\": {\"cuont\": 1}}}", NULL,
			     "profile 'bad.json': unknown key 'cuont' of check 'alpha'");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": \"12\"}}}", NULL,
			     "profile 'bad.json': checks.alpha.count: 'count' must be an "
			     "unsigned integer");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": 1.5}}}", NULL,
			     "checks.alpha.count: 'count' must be an unsigned integer");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": 1e300}}}", NULL,
			     "checks.alpha.count");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": 101}}}", NULL,
			     "checks.alpha.count: value '101' for 'count' is out of range [0, 100]");
	expect_profile_error("{\"checks\": {\"alpha\": {\"count\": -1}}}", NULL,
			     "checks.alpha.count: value '-1' for 'count' is not an unsigned integer");
	expect_profile_error("{\"checks\": {\"alpha\": {\"offset\": 6}}}", NULL,
			     "checks.alpha.offset: value '6' for 'offset' is out of range [-5, 5]");
	expect_profile_error("{\"checks\": {\"alpha\": {\"ratio\": true}}}", NULL,
			     "checks.alpha.ratio: 'ratio' must be a number");
	expect_profile_error("{\"checks\": {\"alpha\": {\"ratio\": 1.5}}}", NULL,
			     "checks.alpha.ratio: value '1.5' for 'ratio' is out of range [0, 1]");
	expect_profile_error("{\"checks\": {\"alpha\": {\"flag\": 1}}}", NULL,
			     "checks.alpha.flag: 'flag' must be a bool");
	expect_profile_error("{\"checks\": {\"alpha\": {\"names\": 3}}}", NULL,
			     "checks.alpha.names: 'names' must be a string or a list of strings");
	expect_profile_error("{\"checks\": {\"alpha\": {\"names\": [\"a\", 1]}}}", NULL,
			     "checks.alpha.names: 'names' must be a string or a list of strings");
	expect_profile_error("{\"checks\": {\"beta\": {\"limit\": null}}}", NULL,
			     "checks.beta.limit: 'limit' must be an unsigned integer");
}

static void test_set_errors(void **state)
{
	static const char *const nodot[] = { "alpha=1", NULL };
	static const char *const noeq[] = { "alpha.count", NULL };
	static const char *const nokey[] = { "alpha.=1", NULL };
	static const char *const nocheck[] = { ".count=1", NULL };
	static const char *const eqfirst[] = { "alpha=x.y", NULL };
	static const char *const unknown_check[] = { "gamma.count=1", NULL };
	static const char *const unknown_key[] = { "alpha.cuont=1", NULL };
	static const char *const not_u64[] = { "alpha.count=many", NULL };
	static const char *const neg_u64[] = { "alpha.count=-1", NULL };
	static const char *const high[] = { "alpha.count=101", NULL };
	static const char *const empty[] = { "alpha.count=", NULL };
	static const char *const not_bool[] = { "alpha.flag=maybe", NULL };
	static const char *const nan_ratio[] = { "alpha.ratio=nan", NULL };
	static const char *const inf_ratio[] = { "alpha.ratio=inf", NULL };
	static const char *const junk_ratio[] = { "alpha.ratio=0.5x", NULL };
	static const char *const not_i64[] = { "alpha.offset=1.0", NULL };
	static const char *const later_bad[] = { "alpha.count=5", "beta.limit=1001", NULL };

	expect_profile_error(NULL, nodot, "--set 'alpha=1': expected CHECK.KEY=VALUE");
	expect_profile_error(NULL, noeq, "--set 'alpha.count': expected CHECK.KEY=VALUE");
	expect_profile_error(NULL, nokey, "--set 'alpha.=1': expected CHECK.KEY=VALUE");
	expect_profile_error(NULL, nocheck, "--set '.count=1': expected CHECK.KEY=VALUE");
	expect_profile_error(NULL, eqfirst, "--set 'alpha=x.y': expected CHECK.KEY=VALUE");
	expect_profile_error(NULL, unknown_check, "--set 'gamma.count=1': unknown check 'gamma'");
	expect_profile_error(NULL, unknown_key,
			     "--set 'alpha.cuont=1': unknown key 'cuont' of check 'alpha'");
	expect_profile_error(NULL, not_u64,
			     "--set 'alpha.count=many': value 'many' for 'count' is not an "
			     "unsigned integer");
	expect_profile_error(NULL, neg_u64, "value '-1' for 'count' is not an unsigned integer");
	expect_profile_error(NULL, high, "value '101' for 'count' is out of range [0, 100]");
	expect_profile_error(NULL, empty, "value '' for 'count' is not an unsigned integer");
	expect_profile_error(NULL, not_bool, "value 'maybe' for 'flag' is not a bool");
	expect_profile_error(NULL, nan_ratio, "value 'nan' for 'ratio' is not a number");
	expect_profile_error(NULL, inf_ratio, "value 'inf' for 'ratio' is not a number");
	expect_profile_error(NULL, junk_ratio, "value '0.5x' for 'ratio' is not a number");
	expect_profile_error(NULL, not_i64, "value '1.0' for 'offset' is not an integer");
	expect_profile_error(NULL, later_bad, "--set 'beta.limit=1001': value '1001'");
}

static void test_load_file(void **state)
{
	char *dir = pf_test_mkdtemp(), path[PATH_MAX + 32];
	struct pf_profile p;
	struct acfg *a;
	char *err = NULL;
	int fd;

	pf_test_write(dir, "lab.json", profile_text);
	pf_test_write(dir, "broken.json", "{ \"checks\": { \"alpha\": { \"count\": } } }");

	pf_profile_init(&p);
	snprintf(path, sizeof(path), "%s/lab.json", dir);
	assert_int_equal(pf_profile_load(&p, path, &err), 0);
	assert_string_equal(p.name, "lab");
	assert_string_equal(p.path, path);
	pf_profile_add_set(&p, "alpha.count=0");
	a = build_alpha(&p);
	assert_int_equal(a->count, 0);
	assert_int_equal(a->offset, -3);
	pf_config_free(&alpha, a);
	pf_profile_release(&p);

	pf_profile_init(&p);
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	assert_int_equal(pf_profile_load(&p, path, &err), -ENOENT);
	assert_contains(err, "cannot read profile '");
	assert_contains(err, "missing.json': No such file or directory");
	free(err);
	err = NULL;

	/* unreadable even as root: a directory */
	assert_int_equal(pf_profile_load(&p, dir, &err), -EISDIR);
	assert_contains(err, dir);
	assert_contains(err, "Is a directory");
	free(err);
	err = NULL;

	snprintf(path, sizeof(path), "%s/broken.json", dir);
	assert_int_equal(pf_profile_load(&p, path, &err), -EINVAL);
	assert_contains(err, "broken.json': not valid JSON");
	free(err);
	err = NULL;

	snprintf(path, sizeof(path), "%s/nul.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{}\0{}", 5), 5);
	close(fd);
	assert_int_equal(pf_profile_load(&p, path, &err), -EINVAL);
	assert_contains(err, "nul.json': contains NUL bytes");
	free(err);
	pf_profile_release(&p);

	pf_test_rmtree(dir);
	free(dir);
}

static void test_param_helpers(void **state)
{
	assert_ptr_equal(pf_param_find(&alpha, "ratio"), &alpha_params[2]);
	assert_null(pf_param_find(&alpha, "nope"));
	assert_string_equal(pf_param_type_name(PF_PARAM_BOOL), "bool");
	assert_string_equal(pf_param_type_name(PF_PARAM_U64), "unsigned integer");
	assert_string_equal(pf_param_type_name(PF_PARAM_I64), "integer");
	assert_string_equal(pf_param_type_name(PF_PARAM_DOUBLE), "number");
	assert_string_equal(pf_param_type_name(PF_PARAM_STRING), "string");
}

/* The registered checks' own tables work with a real profile. */
static void test_registered_checks(void **state)
{
	size_t n = 0;
	const struct pf_check *const *all = pf_registry(&n);
	struct pf_profile p;
	char *err = NULL;

	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p,
					  "{\"checks\": {\"memlock\": {\"min_kib\": 65536},"
					  " \"sysctl\": {\"ignore\": [\"kernel.numa_balancing\","
					  " \"vm.zone_reclaim_mode\"]}}}",
					  "real.json", &err), 0);
	if (pf_profile_validate(&p, all, n, &err) < 0)
		fail_msg("%s", err);
	pf_profile_release(&p);

	pf_profile_init(&p);
	pf_profile_add_set(&p, "memlock.min_kib=lots");
	assert_int_equal(pf_profile_validate(&p, all, n, &err), -EINVAL);
	assert_contains(err, "--set 'memlock.min_kib=lots'");
	free(err);
	pf_profile_release(&p);
}

/* String syntaxes: lists of integers and PCI addresses, versions. */
struct scfg {
	char *ids, *gpus, *ver;
};

static const struct pf_param syntax_params[] = {
	PF_PARAM_U64_LIST(struct scfg, ids, "1,2", 0, 10, "ids"),
	PF_PARAM_BDF_LIST(struct scfg, gpus, "", "gpus"),
	PF_PARAM_VERSION(struct scfg, ver, "", "a version"),
	PF_PARAM_END,
};

static const struct pf_check syntax_check = {
	.name = "syn", .summary = "s", .reads = "r", .params = syntax_params,
	.cfg_size = sizeof(struct scfg), .timeout_s = 1, .run = trun,
};

static void test_string_syntax(void **state)
{
	static const struct {
		const char *set, *stored; /* NULL: refused */
	} cases[] = {
		{ "syn.ids=3, 07,10", "3,7,10" },
		{ "syn.ids=", "" },
		{ "syn.ids=11", NULL },
		{ "syn.ids=1,x", NULL },
		{ "syn.ids=-1", NULL },
		{ "syn.gpus=0000:1B:00.0,17:00.0", "0000:1b:00.0,0000:17:00.0" },
		{ "syn.gpus=gpu0", NULL },
		{ "syn.gpus=0000:17:00", NULL },
		{ "syn.ver=550.54.15", "550.54.15" },
		{ "syn.ver=", "" },
		{ "syn.ver=550.x", NULL },
		{ "syn.ver=550.", NULL },
		{ "syn.ver=.550", NULL },
	};
	struct pf_profile p;
	struct scfg *cfg = NULL;
	char *err = NULL;

	assert_int_equal(pf_check_validate(&syntax_check, &err), 0);
	for (size_t i = 0; i < PF_ARRAY_SIZE(cases); i++) {
		const char *got;
		int r;

		pf_profile_init(&p);
		pf_profile_add_set(&p, cases[i].set);
		r = pf_config_build(&syntax_check, &p, (void **)&cfg, &err);
		if (!cases[i].stored) {
			if (r != -EINVAL)
				fail_msg("%s was accepted", cases[i].set);
			assert_contains(err, cases[i].set);
			free(err);
		} else {
			if (r < 0)
				fail_msg("%s: %s", cases[i].set, err);
			got = strstr(cases[i].set, "ids") ? cfg->ids :
			      strstr(cases[i].set, "gpus") ? cfg->gpus : cfg->ver;
			assert_string_equal(got, cases[i].stored);
			pf_config_free(&syntax_check, cfg);
		}
		pf_profile_release(&p);
	}
	/* a list of integers in a profile may hold JSON numbers */
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\": {\"syn\": {\"ids\": [4, \"5\"]}}}",
					  "s.json", &err), 0);
	assert_int_equal(pf_config_build(&syntax_check, &p, (void **)&cfg, &err), 0);
	assert_string_equal(cfg->ids, "4,5");
	pf_config_free(&syntax_check, cfg);
	pf_profile_release(&p);
	/* ... or be one number (profiles written when the key was a single integer) */
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\": {\"syn\": {\"ids\": 4}}}",
					  "s.json", &err), 0);
	assert_int_equal(pf_config_build(&syntax_check, &p, (void **)&cfg, &err), 0);
	assert_string_equal(cfg->ids, "4");
	pf_config_free(&syntax_check, cfg);
	pf_profile_release(&p);
}

/* The top-level "drain_on" (the Slurm gate): fail, error or warn, nothing else. */
static void test_drain_on(void **state)
{
	struct pf_profile p;
	char *err = NULL;

	pf_profile_init(&p);
	assert_null(p.drain_on);
	assert_int_equal(pf_profile_parse(&p, "{\"drain_on\": \"error\"}", "d.json", &err), 0);
	assert_string_equal(p.drain_on, "error");
	pf_profile_release(&p);
	for (size_t i = 0; i < 4; i++) {
		static const char *const bad[] = { "\"pass\"", "\"sometimes\"", "1", "\"Fail\"" };
		char text[64];

		pf_profile_init(&p);
		snprintf(text, sizeof(text), "{\"drain_on\": %s}", bad[i]);
		assert_int_equal(pf_profile_parse(&p, text, "d.json", &err), -EINVAL);
		assert_contains(err, "profile 'd.json': 'drain_on' must be");
		free(err);
		pf_profile_release(&p);
	}
}

/* A check of its own with an enum and a cross-field rule (the mechanism). */
struct gcfg {
	char *mode;
	uint64_t lo, hi;
};

static int gamma_validate(const void *config, char **ret_err)
{
	const struct gcfg *cfg = config;

	if (cfg->lo > cfg->hi)
		return pf_param_invalid(ret_err, "gamma.lo %llu is above gamma.hi %llu",
					(unsigned long long)cfg->lo, (unsigned long long)cfg->hi);
	return 0;
}

static const struct pf_param gamma_params[] = {
	PF_PARAM_ENUM(struct gcfg, mode, "auto", "a mode", "auto", "window", "absolute"),
	PF_PARAM_U64(struct gcfg, lo, "1", 0, 100, NULL, "low"),
	PF_PARAM_U64(struct gcfg, hi, "10", 0, 100, NULL, "high"),
	PF_PARAM_END,
};

static const struct pf_check gamma_check = {
	.name = "gamma", .summary = "g", .reads = "r", .params = gamma_params,
	.cfg_size = sizeof(struct gcfg), .timeout_s = 1, .run = trun,
	.validate = gamma_validate,
};

static void test_enum_and_validate(void **state)
{
	const struct pf_check *const g[] = { &gamma_check };
	struct pf_profile p;
	struct gcfg *cfg = NULL;
	char *err = NULL;
	cJSON *j;

	assert_int_equal(pf_check_validate(&gamma_check, &err), 0);
	assert_string_equal(pf_param_type_name(PF_PARAM_ENUM), "enum");
	err = pf_param_choices(&gamma_params[0], " | ");
	assert_string_equal(err, "auto | window | absolute");
	free(err);
	err = NULL;

	/* any case on input, the table's spelling in the config (and the report) */
	pf_profile_init(&p);
	pf_profile_add_set(&p, "gamma.mode=WINDOW");
	assert_int_equal(pf_config_build(&gamma_check, &p, (void **)&cfg, &err), 0);
	assert_string_equal(cfg->mode, "window");
	j = pf_config_to_json(&gamma_check, cfg);
	assert_string_equal(cJSON_GetObjectItem(j, "mode")->valuestring, "window");
	cJSON_Delete(j);
	pf_config_free(&gamma_check, cfg);
	pf_profile_release(&p);

	/* --set: a word not in the table */
	pf_profile_init(&p);
	pf_profile_add_set(&p, "gamma.mode=bogus");
	assert_int_equal(pf_profile_validate(&p, g, 1, &err), -EINVAL);
	assert_contains(err, "gamma.mode");
	assert_contains(err, "not one of auto, window, absolute");
	free(err);
	pf_profile_release(&p);

	/* a profile: a word not in the table, and not a string at all */
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\": {\"gamma\": {\"mode\": \"x\"}}}",
					  "g.json", &err), 0);
	assert_int_equal(pf_profile_validate(&p, g, 1, &err), -EINVAL);
	assert_contains(err, "checks.gamma.mode");
	free(err);
	pf_profile_release(&p);
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\": {\"gamma\": {\"mode\": 3}}}",
					  "g.json", &err), 0);
	assert_int_equal(pf_profile_validate(&p, g, 1, &err), -EINVAL);
	assert_contains(err, "checks.gamma.mode");
	free(err);
	pf_profile_release(&p);

	/* the cross-field rule: lo from the profile, hi from --set, checked together */
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, "{\"checks\": {\"gamma\": {\"lo\": 5}}}",
					  "g.json", &err), 0);
	assert_int_equal(pf_profile_validate(&p, g, 1, &err), 0);
	pf_profile_add_set(&p, "gamma.hi=3");
	assert_int_equal(pf_profile_validate(&p, g, 1, &err), -EINVAL);
	assert_contains(err, "profile 'g.json': gamma.lo 5 is above gamma.hi 3");
	free(err);
	pf_profile_release(&p);
}

/*
 * Every registered check: each enum key refuses a word outside its table,
 * and each cross-field rule refuses a bad combination, when the profile is
 * built (main.c: exit 64), naming "check.key".  A check with a validate()
 * hook must have a case here.
 */
static void test_registered_settings_rejected(void **state)
{
	static const struct {
		const char *check, *sets[3], *names;
	} combos[] = {
		{ "gdr_loopback", { "gdr_loopback.host_min_fraction=0.9",
				    "gdr_loopback.host_warn_fraction=0.8" },
		  "gdr_loopback.host_warn_fraction" },
		{ "gdr_loopback", { "gdr_loopback.pairs=mlx5_0/0" }, "gdr_loopback.pairs" },
		{ "gdr_loopback", { "gdr_loopback.pairs=0000:1x:00.0=mlx5_0" },
		  "gdr_loopback.pairs" },
		{ "pfc_pause", { "pfc_pause.warn_pause_pct=9", "pfc_pause.fail_pause_pct=5" },
		  "pfc_pause.warn_pause_pct" },
		{ "nccl_allreduce", { "nccl_allreduce.min_bytes=65536",
				      "nccl_allreduce.max_bytes=4096" },
		  "nccl_allreduce.min_bytes" },
		{ "fabric_loopback", { "fabric_loopback.tx_depth=16", "fabric_loopback.cq_mod=32" },
		  "fabric_loopback.cq_mod" },
		{ "fabric_loopback", { "fabric_loopback.pairs=mlx5_0:mlx5_0" },
		  "fabric_loopback.pairs" },
		{ "gpu_inventory", { "gpu_inventory.min_cuda=12" }, "gpu_inventory.min_cuda" },
		{ "gpu_inventory", { "gpu_inventory.min_cuda=12.4.1" }, "gpu_inventory.min_cuda" },
	};
	size_t n = 0, n_enums = 0;
	const struct pf_check *const *all = pf_registry(&n);

	for (size_t i = 0; i < n; i++) {
		bool covered = !all[i]->validate;

		for (const struct pf_param *prm = all[i]->params; prm && prm->key; prm++) {
			char set[160], name[160];

			if (prm->type != PF_PARAM_ENUM && !pf_param_syntax_name(prm))
				continue;
			snprintf(set, sizeof(set), "%s.%s=bogus", all[i]->name, prm->key);
			snprintf(name, sizeof(name), "%s.%s", all[i]->name, prm->key);
			pf_test_config_rejected(all[i]->name, (const char *const[]){ set, NULL },
						name);
			n_enums++;
		}
		for (size_t k = 0; k < PF_ARRAY_SIZE(combos); k++) {
			if (strcmp(combos[k].check, all[i]->name))
				continue;
			pf_test_config_rejected(all[i]->name, combos[k].sets, combos[k].names);
			covered = true;
		}
		if (!covered)
			fail_msg("%s has a validate() hook but no bad combination here",
				 all[i]->name);
	}
	/*
	 * port_errors.mode, nvidia_peermem.require, gpu_nic_numa.worst_class,
	 * gdr_loopback.gpu_reg; sysctl.rp_filter, gpu_inventory.min_driver,
	 * xid_fail, xid_ignore, gpu_nic_numa.ignore_gpus
	 */
	assert_true(n_enums >= 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_profile_overrides),
		cmocka_unit_test(test_set_overrides_profile),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_param_helpers),
		cmocka_unit_test(test_registered_checks),
		cmocka_unit_test(test_enum_and_validate),
		cmocka_unit_test(test_drain_on),
		cmocka_unit_test(test_string_syntax),
		cmocka_unit_test(test_registered_settings_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
