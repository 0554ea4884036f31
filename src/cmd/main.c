// SPDX-License-Identifier: MIT
/*
 * main.c - dispatch: the command table (git's lesson), or the default run.
 *
 * `preflight [options]` is the check run (src/cmd/run.c); `preflight NAME
 * ...` runs the subcommand NAME with the rest of argv.  Before any of them,
 * the three standard descriptors are made safe and the check registry is
 * validated; after, stdout is closed and a failed close is an exit 74.
 *
 * `preflight --list-commands` (not in --help: it is for scripts) prints the
 * table's names, one a line; the bash completion (contrib/bash-completion)
 * asks it, so a new row completes without editing the script.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmdopt.h"
#include "commands.h"
#include "exit.h"
#include "registry.h"
#include "run.h"

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

/* --list-commands: the names of the table, one a line; 0, or 74 when stdout fails. */
static int list_commands(FILE *out, bool stdout_closed)
{
	if (stdout_closed) {
		fputs("preflight: cannot write the command list: stdout is closed\n", stderr);
		return PF_EXIT_IOERR;
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(commands); i++)
		fprintf(out, "%s\n", commands[i].name);
	return fflush(out) == EOF || ferror(out) ? PF_EXIT_IOERR : PF_EXIT_OK;
}

static int run_command(const struct pf_command *cmd, int argc, char **argv, bool stdout_closed)
{
	int rc = cmd->run(argc - 1, argv + 1, stdout, stderr);

	if (stdout_closed && rc <= 1 && cmd->writes && !pf_cmdopt_has(argc, argv, "--output") &&
	    !pf_cmdopt_has(argc, argv, "--help")) {
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
	if (argc == 2 && !strcmp(argv[1], "--list-commands"))
		rc = list_commands(stdout, stdout_closed);
	else if (cmd && cmd->run)
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
