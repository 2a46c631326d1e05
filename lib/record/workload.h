/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record's -- CMD: the command found in PATH before anything is created,
 * forked and held until the probes are attached, then exec'd (as another
 * user with --user), and ended with the recording when that ends first.
 */
#ifndef APERTURE_WORKLOAD_H
#define APERTURE_WORKLOAD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* --user: whom the command runs as */
struct ap_workload_user {
	const char *name;
	uid_t uid;
	gid_t gid;
	char home[256], shell[256];
};

struct ap_workload {
	pid_t pid;			/* -1: none */
	int go_fd;
	int err_fd;
	int status;			/* as waitpid gives it */
	int exited;
};

/*
 * The PATH search execvp would do, into path[len]: the launcher's failed
 * execve calls would otherwise be recorded as the command's, and a
 * command that does not exist is known before anything is created.
 * 0 or -errno (-ENOENT: not found).
 */
int ap_workload__find(const char *name, char *path, size_t len);

/* Forks the command, held before exec until ap_workload__start; user
 * NULL: as aperture runs; stdout_to_stderr: its standard output goes to
 * standard error (record -o -: standard output carries the stream).
 * Returns once the child has its name: 0 or -errno. */
int ap_workload__fork(struct ap_workload *w, const char *path, char **cmd,
		      const struct ap_workload_user *user,
		      int stdout_to_stderr);
/* Lets it exec: 0 when the command runs, -errno when exec failed */
int ap_workload__start(struct ap_workload *w);
/* The recording ended first: SIGTERM, then SIGKILL after a grace period,
 * so that nothing runs on unobserved.  Nothing when it has exited. */
void ap_workload__stop(struct ap_workload *w);
/* A failed start: SIGKILL, and reaped */
void ap_workload__kill(struct ap_workload *w);
/* the shell's convention: the exit status, or 128 + the signal */
int ap_workload__exit_code(int status);
/* The command's end, said as time and strace do on out (NULL: nothing
 * said) when it failed or was killed: ap_workload__exit_code's status */
int ap_workload__ended(const struct ap_workload *w, const char *name,
		       FILE *out);

/* --user NAME or uid into u (name copied): 0, -ENOENT (no such user) or
 * -ENOMEM */
int ap_workload_user__find(const char *arg, struct ap_workload_user *u);

#endif /* APERTURE_WORKLOAD_H */
