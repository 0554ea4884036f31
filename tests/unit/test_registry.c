// SPDX-License-Identifier: MIT
/*
 * test_registry.c - descriptor validation, and that the check sources,
 * checks/checks.def and the doc pages in docs/checks name the same checks.
 */
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "registry.h"
#include "testutil.h"

struct tcfg {
	uint64_t n;
	bool b;
	char *s;
};

static int trun(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	pf_add(res, PF_STATUS_PASS, NULL, "ok");
	return 0;
}

static const struct pf_param good_params[] = {
	PF_PARAM_U64(struct tcfg, n, "5", 1, 10, "widgets", "how many"),
	PF_PARAM_BOOL(struct tcfg, b, "false", "a switch"),
	PF_PARAM_STRING(struct tcfg, s, "x,y", "a list"),
	PF_PARAM_END,
};

#define GOOD_CHECK(nm)                                                     \
	{ .name = nm, .summary = "a test check", .tags = "test", .reads = "nothing", \
	  .params = good_params, .cfg_size = sizeof(struct tcfg), .timeout_s = 1,    \
	  .run = trun }

/* Validate @c; on failure the message must contain @want. */
static void expect_invalid(const struct pf_check *c, const char *want)
{
	char *err = NULL;

	assert_int_equal(pf_check_validate(c, &err), -EINVAL);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("error '%s' does not mention '%s'", err, want);
	free(err);
}

static void test_registered_checks_validate(void **state)
{
	size_t n = 0;
	const struct pf_check *const *all = pf_registry(&n);
	char *err = NULL;

	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		if (pf_check_validate(all[i], &err) < 0)
			fail_msg("check %zu: %s", i, err);
		assert_ptr_equal(pf_registry_find(all[i]->name), all[i]);
	}
	if (pf_registry_validate(all, n, &err) < 0)
		fail_msg("%s", err);
	assert_null(pf_registry_find("no_such_check"));
	assert_non_null(pf_registry_find("memlock"));
	assert_non_null(pf_registry_find("sysctl"));
}

static void test_good_descriptor(void **state)
{
	const struct pf_check c = GOOD_CHECK("good_1");
	const struct pf_check noparams = { .name = "bare", .summary = "s", .reads = "r",
					   .timeout_s = 1, .run = trun };
	char *err = NULL;

	assert_int_equal(pf_check_validate(&c, &err), 0);
	assert_int_equal(pf_check_validate(&noparams, &err), 0);
	assert_null(err);
}

static void test_bad_names(void **state)
{
	struct pf_check c = GOOD_CHECK("Bad");

	expect_invalid(&c, "'Bad' is not [a-z0-9_]+");
	c.name = "with-dash";
	expect_invalid(&c, "with-dash");
	c.name = "space name";
	expect_invalid(&c, "space name");
	c.name = "";
	expect_invalid(&c, "not [a-z0-9_]+");
	c.name = NULL;
	expect_invalid(&c, "(null)");
}

static void test_missing_fields(void **state)
{
	struct pf_check c = GOOD_CHECK("t");

	c.summary = NULL;
	expect_invalid(&c, "'t' has no summary");
	c.summary = "";
	expect_invalid(&c, "'t' has no summary");
	c = (struct pf_check)GOOD_CHECK("t");
	c.reads = NULL;
	expect_invalid(&c, "does not say what it reads");
	c = (struct pf_check)GOOD_CHECK("t");
	c.run = NULL;
	expect_invalid(&c, "'t' has no run()");
	c = (struct pf_check)GOOD_CHECK("t");
	c.timeout_s = 0;
	expect_invalid(&c, "'t' has no deadline");
}

