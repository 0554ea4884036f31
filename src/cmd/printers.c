// SPDX-License-Identifier: MIT
/*
 * printers.c - what the default command prints instead of running: --help,
 * --list, --describe CHECK, --list-codes and --check-config (the effective
 * options).
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include "mesh.h"
#include "preflight/node.h"
#include "output.h"
#include "registry.h"
#include "run.h"
#include "version.h"

/*
 * An integer bound as an integer (never 1.84467440737096e+19): a double at
 * or past the type's end is that end (2^64 does not fit a uint64_t).
 */
static void print_int_bound(double v, bool is_signed)
{
	if (is_signed && v >= 0x1p63)
		printf("%" PRId64, INT64_MAX);
	else if (is_signed && v <= -0x1p63)
		printf("%" PRId64, INT64_MIN);
	else if (is_signed)
		printf("%" PRId64, (int64_t)v);
	else if (v >= 0x1p64)
		printf("%" PRIu64, UINT64_MAX);
	else
		printf("%" PRIu64, v <= 0 ? 0 : (uint64_t)v);
}

static void print_int_range(const struct pf_param *p)
{
	fputs(", range ", stdout);
	print_int_bound(p->min, p->type == PF_PARAM_I64);
	fputs("..", stdout);
	print_int_bound(p->max, p->type == PF_PARAM_I64);
}

void pf_list_checks(void)
{
	size_t n;
	const struct pf_check *const *checks = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		printf("%-16s %-62s [%s]\n", checks[i]->name, checks[i]->summary, checks[i]->tags);
}

/* The codes of a check's fail and warn findings, one a line, for --describe. */
static void describe_codes(const struct pf_check *c)
{
	if (!c->codes || !c->codes->num) {
		printf("\nno finding codes\n");
		return;
	}
	printf("\nfinding codes (docs/codes.md):\n");
	for (const struct pf_code *k = c->codes; k->num; k++) {
		pf_autofree char *code = pf_code_name(c->name, k->num);

		printf("  %-22s %-17s %s\n", code, pf_action_name(k->action), k->meaning);
	}
}

/* One check's section of docs/codes.md: its heading and its table. */
static void list_codes_of(const char *name, const struct pf_code *codes)
{
	if (!codes || !codes->num)
		return;
	printf("\n## %s\n\n| code | action | meaning |\n| --- | --- | --- |\n", name);
	for (const struct pf_code *k = codes; k->num; k++) {
		pf_autofree char *code = pf_code_name(name, k->num);

		printf("| %s | %s | %s |\n", code, pf_action_name(k->action), k->meaning);
	}
}

void pf_list_codes(void)
{
	size_t n;
	const struct pf_check *const *checks = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		list_codes_of(checks[i]->name, checks[i]->codes);
	list_codes_of("mesh", pf_mesh_codes); /* `preflight mesh`'s one check */
}

int pf_describe_check(const char *name)
{
	const struct pf_check *c = pf_registry_find(name);

	unsigned int deadline;

	if (!c)
		return pf_usage_error("--describe: unknown check '%s' (see --list)", name);
	deadline = c->timeout_s;
	if (c->deadline_s) { /* derived from the settings: show it for the defaults */
		struct pf_profile prof;
		void *cfg = NULL;
		char *err = NULL;

		pf_profile_init(&prof);
		if (pf_config_build(c, &prof, &cfg, &err) == 0) {
			deadline = c->deadline_s(cfg);
			pf_config_free(c, cfg);
		}
		free(err);
		pf_profile_release(&prof);
	}
	printf("%s - %s\n\ntags:     %s\ndeadline: %u s%s\nreads:    %s\n", c->name, c->summary,
	       c->tags, deadline, c->deadline_s ? " with the defaults (follows the settings)" : "",
	       c->reads);
	describe_codes(c);
	if (!c->params || !c->params->key) {
		printf("\nno parameters\n");
		return 0;
	}
	printf("\nparameters (--set %s.KEY=VALUE, or \"checks\": {\"%s\": {...}} in a profile):\n",
	       c->name, c->name);
	for (const struct pf_param *p = c->params; p->key; p++) {
		printf("  %-24s %s, default %s%s%s", p->key, pf_param_type_name(p->type),
		       *p->def ? p->def : "\"\"", p->unit ? " " : "", p->unit ? p->unit : "");
		if (p->type == PF_PARAM_U64 || p->type == PF_PARAM_I64)
			print_int_range(p);
		if (p->type == PF_PARAM_DOUBLE)
			printf(", range %.15g..%.15g", p->min, p->max);
		if (p->type == PF_PARAM_ENUM) {
			pf_autofree char *words = pf_param_choices(p, " | ");

			printf(", one of: %s", words);
		}
		if (pf_param_syntax_name(p))
			printf(", %s", pf_param_syntax_name(p));
		if (p->type == PF_PARAM_STRING && p->syntax == PF_SYNTAX_U64_LIST)
			printf(" %.15g..%.15g", p->min, p->max);
		printf("\n      %s\n", p->help);
	}
	return 0;
}

