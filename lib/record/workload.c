// SPDX-License-Identifier: GPL-2.0
#include "record/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/num.h"

/* how long a command we started has to exit after SIGTERM */
#define TERM_GRACE_MS	2000

int ap_workload__find(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *p;
	int err = -ENOENT;
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		if (stat(path, &st))
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(path, X_OK) ? -errno : 0;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/bin:/usr/bin";
	for (p = dirs; ; p += strcspn(p, ":") + 1) {
		int n = (int)strcspn(p, ":");

		snprintf(path, len, "%.*s%s%s", n, n ? p : ".", "/", name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (!access(path, X_OK))
				return 0;
			err = -EACCES;
		}
		if (!p[n])
			break;
	}
	return err;
}

/* in the child, before exec: become u, groups and all, so that the
 * command does not run as root under sudo */
static int become_user(const struct ap_workload_user *u)
{
	if (initgroups(u->name, u->gid) || setgid(u->gid) ||
	    setuid(u->uid))
		return -errno;
	/* setuid(2) from root drops every capability; check it held */
	if (u->uid != 0 && setuid(0) == 0)
		return -EPERM;
	if (setenv("HOME", u->home, 1) || setenv("USER", u->name, 1) ||
	    setenv("LOGNAME", u->name, 1) || setenv("SHELL", u->shell, 1))
		return -errno;
	return 0;
}

int ap_workload__fork(struct ap_workload *w, const char *path, char **cmd,
		      const struct ap_workload_user *user,
		      int stdout_to_stderr)
{
	pid_t parent = getpid();
	int go[2], errp[2];
	char ready;

	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		/* a name of its own until exec, as perf's "perf-exec",
		 * set before the parent reads it for the snapshot */
		prctl(PR_SET_NAME, "aperture-exec", 0, 0, 0);
		if (write(errp[1], "r", 1) != 1)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		e = user ? -become_user(user) : 0;
		/* record killed (SIGKILL: no handler stops the command):
		 * the command dies with it.  After become_user, as a change
		 * of uid clears it; and the parent may have died before,
		 * when no signal will come */
		if (!e && (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
			   getppid() != parent))
			_exit(127);
		if (!e) {
			/* -o -: standard output carries the record stream */
			if (stdout_to_stderr &&
			    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
				_exit(127);
			execv(path, cmd);
			e = errno;
		}
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	w->go_fd = go[1];
	w->err_fd = errp[0];
	w->exited = 0;
	/* the child has its name */
	if (read(w->err_fd, &ready, 1) != 1)
		return -ECHILD;
	return 0;
}

int ap_workload__start(struct ap_workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	n = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	return n == sizeof(e) ? -e : 0;
}

/* the recording ended first (-d, a signal, a write error) */
void ap_workload__stop(struct ap_workload *w)
{
	int ms;

	if (w->pid <= 0 || w->exited)
		return;
	kill(w->pid, SIGTERM);
	for (ms = 0; ms < TERM_GRACE_MS; ms += 10) {
		if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
			w->exited = 1;
			return;
		}
		usleep(10000);
	}
	kill(w->pid, SIGKILL);
	waitpid(w->pid, &w->status, 0);
	w->exited = 1;
}

void ap_workload__kill(struct ap_workload *w)
{
	if (w->pid > 0 && !w->exited) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
}

int ap_workload__exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int ap_workload__ended(const struct ap_workload *w, const char *name,
		       FILE *out)
{
	if (!out)
		;
	else if (WIFEXITED(w->status) && WEXITSTATUS(w->status))
		fprintf(out, "aperture: '%s' exited with status %d\n", name,
			WEXITSTATUS(w->status));
	else if (WIFSIGNALED(w->status))
		fprintf(out, "aperture: '%s' killed by signal %d (%s)\n",
			name, WTERMSIG(w->status),
			strsignal(WTERMSIG(w->status)));
	return ap_workload__exit_code(w->status);
}

int ap_workload_user__find(const char *arg, struct ap_workload_user *u)
{
	struct passwd *pw = getpwnam(arg);
	unsigned long long v;

	if (!pw && !ap_parse_u64(arg, 0, UINT32_MAX - 1, &v))
		pw = getpwuid((uid_t)v);
	if (!pw)
		return -ENOENT;
	u->name = strdup(pw->pw_name);
	if (!u->name)
		return -ENOMEM;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir);
	snprintf(u->shell, sizeof(u->shell), "%s",
		 pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
	return 0;
}
