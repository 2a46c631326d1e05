/* SPDX-License-Identifier: GPL-2.0 */
/* What every subcommand shares: the command table, argp conventions. */
#ifndef APERTURE_CLI_H
#define APERTURE_CLI_H

#include <argp.h>
#include <stdint.h>
#include <sys/types.h>

#define EXIT_USAGE	64	/* sysexits EX_USAGE */

/*
 * To add a command: write cmd/NAME.c with int cmd_NAME(int, char **),
 * declare it here, add a row to the table in cmd/aperture.c, and write
 * man/aperture-NAME.1 with the same synopsis as its --help.
 */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_gpu_env(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_push(int argc, char **argv);

/* argp flags for every command: errors and help handled by ap_cli_key */
#define AP_ARGP_FLAGS	(ARGP_NO_HELP | ARGP_NO_ERRS)

/* the --help / --usage rows every command's option table ends with */
#define AP_CLI_HELP_OPTIONS						\
	{ NULL, 0, NULL, 0, "Help:", -1 },				\
	{ "help", 'h', NULL, 0, "Give this help list", -1 },		\
	{ "usage", 0x1ff, NULL, 0, "Give a short usage message", -1 },	\
	{ "version", 'V', NULL, 0, "Print the version", -1 }

/* Handles 'h', usage, 'V' and ARGP_KEY_ERROR; returns ARGP_ERR_UNKNOWN for
 * anything else.  Call it from a parser's default case. */
error_t ap_cli_key(int key, char *arg, struct argp_state *state);
/* "aperture record: MESSAGE" on stderr, exit 64 */
void ap_cli_usage_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* "aperture: MESSAGE" on stderr */
void ap_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PID[,PID..]" appended to pids[*nr] (at most max); usage error on a bad
 * or excess pid */
void ap_cli_add_pids(struct argp_state *state, const char *list, int *pids,
		     int *nr, int max);
struct ap_collect_opts;
/* -e LIST added to *mask, and the options qualified names turn on; an unknown
 * name is a usage error listing the valid ones */
void ap_cli_parse_events(struct argp_state *state, const char *arg,
			 uint32_t *mask, struct ap_collect_opts *o);
/* -F HZ: 1 to perf_event_max_sample_rate, else a usage error */
unsigned int ap_cli_parse_freq(struct argp_state *state, const char *arg);

/* record's and top's targets and events: -p, -a, -e, -F */
#define AP_CLI_MAX_PIDS	1024
struct ap_cli_targets {
	pid_t pids[AP_CLI_MAX_PIDS];
	int nr_pids;
	int system_wide;
	uint32_t freq;
	uint32_t events;
};
/* one of those options into t (and c, which -e's qualified names set),
 * else ap_cli_key's: the default case of the parsers of record and top */
error_t ap_cli_collect_key(int key, char *arg, struct argp_state *state,
			   struct ap_cli_targets *t, struct ap_collect_opts *c);
/* do t's processes run?  0 after "aperture: no such process: PID" */
int ap_cli_pids_alive(const struct ap_cli_targets *t);
/* SIGINT, SIGTERM and SIGHUP to handler: record and top stop on them */
void ap_cli_catch_stop(void (*handler)(int));
/* ARGP_KEY_ARG under ARGP_IN_ORDER: everything from the first
 * non-option on is the command (record, gpu-env) */
void ap_cli_take_command(struct argp_state *state, char ***cmd);

/*
 * What report, script and diff share in reading a record file: rows for
 * an option table and their keys, which ap_cli_read_key parses ('i' and
 * AP_OPT_EVENTS too, whose rows each command words for itself).
 */
#define AP_OPT_PID		0x1e0
#define AP_OPT_TID		0x1e1
#define AP_OPT_COMM		0x1e2
#define AP_OPT_LIMIT		0x1e3
#define AP_OPT_USER_ONLY	0x1e4
#define AP_OPT_NO_INLINE	0x1e5
#define AP_OPT_EVENTS		0x1e6	/* report's and script's --events */
#define AP_CLI_FILTER_OPTIONS(group)					\
	{ NULL, 0, NULL, 0, "Filters:", group },			\
	{ "pid", AP_OPT_PID, "PID[,PID..]", 0, "Only these processes", group }, \
	{ "tid", AP_OPT_TID, "TID[,TID..]", 0, "Only these threads", group }, \
	{ "comm", AP_OPT_COMM, "NAME", 0, "Only threads named NAME", group }
#define AP_CLI_LIMIT_OPTION(group)					\
	{ "limit", AP_OPT_LIMIT, "N", 0, "Print at most N rows", group }
#define AP_CLI_USER_ONLY_OPTION(group)					\
	{ "user-only", AP_OPT_USER_ONLY, NULL, 0, "Hide kernel frames", group }
#define AP_CLI_NO_INLINE_OPTION(group)					\
	{ "no-inline", AP_OPT_NO_INLINE, NULL, 0, "Do not expand inlined functions (skips loading DWARF)", group }

/* what else those options, -i FILE and --events LIST set */
struct ap_cli_input {
	const char *input;		/* -i: the record file */
	int input_given;		/* by -i: the user's (a FIFO may do) */
	const char *events;		/* --events; NULL: the file's */
	int no_inline;
};
struct ap_report_opts;
/* one of those options into r and in (a bad value is a usage error),
 * else ap_cli_key's: the default case of the parsers of report, script
 * and diff */
error_t ap_cli_read_key(int key, char *arg, struct argp_state *state,
			struct ap_report_opts *r, struct ap_cli_input *in);

/* a name an option's value may be, and what it stands for */
struct ap_cli_choice {
	const char *name;
	int value;
};
/* the value of arg among choices (the last one's name NULL); else the
 * usage error "unknown WHAT 'ARG': give A, B or C" */
int ap_cli_choose(struct argp_state *state, const char *what,
		  const char *arg, const struct ap_cli_choice *choices);
/* "ID[,ID..]" (each 1 to UINT32_MAX) into out[max]: the count, or
 * -EINVAL (none, too many, a bad one) */
int ap_cli_parse_ids(const char *arg, uint32_t *out, int max);

struct ap_view_ops;
/* the view named name, or NULL after "aperture CMD: unknown event..." */
const struct ap_view_ops *ap_cli_view(const char *cmd, const char *name);

/* aperture diff's work, which report --diff shares: files[0] (old) and
 * files[1] compared in the view events names (NULL: cpu or the first);
 * format AP_FMT_TABLE, _JSON, _FOLDED or _SVG in r.  The exit status. */
int ap_cli_diff(const char *const files[2], const char *events,
		const struct ap_report_opts *r, int no_inline);

#endif /* APERTURE_CLI_H */