/*
 * Where the value of @c's @key came from: the last --set wins over the
 * profile; the site config's "set" entries come before the command line's.
 */
static const char *setting_origin(const struct pf_opts *o, const struct pf_check *c,
				  const char *key)
{
	const struct pf_profile *p = &o->prof;
	pf_autofree char *prefix = pf_xasprintf("%s.%s=", c->name, key);
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(p->checks, c->name);

	for (size_t i = p->n_sets; i-- > 0;)
		if (!strncmp(p->sets[i], prefix, strlen(prefix)))
			return i < o->n_site_sets ? "site config" : "--set";
	return cJSON_GetObjectItemCaseSensitive(sec, key) ? "profile" : "default";
}

/* The selected checks' settings that differ from the built-in defaults. */
static void print_settings(const struct pf_opts *o, FILE *out)
{
	size_t n_all, shown = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	struct pf_profile none;

	pf_profile_init(&none);
	fputs("settings that differ from the defaults:\n", out);
	for (size_t i = 0; i < n_all; i++) {
		void *def = NULL, *cfg = NULL;
		char *err = NULL;
		pf_autojson cJSON *jd = NULL, *jc = NULL;
		cJSON *it;
		int r;

		if (!pf_run_selected(o, all[i]))
			continue;
		r = pf_config_build(all[i], &none, &def, &err);
		PF_BUG_ON(r < 0);
		r = pf_config_build(all[i], &o->prof, &cfg, &err); /* validated */
		PF_BUG_ON(r < 0);
		jd = pf_config_to_json(all[i], def);
		jc = pf_config_to_json(all[i], cfg);
		cJSON_ArrayForEach(it, jc) {
			pf_autofree char *v = NULL;

			if (cJSON_Compare(it, cJSON_GetObjectItemCaseSensitive(jd, it->string), true))
				continue;
			v = cJSON_PrintUnformatted(it);
			fprintf(out, "  %s.%s = %s (%s)\n", all[i]->name, it->string, v,
				setting_origin(o, all[i], it->string));
			shown++;
		}
		pf_config_free(all[i], def);
		pf_config_free(all[i], cfg);
	}
	/* the port roles the site declares (docs/rails.md) */
	for (size_t i = 0; i < PF_ARRAY_SIZE(pf_profile_rail_roles); i++) {
		const char *v = pf_profile_rails(&o->prof, pf_profile_rail_roles[i]);

		if (v) {
			fprintf(out, "  rails.%s = \"%s\"\n", pf_profile_rail_roles[i], v);
			shown++;
		}
	}
	if (!shown)
		fputs("  (none)\n", out);
	pf_profile_release(&none);
}

/* "owner uid 0 (root), mode 0644" of @path (what the rules for root judge), or why not. */
static void print_owner(const char *path, FILE *out)
{
	pf_autofree char *who = NULL;
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(out, "%s: %s", path, strerror(errno));
		return;
	}
	who = pf_output_owner(st.st_uid);
	fprintf(out, "%s: owner %s, mode %04o", path, who, (unsigned int)(st.st_mode & 07777));
}

