/* SPDX-License-Identifier: GPL-2.0 */
/* What every subcommand shares: the command table, argp conventions. */
#ifndef APERTURE_CLI_H
#define APERTURE_CLI_H

#include <argp.h>
#include <stdint.h>

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
/* parse a positive integer within [min, max]; 0 or -EINVAL */
int ap_parse_u64(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *out);

#endif /* APERTURE_CLI_H */
