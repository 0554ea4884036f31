// SPDX-License-Identifier: MIT
/*
 * test_profdirs.c - when the baked build directory's source profiles are
 * searched (profdirs.c pf_profile_build_dir, issue 30): only for a binary
 * run from that directory, and only when nobody but root or the caller made
 * the path; a build path missing on the node, or one another user created
 * (a directory, or a link to where the binary lies), is not searched.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profdirs.h"
#include "testutil.h"

static void mkdir_p(const char *base, const char *rel, uid_t owner, mode_t mode)
{
	pf_autofree char *p = pf_xasprintf("%s/%s", base, rel);

	assert_int_equal(mkdir(p, mode), 0);
	assert_int_equal(chmod(p, mode), 0);
	if (owner != geteuid())
		assert_int_equal(lchown(p, owner, owner), 0);
}

static void build_dir(void **state)
{
	pf_autofree char *t = pf_test_mkdtemp();
	pf_autofree char *own = NULL, *own_src = NULL, *bad = NULL, *bad_src = NULL,
			 *link = NULL, *loose = NULL;

	(void)state;
	/* the caller's own tree: searched */
	mkdir_p(t, "own", geteuid(), 0755);
	mkdir_p(t, "own/build", geteuid(), 0755);
	mkdir_p(t, "own/src", geteuid(), 0755);
	mkdir_p(t, "own/src/profiles", geteuid(), 0755);
	own = pf_xasprintf("%s/own/build", t);
	own_src = pf_xasprintf("%s/own/src", t);
	assert_true(pf_profile_build_dir(own, own, own_src));
	/* another directory than the executable's: never */
	assert_false(pf_profile_build_dir(t, own, own_src));
	/* the baked path missing on this node */
	bad = pf_xasprintf("%s/missing/build", t);
	bad_src = pf_xasprintf("%s/missing/src", t);
	assert_false(pf_profile_build_dir(own, bad, bad_src));
	if (geteuid() == 0) {
		/* another user made the baked path: a link to the executable's directory */
		mkdir_p(t, "theirs", 1000, 0755);
		mkdir_p(t, "theirs/src", 1000, 0755);
		mkdir_p(t, "theirs/src/profiles", 1000, 0755);
		link = pf_xasprintf("%s/theirs/build", t);
		assert_int_equal(symlink(own, link), 0);
		assert_int_equal(lchown(link, 1000, 1000), 0);
		free(bad_src);
		bad_src = pf_xasprintf("%s/theirs/src", t);
		assert_false(pf_profile_build_dir(own, link, bad_src));
		/* the source tree theirs, the build dir ours */
		assert_false(pf_profile_build_dir(own, own, bad_src));
		/* ours, but a directory on the way others may write (not sticky) */
		mkdir_p(t, "loose", 0, 0777);
		mkdir_p(t, "loose/build", 0, 0755);
		loose = pf_xasprintf("%s/loose/build", t);
		assert_false(pf_profile_build_dir(loose, loose, own_src));
		/* sticky, as /tmp: others cannot replace what root made below it */
		*strrchr(loose, '/') = '\0';
		assert_int_equal(chmod(loose, 01777), 0);
		free(loose);
		loose = pf_xasprintf("%s/loose/build", t);
		assert_true(pf_profile_build_dir(loose, loose, own_src));
	}
	pf_test_rmtree(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