/* --check-config: the site configuration files and the options each set. */
static void print_site(const struct pf_opts *o, FILE *out)
{
	const struct pf_siteconf *sc = o->site;

	fputs("site config: ", out);
	if (!sc)
		fputs("not read (--no-config)\n", out);
	else if (!sc->n_files)
		fprintf(out, "none (no %s)\n", o->site_path);
	for (size_t i = 0; sc && i < sc->n_files; i++)
		fprintf(out, "%s%s", i ? ", " : "", sc->files[i]);
	if (sc && sc->n_files)
		fputc('\n', out);
	for (size_t i = 0; sc && i < sc->n_files; i++) {
		fputs(i ? "; " : "site owner: ", out);
		print_owner(sc->files[i], out);
		fputs(i + 1 == sc->n_files ? "\n" : "", out);
	}
	for (size_t i = 0; sc && i < sc->n_entries; i++) {
		const struct pf_siteconf_entry *e = &sc->entries[i];

		fprintf(out, "  %-12s %-32s (%s)\n", e->key, e->value ? e->value : "true",
			e->origin);
	}
}

/*
 * --check-config: the effective options of a run with these arguments, one
 * per line.  Every option that changes what a run does is shown here.
 */
static void print_config(const struct pf_opts *o, enum pf_format fmt, FILE *out)
{
	size_t n_all, n = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	bool under_slurm = pf_slurm_detected();

	fprintf(out, "preflight %s: the arguments and the profile are valid; nothing was run\n",
		PF_VERSION);
	print_site(o, out);
	if (o->profile) {
		fprintf(out, "profile:   %s (%s)\nprofile owner: ", o->prof.name, o->prof.path);
		print_owner(o->prof.path, out);
		fputc('\n', out);
	}
	if (!o->profile)
		fputs("profile:   generic (the built-in defaults)\n", out);
	fprintf(out, "root:      %s\n", o->root);
	fprintf(out, "topology:  %s\n", o->topology ? o->topology : "from the root");
	fputs("checks:   ", out);
	for (size_t i = 0; i < n_all; i++)
		if (pf_run_selected(o, all[i]))
			fprintf(out, "%s %s", n++ ? "," : "", all[i]->name);
	fprintf(out, " (%zu of %zu)\n", n, n_all);
	fprintf(out, "selection: %s\n", o->only ? "only (--only)" : o->all ? "all (--all)" :
		"default (the checks tagged static; --all runs every check)");
	fprintf(out, "format:    %s\n", o->format ? o->format :
		fmt == PF_FORMAT_TEXT ? "text (standard output is a terminal)" : "json");
	if (o->output) {
		pf_autofree char *dir = pf_xstrdup(o->output);
		struct stat st;

		fprintf(out, "output:    %s", o->output);
		if (o->output_template)
			fprintf(out, " (from %s)", o->output_template);
		if (stat(dirname(dir), &st) < 0 && errno == ENOENT)
			fprintf(out, " (its directory %s is created at run time, mode 0755)", dir);
		fputc('\n', out);
	} else {
		fputs("output:    standard output\n", out);
	}
	if (o->runner.timeout_s)
		fprintf(out, "timeout:   %u s for each check\n", o->runner.timeout_s);
	else
		fputs("timeout:   each check's own deadline (--describe)\n", out);
	fprintf(out, "slurm:     %s; drains on %s%s; --drain %s, --undrain %s\n",
		o->slurm || under_slurm ? "on" : "off (exit codes 0, 1, 2)",
		pf_status_name(pf_slurm_drain_on(&o->slurm_opts)),
		o->slurm_opts.drain_on == PF_STATUS_PASS ? " (the default)" : "",
		o->slurm_opts.drain ? "yes" : "no", o->slurm_opts.undrain ? "yes" : "no");
	if (o->slurm_opts.reboot_on)
		fprintf(out, "reboot:    instead of a drain, when every finding that drains is one "
			"of %s\n", o->slurm_opts.reboot_on);
	print_settings(o, out);
}

int pf_check_config(struct pf_opts *o)
{
	pf_autofs struct pf_fs *fs = NULL;
	pf_autonode struct pf_node *node = NULL;
	pf_autofree char *err = NULL;
	enum pf_format fmt;
	int r = pf_run_load_config(o, &fmt, &fs);

	if (r)
		return r;
	if (o->topology) {
		r = pf_node_load(fs, o->topology, &node, &err);
		if (r < 0)
			return pf_usage_error("--topology: %s", err ? err : strerror(-r));
	}
	print_config(o, fmt, stdout);
	return 0;
}
