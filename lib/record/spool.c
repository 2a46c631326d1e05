// SPDX-License-Identifier: GPL-2.0
#include "record/spool.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/vec.h"

struct entry {
	char *path;
	uint64_t bytes;
};

struct ap_spool {
	struct ap_spool_opts o;
	struct entry *files;		/* oldest first */
	size_t nr, cap;
	uint64_t bytes;
	pid_t child;			/* pushing files[0]; 0: none */
	uint64_t due_ns;		/* files[0]'s next try */
	uint64_t backoff_ns;		/* the wait after the next 75 */
	struct ap_spool_counts n;
};

static int push_enabled(const struct ap_spool *s)
{
	return s && s->o.ops && s->o.ops->spawn;
}

struct ap_spool *ap_spool__new(const struct ap_spool_opts *o)
{
	struct ap_spool *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->backoff_ns = AP_SPOOL_BACKOFF_NS;
	return s;
}

static void remove_file(struct ap_spool *s, const char *path)
{
	if (s->o.ops && s->o.ops->remove)
		s->o.ops->remove(s->o.ctx, path);
	else
		unlink(path);
}

/* files[i] leaves the spool; removed: its file too */
static void drop(struct ap_spool *s, size_t i, int remove)
{
	if (remove)
		remove_file(s, s->files[i].path);
	s->bytes -= s->files[i].bytes;
	free(s->files[i].path);
	memmove(s->files + i, s->files + i + 1,
		(s->nr - i - 1) * sizeof(*s->files));
	s->nr--;
}

static int over_bounds(const struct ap_spool *s)
{
	return (s->o.max_files && s->nr > s->o.max_files) ||
	       (s->o.max_bytes && s->bytes > s->o.max_bytes);
}

int ap_spool__add(struct ap_spool *s, const char *path, uint64_t bytes,
		  uint64_t now_ns)
{
	struct entry *e;

	if (ap_grow((void **)&s->files, &s->cap, s->nr, sizeof(*s->files), 8))
		return -ENOMEM;
	e = &s->files[s->nr];
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->bytes = bytes;
	s->bytes += bytes;
	if (!s->nr++)
		s->due_ns = now_ns;
	/* the oldest first, but never the one a child reads now; the new
	 * one itself goes when it alone is past the size */
	while (over_bounds(s)) {
		size_t i = s->child ? 1 : 0;

		if (i >= s->nr)
			break;
		if (push_enabled(s))
			s->n.lost++;
		else
			s->n.removed++;
		drop(s, i, 1);
		/* the head changed: it is tried at once */
		if (!i)
			s->due_ns = now_ns;
	}
	ap_spool__tick(s, now_ns);
	return 0;
}

/* files[0] could not be sent now: tried again after the backoff */
static void retry_later(struct ap_spool *s, uint64_t now_ns)
{
	s->n.retried++;
	s->due_ns = now_ns + s->backoff_ns;
	s->backoff_ns *= 2;
	if (s->backoff_ns > AP_SPOOL_BACKOFF_MAX_NS)
		s->backoff_ns = AP_SPOOL_BACKOFF_MAX_NS;
}

static void on_exit_status(struct ap_spool *s, int status, uint64_t now_ns)
{
	/* killed (stopped at the end, or it crashed): not the server's
	 * answer, so tried again */
	if (!WIFEXITED(status) ||
	    WEXITSTATUS(status) == AP_SPOOL_TEMPFAIL) {
		retry_later(s, now_ns);
		return;
	}
	if (WEXITSTATUS(status) == 0)
		s->n.sent++;
	else
		s->n.rejected++;
	drop(s, 0, 1);
	s->backoff_ns = AP_SPOOL_BACKOFF_NS;
	s->due_ns = now_ns;
}