static void test_bad_params(void **state)
{
	struct pf_check c = GOOD_CHECK("t");
	const struct pf_param outside[] = {
		{ .key = "far", .type = PF_PARAM_U64, .offset = sizeof(struct tcfg), .def = "1",
		  .min = 0, .max = 10, .help = "h" },
		PF_PARAM_END,
	};
	const struct pf_param straddle[] = {
		{ .key = "half", .type = PF_PARAM_U64, .offset = sizeof(struct tcfg) - 4,
		  .def = "1", .min = 0, .max = 10, .help = "h" },
		PF_PARAM_END,
	};
	const struct pf_param dup[] = {
		PF_PARAM_U64(struct tcfg, n, "5", 1, 10, NULL, "first"),
		PF_PARAM_BOOL(struct tcfg, b, "true", "b"),
		{ .key = "n", .type = PF_PARAM_BOOL, .offset = offsetof(struct tcfg, b),
		  .def = "true", .help = "again" },
		PF_PARAM_END,
	};
	const struct pf_param high[] = {
		PF_PARAM_U64(struct tcfg, n, "11", 1, 10, NULL, "h"),
		PF_PARAM_END,
	};
	const struct pf_param low[] = {
		PF_PARAM_U64(struct tcfg, n, "0", 1, 10, NULL, "h"),
		PF_PARAM_END,
	};
	const struct pf_param badtype[] = {
		PF_PARAM_BOOL(struct tcfg, b, "maybe", "h"),
		PF_PARAM_END,
	};
	const struct pf_param nodef[] = {
		{ .key = "n", .type = PF_PARAM_U64, .offset = offsetof(struct tcfg, n),
		  .min = 0, .max = 10, .help = "h" },
		PF_PARAM_END,
	};
	const struct pf_param nohelp[] = {
		PF_PARAM_U64(struct tcfg, n, "5", 1, 10, NULL, ""),
		PF_PARAM_END,
	};

	c.params = outside;
	expect_invalid(&c, "t.far lies outside cfg_size");
	c.params = straddle;
	expect_invalid(&c, "t.half lies outside cfg_size");
	c.params = good_params;
	c.cfg_size = offsetof(struct tcfg, s); /* the string field no longer fits */
	expect_invalid(&c, "t.s lies outside cfg_size");
	c.cfg_size = sizeof(struct tcfg);
	c.params = dup;
	expect_invalid(&c, "t.n is declared twice");
	c.params = high;
	expect_invalid(&c, "t.n default: value '11' for 'n' is out of range [1, 10]");
	c.params = low;
	expect_invalid(&c, "t.n default: value '0'");
	c.params = badtype;
	expect_invalid(&c, "t.b default: value 'maybe' for 'b' is not a bool");
	c.params = nodef;
	expect_invalid(&c, "t.n has no default");
	c.params = nohelp;
	expect_invalid(&c, "t.n has no help");
}

static void test_duplicate_names(void **state)
{
	const struct pf_check a = GOOD_CHECK("same"), b = GOOD_CHECK("other"),
			      c = GOOD_CHECK("same"), bad = GOOD_CHECK("BAD");
	const struct pf_check *const ok[] = { &a, &b };
	const struct pf_check *const twice[] = { &a, &b, &c };
	const struct pf_check *const invalid[] = { &a, &bad };
	char *err = NULL;

	assert_int_equal(pf_registry_validate(ok, 2, &err), 0);
	assert_int_equal(pf_registry_validate(twice, 3, &err), -EINVAL);
	assert_non_null(strstr(err, "check 'same' is registered twice"));
	free(err);
	err = NULL;
	assert_int_equal(pf_registry_validate(invalid, 2, &err), -EINVAL);
	assert_non_null(strstr(err, "'BAD'"));
	free(err);
}

/* Names of checks/checks.def's PF_CHECK(name) lines. */
static size_t read_def(char names[][64], size_t max)
{
	char path[PATH_MAX], line[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/checks/checks.def", PF_SOURCE_DIR);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64];

		if (sscanf(line, "PF_CHECK(%63[a-z0-9_])", name) == 1) {
			assert_true(n < max);
			snprintf(names[n++], 64, "%s", name);
		}
	}
	fclose(f);
	return n;
}

static bool in_list(char names[][64], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void test_def_matches_sources(void **state)
{
	char def[128][64], path[PATH_MAX];
	size_t n_def = read_def(def, 128), n_reg = 0, n_files = 0;
	const struct pf_check *const *all = pf_registry(&n_reg);
	struct dirent *de;
	DIR *d;

	/* the table compiled in is the table in the file, in order */
	assert_int_equal(n_def, n_reg);
	for (size_t i = 0; i < n_def; i++)
		assert_string_equal(def[i], all[i]->name);

	/* every checks/<name>.c is listed, and every listed check has its file */
	snprintf(path, sizeof(path), "%s/checks", PF_SOURCE_DIR);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char name[64];

		if (len < 3 || strcmp(de->d_name + len - 2, ".c"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 2), de->d_name);
		if (!in_list(def, n_def, name))
			fail_msg("checks/%s is not listed in checks/checks.def", de->d_name);
		n_files++;
	}
	closedir(d);
	for (size_t i = 0; i < n_def; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/checks/%s.c", PF_SOURCE_DIR, def[i]);
		if (stat(path, &st) < 0)
			fail_msg("checks.def lists '%s' but checks/%s.c does not exist", def[i],
				 def[i]);
	}
	assert_int_equal(n_files, n_def);
}

static void test_every_check_has_docs(void **state)
{
	size_t n = 0;
	const struct pf_check *const *all = pf_registry(&n);
	char missing[1024] = "";

	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/docs/checks/%s.md", PF_SOURCE_DIR, all[i]->name);
		if (stat(path, &st) < 0 || st.st_size == 0)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " docs/checks/%s.md", all[i]->name);
	}
	if (*missing)
		fail_msg("checks without a doc page:%s", missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_checks_validate),
		cmocka_unit_test(test_good_descriptor),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_duplicate_names),
		cmocka_unit_test(test_def_matches_sources),
		cmocka_unit_test(test_every_check_has_docs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
