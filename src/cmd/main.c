// SPDX-License-Identifier: MIT
/*
 * main.c - dispatch: the command table (git's lesson), or the default run.
 *
 * `preflight [options]` is the check run (src/cmd/run.c); `preflight NAME
 * ...` runs the subcommand NAME with the rest of argv.  Before any of them,
 * the three standard descriptors are made safe and the check registry is
 * validated; after, stdout is closed and a failed close is an exit 74.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "diff.h"
#include "exit.h"
#include "registry.h"
#include "run.h"
#include "snapshot.h"

/*
 * The subcommands, dispatched on argv[1] before option parsing.  @run gets
 * argv from the command's name on and the two streams; @run_own, a command
 * that writes through stdout itself (the check run of `profile capture`).
 */
struct pf_command {
	const char *name;
	int (*run)(int argc, char **argv, FILE *out, FILE *err);
	int (*run_own)(int argc, char **argv, bool stdout_closed);
	const char *writes; /* what goes to stdout unless --output: "fleet view"; NULL: nothing */
};

static const struct pf_command commands[] = {
	{ "fleet", pf_fleet_main, NULL, "fleet view" },
	{ "diff", pf_diff_main, NULL, "diff" },
	{ "mesh", pf_mesh_main, NULL, "report" },
	{ "snapshot", pf_snapshot_main, NULL, NULL },
	{ "profile", NULL, pf_profile_main, NULL },
};

static const struct pf_command *find_command(const char *name)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static bool has_option(int argc, char **argv, const char *name)
{
	size_t l = strlen(name);

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], name, l) && (!argv[i][l] || argv[i][l] == '='))
			return true;
	return false;
}

static int run_command(const struct pf_command *cmd, int argc, char **argv, bool stdout_closed)
{
	int rc = cmd->run(argc - 1, argv + 1, stdout, stderr);

	if (stdout_closed && rc <= 1 && cmd->writes && !has_option(argc, argv, "--output") &&
	    !has_option(argc, argv, "--help")) {
		fprintf(stderr, "preflight: cannot write the %s: stdout is closed\n", cmd->writes);
		rc = PF_EXIT_IOERR;
	}
	return rc;
}

int main(int argc, char **argv)
{
	size_t n;
	const struct pf_check *const *all = pf_registry(&n);
	const struct pf_command *cmd;
	pf_autofree char *err = NULL;
	bool stdout_closed;
	int rc;

	/*
	 * A closed 0, 1 or 2 would be handed to the next open() (the root
	 * directory, a check's pipe) and then written to or dup2()ed over:
	 * hold each with /dev/null, and remember that stdout was closed.
	 */
	stdout_closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return PF_EXIT_IOERR;
	if (pf_registry_validate(all, n, &err) < 0) {
		fprintf(stderr, "preflight: BUG: %s\n", err);
		return PF_EXIT_SOFTWARE;
	}
	cmd = argc > 1 ? find_command(argv[1]) : NULL;
	if (cmd && cmd->run)
		rc = run_command(cmd, argc, argv, stdout_closed);
	else if (cmd)
		rc = cmd->run_own(argc - 1, argv + 1, stdout_closed);
	else
		rc = pf_run_main(argc, argv, stdout_closed);
	if (fclose(stdout) == EOF && rc == 0) {
		if (!cmd || cmd->run_own)
			fprintf(stderr, "preflight: cannot write to stdout: %s\n", strerror(errno));
		rc = PF_EXIT_IOERR;
	}
	return rc;
}
