// SPDX-License-Identifier: MIT
/*
 * test_cmdopt.c - the typed option tables of cmdopt.c: each type stores its
 * value, a number outside its bounds and an empty file name are said in the
 * table's words, a missing value and an unknown option are errors, --help
 * prints the usage with the listing built from the help texts, and
 * pf_cmdopt_has() finds an option before "--" only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmdopt.h"
#include "testutil.h"

struct vals {
	const char *name, *output;
	unsigned long count, seed;
	bool quiet, count_given;
	int mode;
};

/* A file's whole text (the memstream's buffer), for comparing output. */
struct cap {
	char *buf;
	size_t len;
	FILE *f;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static const char *cap_text(struct cap *c)
{
	fflush(c->f);
	return c->buf;
}

static void cap_close(struct cap *c)
{
	fclose(c->f);
	free(c->buf);
}

static int parse_mode(struct pf_cmdopt *c, const struct pf_option *o, const char *arg)
{
	if (strcmp(arg, "fast") && strcmp(arg, "slow")) {
		pf_cmdopt_error(c, "--%s: unknown mode '%s' (fast or slow)", o->long_name, arg);
		return -EINVAL;
	}
	*(int *)o->value = !strcmp(arg, "fast") ? 1 : 2;
	return 0;
}

static void usage(FILE *f, const struct pf_option *opts)
{
	fputs("usage: preflight demo [options] ARG\n\n", f);
	pf_cmdopt_print_options(opts, 18, f);
}

/* A writable copy of the NULL-terminated @words (getopt may permute argv). */
static char **args(const char *const *words)
{
	size_t n = 0;
	char **argv;

	while (words[n])
		n++;
	argv = pf_xcalloc(n + 1, sizeof(*argv));
	for (size_t i = 0; i < n; i++)
		argv[i] = pf_xstrdup(words[i]);
	return argv;
}

static void args_free(char **argv)
{
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Parse @argv (NULL-terminated, argv[0] "demo") into @v; the result, and stdout/stderr. */
static int run(struct vals *v, struct cap *out, struct cap *err, char **argv)
{
	struct pf_option opts[] = {
		PF_OPT_STRING(0, "name", &v->name, "NAME", "who it is"),
		PF_OPT_FILE('o', "output", &v->output, "write to FILE\nlater line"),
		{ .type = PF_OPT_T_UINT, .long_name = "count", .value = &v->count, .argh = "N",
		  .help = "how many", .min = 1, .max = 10, .unit = "things",
		  .given = &v->count_given },
		PF_OPT_UINT(0, "seed", &v->seed, "N", NULL, 0, 99, NULL),
		PF_OPT_BOOL('q', "quiet", &v->quiet, "say less"),
		PF_OPT_CALLBACK(0, "mode", &v->mode, "MODE", "fast or slow", parse_mode),
		PF_OPT_HELP("this text"),
		PF_OPT_END,
	};
	struct pf_cmdopt c = { .cmd = "demo", .usage = usage };
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(v, 0, sizeof(*v));
	cap_open(out);
	cap_open(err);
	c.out = out->f;
	c.err = err->f;
	return pf_cmdopt_parse(&c, opts, argc, argv);
}

static void test_values(void **state)
{
	const char *const words[] = { "demo", "--name", "x", "-o", "f.json", "--count=3", "--seed",
				      "0", "-q", "--mode", "slow", "operand", NULL };
	char **argv = args(words);
	struct cap out, err;
	struct vals v;

	assert_int_equal(run(&v, &out, &err, argv), PF_CMDOPT_END);
	assert_string_equal(v.name, "x");
	assert_string_equal(v.output, "f.json");
	assert_int_equal(v.count, 3);
	assert_true(v.count_given);
	assert_int_equal(v.seed, 0);
	assert_true(v.quiet);
	assert_int_equal(v.mode, 2);
	assert_string_equal(argv[optind], "operand");
	assert_string_equal(cap_text(&err), "");
	cap_close(&out);
	cap_close(&err);
	args_free(argv);
}

static void test_not_given(void **state)
{
	const char *const words[] = { "demo", NULL };
	char **argv = args(words);
	struct cap out, err;
	struct vals v;

	assert_int_equal(run(&v, &out, &err, argv), PF_CMDOPT_END);
	assert_false(v.count_given);
	assert_false(v.quiet);
	assert_null(v.name);
	assert_int_equal(optind, 1);
	cap_close(&out);
	cap_close(&err);
	args_free(argv);
}

/* Each bad command line and the one line it is answered with. */
static void test_errors(void **state)
{
	static const struct {
		const char *arg, *val, *msg;
	} cases[] = {
		{ "--count", "0", "preflight demo: --count: '0' is not a number of things (1..10)\n" },
		{ "--count", "11", "preflight demo: --count: '11' is not a number of things (1..10)\n" },
		{ "--count", "-1", "preflight demo: --count: '-1' is not a number of things (1..10)\n" },
		{ "--count", "0x5", "preflight demo: --count: '0x5' is not a number of things (1..10)\n" },
		{ "--count", "5 ", "preflight demo: --count: '5 ' is not a number of things (1..10)\n" },
		{ "--count", "", "preflight demo: --count: '' is not a number of things (1..10)\n" },
		{ "--seed", "100", "preflight demo: bad --seed '100'\n" },
		{ "--seed", "+5", "preflight demo: bad --seed '+5'\n" },
		{ "--seed", "99999999999999999999999", "preflight demo: bad --seed "
						       "'99999999999999999999999'\n" },
		{ "--output", "", "preflight demo: --output: empty file name\n" },
		{ "-o", "", "preflight demo: --output: empty file name\n" },
		{ "--mode", "medium", "preflight demo: --mode: unknown mode 'medium' (fast or slow)\n" },
		{ "--bogus", NULL, "preflight demo: unknown option '--bogus' (see preflight demo "
				   "--help)\n" },
		{ "-x", NULL, "preflight demo: unknown option '-x' (see preflight demo --help)\n" },
		{ "--name", NULL, "preflight demo: option '--name' needs a value\n" },
	};

	for (size_t i = 0; i < PF_ARRAY_SIZE(cases); i++) {
		const char *const words[] = { "demo", cases[i].arg, cases[i].val, NULL };
		char **argv = args(words);
		struct cap out, err;
		struct vals v;

		assert_int_equal(run(&v, &out, &err, argv), PF_CMDOPT_ERROR);
		assert_string_equal(cap_text(&err), cases[i].msg);
		assert_string_equal(cap_text(&out), "");
		cap_close(&out);
		cap_close(&err);
		args_free(argv);
	}
}

static void test_help_listing(void **state)
{
	const char *const words[] = { "demo", "--help", NULL };
	char **argv = args(words);
	struct cap out, err;
	struct vals v;

	assert_int_equal(run(&v, &out, &err, argv), PF_CMDOPT_HELP);
	assert_string_equal(cap_text(&out),
			    "usage: preflight demo [options] ARG\n"
			    "\n"
			    "  --name NAME     who it is\n"
			    "  --output FILE   write to FILE\n"
			    "                  later line\n"
			    "  --count N       how many\n"
			    "  --quiet, -q     say less\n"
			    "  --mode MODE     fast or slow\n"
			    "  --help          this text\n");
	assert_string_equal(cap_text(&err), "");
	cap_close(&out);
	cap_close(&err);
	args_free(argv);
}

/* A table without PF_OPT_HELP still answers --help; a row wider than the column keeps a space. */
static void test_help_unlisted(void **state)
{
	bool b = false;
	const struct pf_option opts[] = {
		PF_OPT_BOOL(0, "a-very-long-option-name", &b, "text"),
		PF_OPT_END,
	};
	const char *const words[] = { "demo", "--help", NULL };
	char **argv = args(words);
	struct pf_cmdopt c = { .cmd = "demo", .usage = usage };
	struct cap out, err;

	cap_open(&out);
	cap_open(&err);
	c.out = out.f;
	c.err = err.f;
	assert_int_equal(pf_cmdopt_parse(&c, opts, 2, argv), PF_CMDOPT_HELP);
	assert_string_equal(cap_text(&out), "usage: preflight demo [options] ARG\n\n"
					    "  --a-very-long-option-name text\n");
	cap_close(&out);
	cap_close(&err);
	args_free(argv);
}

static void test_uint(void **state)
{
	unsigned long v = 7;

	assert_true(pf_cmdopt_uint("42", 0, 100, &v));
	assert_int_equal(v, 42);
	assert_true(pf_cmdopt_uint(" 8", 0, 100, &v)); /* leading blanks, as the environment has */
	assert_int_equal(v, 8);
	assert_false(pf_cmdopt_uint(NULL, 0, 100, &v));
	assert_false(pf_cmdopt_uint(" -8", 0, ~0UL, &v));
	assert_false(pf_cmdopt_uint("8x", 0, 100, &v));
	assert_false(pf_cmdopt_uint("101", 0, 100, &v));
	assert_int_equal(v, 8); /* untouched on failure */
}

static void test_has(void **state)
{
	const char *const words[] = { "preflight", "fleet", "--output=x", "--help", "--",
				      "--compact", NULL };
	char **argv = args(words);

	assert_true(pf_cmdopt_has(6, argv, "--output"));
	assert_true(pf_cmdopt_has(6, argv, "--help"));
	assert_false(pf_cmdopt_has(6, argv, "--compact")); /* after "--" */
	assert_false(pf_cmdopt_has(6, argv, "--out"));     /* not a prefix match */
	assert_false(pf_cmdopt_has(6, argv, "--outputs"));
	args_free(argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_not_given),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_listing),
		cmocka_unit_test(test_help_unlisted),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