void ap_spool__tick(struct ap_spool *s, uint64_t now_ns)
{
	int status = 0, e;

	if (!push_enabled(s))
		return;
	if (s->child) {
		e = s->o.ops->reap(s->o.ctx, s->child, &status);
		if (!e)
			return;
		s->child = 0;
		if (e < 0)
			retry_later(s, now_ns);
		else
			on_exit_status(s, status, now_ns);
	}
	if (!s->nr || now_ns < s->due_ns)
		return;
	if (s->o.ops->spawn(s->o.ctx, s->files[0].path, &s->child)) {
		s->child = 0;
		retry_later(s, now_ns);
	}
}

uint64_t ap_spool__next_ns(const struct ap_spool *s)
{
	if (!push_enabled(s) || s->child || !s->nr)
		return UINT64_MAX;
	return s->due_ns;
}

int ap_spool__busy(const struct ap_spool *s)
{
	return s->child != 0;
}

void ap_spool__finish(struct ap_spool *s, uint64_t until_ns,
		      uint64_t (*now_fn)(void), void (*sleep_fn)(uint64_t))
{
	uint64_t now;
	int status;

	if (!push_enabled(s))
		return;
	for (now = now_fn(); now < until_ns && s->nr; now = now_fn()) {
		ap_spool__tick(s, now);
		if (!s->child && s->due_ns >= until_ns)
			break;
		sleep_fn(10 * 1000 * 1000);
	}
	if (!s->child)
		return;
	if (s->o.ops->stop)
		s->o.ops->stop(s->o.ctx, s->child);
	/* it was told to end: its exit is waited for, a second at most
	 * (a child that ignores it is left to init) */
	until_ns = now_fn() + AP_SPOOL_BACKOFF_NS;
	for (now = now_fn(); s->child && now < until_ns; now = now_fn()) {
		int e = s->o.ops->reap(s->o.ctx, s->child, &status);

		if (e) {
			s->child = 0;
			if (e > 0)
				on_exit_status(s, status, now);
			break;
		}
		sleep_fn(10 * 1000 * 1000);
	}
}

void ap_spool__free(struct ap_spool *s)
{
	if (!s)
		return;
	while (s->nr)
		drop(s, s->nr - 1, 0);
	free(s->files);
	free(s);
}

void ap_spool__counts(const struct ap_spool *s, struct ap_spool_counts *out)
{
	*out = s->n;
	out->pending = s->nr;
	out->pending_bytes = s->bytes;
}

/* ---- aperture push as the child ---- */

extern char **environ;

static int push_spawn(void *ctx, const char *path, pid_t *child)
{
	const struct ap_push_child *pc = ctx;
	const char *exe = pc->exe ? pc->exe : "/proc/self/exe";
	char *argv[12];
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int n = 0, e;

	argv[n++] = (char *)"aperture";
	argv[n++] = (char *)"push";
	argv[n++] = (char *)"--to";
	argv[n++] = (char *)pc->url;
	if (pc->token_file) {
		argv[n++] = (char *)"--token-file";
		argv[n++] = (char *)pc->token_file;
	}
	if (pc->ca_file) {
		argv[n++] = (char *)"--ca-file";
		argv[n++] = (char *)pc->ca_file;
	}
	argv[n++] = (char *)"--";
	argv[n++] = (char *)path;
	argv[n] = NULL;
	/* the recorder's signal mask and dispositions are not the
	 * child's: a SIGTERM or SIGPIPE must act on it as on any program */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGUSR2);
	e = posix_spawnattr_init(&attr);
	if (e)
		return -e;
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	e = posix_spawn(child, exe, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	return -e;
}

static int push_reap(void *ctx, pid_t child, int *status)
{
	pid_t p;

	(void)ctx;
	do
		p = waitpid(child, status, WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p < 0)
		return -errno;
	return p == child;
}

static void push_stop(void *ctx, pid_t child)
{
	(void)ctx;
	kill(child, SIGTERM);
}

const struct ap_spool_ops ap_push_child_ops = {
	.spawn = push_spawn,
	.reap = push_reap,
	.stop = push_stop,
};
