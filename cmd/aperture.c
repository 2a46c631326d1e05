// SPDX-License-Identifier: GPL-2.0
/* aperture: dispatch to the subcommands, --help, --version. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *argp_program_version = "aperture " APERTURE_VERSION;
const char *argp_program_bug_address = NULL;

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "Sample a command, processes or the system into a record file" },
	{ "report", cmd_report, "Read a record file and print tables or folded stacks" },
	{ "top", cmd_top, "Live view of where the targets spend their time" },
	{ "stat", cmd_stat, "Count events of a command, processes or the system, as perf stat" },
	{ "script", cmd_script, "Print every event of a record file, one line each" },
	{ "diff", cmd_diff, "Compare two record files symbol by symbol" },
	{ "annotate", cmd_annotate, "A function's samples per instruction and source line" },
	{ "push", cmd_push, "Send record files' profiles to Pyroscope or Parca" },
	{ "gpu-env", cmd_gpu_env, "Run a CUDA program ready for GPU device times (CUPTI)" },
	{ "list", cmd_list, "List the events, and whether each works on this machine" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	size_t i;

	/* exact names only: no prefix guessing */
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_help(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: aperture [--help] [--version] COMMAND [ARGS]\n\n"
		   "A sampling and tracing profiler built on BPF.\n\n"
		   "Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s  %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "  %-8s  %s\n", "help", "Show the help of a command");
	fprintf(f, "\nSee 'aperture COMMAND --help' or 'man aperture-COMMAND'.\n"
		   "\nExamples:\n"
		   "  aperture record -F 999 -- ./prog args\n"
		   "  aperture record -p 1234 -d 10\n"
		   "  aperture report --format folded | flamegraph.pl > cpu.svg\n"
		   "  aperture top\n");
}

static int run_command(const struct command *c, int argc, char **argv)
{
	char name[64];
	int ret;

	/* so that argp's messages name "aperture record" */
	snprintf(name, sizeof(name), "aperture %s", c->name);
	argv[0] = name;
	ret = c->fn(argc, argv);
	/* a full disk under "report > out.txt" is an error, not silence */
	if (fflush(stdout) || ferror(stdout)) {
		ap_err("writing standard output: %s", strerror(errno));
		return 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *arg;

	if (argc < 2) {
		ap_err("no command given; see 'aperture --help' (commands: record, report, top, stat, script, diff, annotate, push, gpu-env, list)");
		return EXIT_USAGE;
	}
	arg = argv[1];
	if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(arg, "--version") || !strcmp(arg, "-V")) {
		printf("%s\n", argp_program_version);
		return 0;
	}
	if (!strcmp(arg, "--usage")) {
		printf("Usage: aperture [--help] [--version] COMMAND [ARGS]\n");
		return 0;
	}
	if (!strcmp(arg, "help")) {
		char *help_argv[] = { NULL, "--help", NULL };

		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		c = find_command(argv[2]);
		if (!c) {
			ap_err("'%s' is not an aperture command; see 'aperture --help'",
			       argv[2]);
			return EXIT_USAGE;
		}
		return run_command(c, 2, help_argv);
	}
	if (arg[0] == '-') {
		ap_err("unrecognized option '%s'; see 'aperture --help'", arg);
		return EXIT_USAGE;
	}
	c = find_command(arg);
	if (!c) {
		ap_err("'%s' is not an aperture command; see 'aperture --help'",
		       arg);
		return EXIT_USAGE;
	}
	return run_command(c, argc - 1, argv + 1);
}
