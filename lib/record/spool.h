/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The finished window files of record --switch-output, oldest first:
 * kept up to a count and a size (the oldest removed past them, as perf's
 * --switch-max-files) and, with --push, handed one at a time to a child
 * (aperture push FILE) that sends it: exit 0 sent (the file goes), 75
 * not now (kept, tried again after 1 s, doubling to 60 s), any other
 * status rejected for good (the file goes, counted).  Never blocks: the
 * recording loop calls ap_spool__tick.  The child is started and reaped
 * through functions given in the options, so that a test can drive it.
 */
#ifndef APERTURE_SPOOL_H
#define APERTURE_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ap_spool;

/* aperture push's exit status for "could not deliver now" (EX_TEMPFAIL) */
#define AP_SPOOL_TEMPFAIL	75
#define AP_SPOOL_BACKOFF_NS	(1000 * 1000 * 1000ull)
#define AP_SPOOL_BACKOFF_MAX_NS	(60 * 1000 * 1000 * 1000ull)

struct ap_spool_ops {
	/* starts the push of path: 0 and *child, or -errno (tried again
	 * later, as a 75) */
	int (*spawn)(void *ctx, const char *path, pid_t *child);
	/* 1 and *status (as waitpid's) when child ended, 0 while it runs,
	 * -errno when it cannot be waited for (counted as a 75) */
	int (*reap)(void *ctx, pid_t child, int *status);
	/* asks child to end (ap_spool__finish past its time) */
	void (*stop)(void *ctx, pid_t child);
	/* removes a file: 0 or -errno */
	int (*remove)(void *ctx, const char *path);
};

struct ap_spool_opts {
	uint32_t max_files;		/* 0: no bound */
	uint64_t max_bytes;		/* 0: no bound */
	/* a NULL spawn: no push, the files are only kept up to the
	 * bounds; NULL ops: unlink(2) removes them */
	const struct ap_spool_ops *ops;
	void *ctx;			/* the ops' */
};

struct ap_spool_counts {
	uint64_t sent;			/* pushed: exit 0 */
	uint64_t retried;		/* not now: exit 75, tried again */
	uint64_t rejected;		/* any other status: dropped */
	uint64_t lost;			/* unsent, removed past a bound */
	uint64_t removed;		/* without push: past a bound */
	uint64_t pending;		/* in the spool now */
	uint64_t pending_bytes;
};

struct ap_spool *ap_spool__new(const struct ap_spool_opts *o);
/* the children still running are stopped and reaped first
 * (ap_spool__finish); the files stay */
void ap_spool__free(struct ap_spool *s);
/* a finished window: kept (its name copied), the bounds applied (the
 * oldest that no child reads goes); 0 or -errno */
int ap_spool__add(struct ap_spool *s, const char *path, uint64_t bytes,
		  uint64_t now_ns);
/* reaps the push child, starts the next when one is due; never waits */
void ap_spool__tick(struct ap_spool *s, uint64_t now_ns);
/* the time the next tick has something to do (a retry's), UINT64_MAX:
 * nothing but the child's end */
uint64_t ap_spool__next_ns(const struct ap_spool *s);
/* 1 while a push child runs */
int ap_spool__busy(const struct ap_spool *s);
/* the recording ends: pushes go on (a retry waits no longer than the
 * time left) until the spool is empty or now_fn says until_ns has come;
 * then the child still running is stopped and reaped */
void ap_spool__finish(struct ap_spool *s, uint64_t until_ns,
		      uint64_t (*now_fn)(void), void (*sleep_fn)(uint64_t));
void ap_spool__counts(const struct ap_spool *s, struct ap_spool_counts *out);

/* aperture push as the child: /proc/self/exe push --to URL [--token-file
 * F] [--ca-file F] FILE, with posix_spawn; the ops above, ctx a struct
 * ap_push_child */
struct ap_push_child {
	const char *url;
	const char *token_file;		/* NULL: none */
	const char *ca_file;		/* NULL: none */
	const char *exe;		/* NULL: /proc/self/exe */
};
extern const struct ap_spool_ops ap_push_child_ops;

#endif /* APERTURE_SPOOL_H */
