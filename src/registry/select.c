// SPDX-License-Identifier: MIT
/*
 * select.c - the selection of checks (select.h): by name or tag, with the
 * traffic tests kept out of a tag that static checks share.
 */
#include <errno.h>
#include <string.h>

#include "preflight/macro.h"
#include "registry.h"
#include "select.h"

/* Whether some check carries @tag; with @static_only, some check that sends no traffic. */
static bool tag_carried(const char *tag, bool static_only)
{
	size_t n;
	const struct pf_check *const *all = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		if ((!static_only || !(all[i]->flags & PF_CHECK_TRAFFIC)) &&
		    pf_list_has(all[i]->tags, tag))
			return true;
	return false;
}

int pf_select_names_known(const char *list, char **ret_unknown)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!pf_registry_find(t) && !tag_carried(t, false)) {
			*ret_unknown = pf_xstrdup(t);
			return -ENOENT;
		}
	return 0;
}

/*
 * Whether @list names @c by its name or one of its tags; with @only, a
 * traffic test (minutes of load on the fabric) only by name or by a tag no
 * static check carries (traffic, gdr, fabric): --only gpu runs the static
 * GPU checks, never nccl_allreduce.
 */
static bool list_matches(const char *list, const struct pf_check *c, bool only)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!strcmp(t, c->name) ||
		    (pf_list_has(c->tags, t) &&
		     (!only || !(c->flags & PF_CHECK_TRAFFIC) || !tag_carried(t, true))))
			return true;
	return false;
}

bool pf_select_check(const struct pf_select *sel, const struct pf_check *c, const char **ret_why)
{
	const char *why = NULL;

	if (sel->only && !list_matches(sel->only, c, true))
		why = list_matches(sel->only, c, false)
			      ? "a traffic test (minutes): a tag that static checks share selects "
				"the static ones; name it in --only"
			      : "not in --only";
	else if (!sel->only && sel->capture && !sel->all && (c->flags & PF_CHECK_TRAFFIC))
		why = "a capture runs the checks that send no traffic";
	else if (!sel->only && !sel->capture && !sel->all &&
		 !pf_list_has(c->tags, PF_SELECT_DEFAULT_TAG))
		why = "not static: the default runs the static checks; --all runs every check";
	else if (sel->skip && list_matches(sel->skip, c, false))
		why = "--skip";
	if (ret_why)
		*ret_why = why;
	return !why;
}
