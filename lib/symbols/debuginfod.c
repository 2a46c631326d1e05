// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod lookups through libdebuginfod, opened with dlopen: aperture
 * neither links it nor needs its headers, and a report without
 * DEBUGINFOD_URLS never loads it.  Both lookups are ours: libdwfl's
 * (dwfl_standard_find_debuginfo) first searches the local paths again
 * with a plain open(), and it cannot find the ELF file itself when its
 * path is gone.
 *
 * One client per process, made on first use: libdebuginfod keeps its
 * cache on disk, so the client holds no state worth a per-report object.
 * The budgets (debuginfod.h) are held by our progress callback, which
 * libdebuginfod (0.178 on) calls at least once a second while a lookup
 * runs, redirects and stalls included, and which stops the transfer when
 * it returns non-zero; the client reads DEBUGINFOD_MAXTIME and _MAXSIZE
 * at each lookup, so each is handed what is left.
 *
 * It does not bound redirects (0.188 sets CURLOPT_FOLLOWLOCATION and no
 * CURLOPT_MAXREDIRS; libcurl before 8.3 follows for ever, and the curl
 * handle is never ours): a loop would take the whole time budget, a
 * request each round trip.  Its verbose output is the one place every
 * response shows, a "header HTTP/..." line each, written as it comes:
 * that goes to a memfd of ours, and the callback counts the redirects
 * there and stops the lookup past AP_DEBUGINFOD_REDIRS a server.
 */
#include "symbols/debuginfod.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/num.h"

/* libdebuginfod's ABI (debuginfod.h), stable since elfutils 0.178 */
typedef struct debuginfod_client debuginfod_client;
typedef int (*progressfn_t)(debuginfod_client *, long, long);

#define ID_MAX		64
#define NS		UINT64_C(1000000000)

/* a lookup that failed: asked once */
struct failed {
	uint8_t id[ID_MAX];
	uint8_t len;
	uint8_t debuginfo;
	int err;
};

static struct {
	int tried;
	void *lib;
	debuginfod_client *client;
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *,
			       int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *,
			      int, char **);
	void (*end)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, progressfn_t);
	const char *(*get_url)(debuginfod_client *);
	void (*set_verbose_fd)(debuginfod_client *, int);

	/* the budgets (0 until first use) and what the lookups took */
	uint64_t time_ns, size;
	uint64_t user_time, user_size;	/* DEBUGINFOD_MAXTIME, _MAXSIZE */
	uint64_t spent_ns, got;
	uint64_t asked, not_asked;
	int progress;
	int out;			/* spent: -ETIME, -EFBIG */

	/* the lookup in flight */
	uint64_t start_ns;
	uint64_t bytes;			/* downloaded so far */
	int answered;			/* a server began to send it */
	int stop;			/* why the callback stopped it */
	int said;			/* its progress line is out */
	/* the client's verbose output (-1: none), read up to vb_off; the
	 * redirects in it and how many the lookup may follow */
	int vb_fd;
	off_t vb_off;
	uint64_t redirs, max_redirs;
	const char *kind;
	char hex[2 * ID_MAX + 1];

	struct failed *failed;
	size_t nr_failed, cap_failed;
} dbg;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* a positive number from the environment, else 0 */
static uint64_t env_u64(const char *name)
{
	unsigned long long v;
	const char *s = getenv(name);

	return s && !ap_parse_u64(s, 1, UINT64_MAX, &v) ? v : 0;
}

static void budget_init(void)
{
	if (dbg.time_ns)
		return;
	dbg.user_time = env_u64("DEBUGINFOD_MAXTIME");
	dbg.user_size = env_u64("DEBUGINFOD_MAXSIZE");
	dbg.time_ns = dbg.user_time > UINT64_MAX / NS ? UINT64_MAX :
		      (dbg.user_time ? dbg.user_time : AP_DEBUGINFOD_TIME) * NS;
	dbg.size = dbg.user_size ? dbg.user_size : AP_DEBUGINFOD_SIZE;
}

void ap_debuginfod__setup(const struct ap_debuginfod_opts *o)
{
	budget_init();
	if (o->time)
		dbg.time_ns = o->time > UINT64_MAX / NS ? UINT64_MAX :
			      o->time * NS;
	if (o->size)
		dbg.size = o->size;
	dbg.progress = o->progress;
}

/* the servers DEBUGINFOD_URLS names (space-separated), at least one */
static uint64_t nr_urls(void)
{
	const char *s = getenv("DEBUGINFOD_URLS");
	uint64_t n = 0;

	while (s && *(s += strspn(s, " \t"))) {
		n++;
		s += strcspn(s, " \t");
	}
	return n ? n : 1;
}

int ap_debuginfod__enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/* a status line of a redirect: "header HTTP/1.1 302 Found" */
static int is_redirect(const char *l, size_t n)
{
	static const char pre[] = "header HTTP/";
	size_t i = sizeof(pre) - 1;

	if (n < i || memcmp(l, pre, i))
		return 0;
	while (i < n && l[i] != ' ')
		i++;
	return i + 1 < n && l[i + 1] == '3';
}

/* the redirects the client's verbose output holds past vb_off */
static void count_redirects(void)
{
	char buf[4096];
	ssize_t n;

	if (dbg.vb_fd < 0)
		return;
	while ((n = pread(dbg.vb_fd, buf, sizeof(buf), dbg.vb_off)) > 0) {
		char *l = buf, *nl;

		while ((nl = memchr(l, '\n', (size_t)(buf + n - l)))) {
			dbg.redirs += is_redirect(l, (size_t)(nl - l));
			l = nl + 1;
		}
		/* a line longer than the buffer is no status line */
		if (l == buf && n == sizeof(buf))
			l = buf + n;
		dbg.vb_off += l - buf;
		if (l == buf)
			break;
	}
}

/*
 * libdebuginfod's progress callback: b is the answer's length where the
 * server gave it, a the bytes received once a server answers (until
 * then, a count of loops: get_url is NULL).  Non-zero stops the lookup.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	uint64_t el = now_ns() - dbg.start_ns;
	int answering = dbg.get_url && dbg.get_url(c);

	dbg.answered |= answering;
	if (answering && a > 0)
		dbg.bytes = (uint64_t)a;
	if (dbg.spent_ns + el >= dbg.time_ns) {
		dbg.stop = -ETIME;
		return 1;
	}
	count_redirects();
	if (dbg.redirs > dbg.max_redirs) {
		dbg.stop = -ELOOP;
		return 1;
	}
	if (answering && (dbg.got + dbg.bytes > dbg.size ||
			  (b > 0 && dbg.got + (uint64_t)b > dbg.size))) {
		dbg.stop = -EFBIG;
		return 1;
	}
	if (dbg.progress && !dbg.said && el >= NS) {
		fprintf(stderr, "aperture: debuginfod: waiting for the %s of build-id %s (%" PRIu64 " s left of %" PRIu64 " s for the servers: --debuginfod-time)\n",
			dbg.kind, dbg.hex,
			(dbg.time_ns - dbg.spent_ns - el) / NS,
			dbg.time_ns / NS);
		dbg.said = 1;
	}
	return 0;
}

static int debuginfod__open(void)
{
	if (dbg.tried)
		return dbg.client ? 0 : -ENOSYS;
	dbg.tried = 1;
	budget_init();
	if (!ap_debuginfod__enabled())
		return -ENOSYS;
	dbg.lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!dbg.lib)
		return -ENOSYS;
	dbg.begin = (debuginfod_client *(*)(void))dlsym(dbg.lib,
							"debuginfod_begin");
	dbg.find_executable = (int (*)(debuginfod_client *,
				       const unsigned char *, int, char **))
		dlsym(dbg.lib, "debuginfod_find_executable");
	dbg.find_debuginfo = (int (*)(debuginfod_client *,
				      const unsigned char *, int, char **))
		dlsym(dbg.lib, "debuginfod_find_debuginfo");
	dbg.end = (void (*)(debuginfod_client *))dlsym(dbg.lib,
						       "debuginfod_end");
	dbg.set_progressfn = (void (*)(debuginfod_client *, progressfn_t))
		dlsym(dbg.lib, "debuginfod_set_progressfn");
	dbg.get_url = (const char *(*)(debuginfod_client *))
		dlsym(dbg.lib, "debuginfod_get_url");
	dbg.set_verbose_fd = (void (*)(debuginfod_client *, int))
		dlsym(dbg.lib, "debuginfod_set_verbose_fd");
	/* without the callback, no budget holds: no lookups */
	if (dbg.begin && dbg.find_executable && dbg.end && dbg.set_progressfn)
		dbg.client = dbg.begin();
	if (!dbg.client) {
		dlclose(dbg.lib);
		dbg.lib = NULL;
		return -ENOSYS;
	}
	dbg.set_progressfn(dbg.client, progress);
	/* the verbose output, where the redirects show; a file, which
	 * never blocks the client's writes as a full pipe would */
	dbg.vb_fd = dbg.set_verbose_fd ?
		    memfd_create("aperture-debuginfod", MFD_CLOEXEC) : -1;
	if (dbg.vb_fd >= 0)
		dbg.set_verbose_fd(dbg.client, dbg.vb_fd);
	/* each build-id asked once: a timeout is not asked again */
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 0);
	return 0;
}

static struct failed *failed_find(int debuginfo, const uint8_t *id,
				  size_t len)
{
	size_t i;

	for (i = 0; i < dbg.nr_failed; i++)
		if (dbg.failed[i].debuginfo == debuginfo &&
		    dbg.failed[i].len == len &&
		    !memcmp(dbg.failed[i].id, id, len))
			return &dbg.failed[i];
	return NULL;
}

static void failed_add(int debuginfo, const uint8_t *id, size_t len, int err)
{
	struct failed *f;

	if (dbg.nr_failed == dbg.cap_failed) {
		size_t n = dbg.cap_failed ? dbg.cap_failed * 2 : 16;

		f = realloc(dbg.failed, n * sizeof(*f));
		if (!f)
			return;
		dbg.failed = f;
		dbg.cap_failed = n;
	}
	f = &dbg.failed[dbg.nr_failed++];
	memcpy(f->id, id, len);
	f->len = (uint8_t)len;
	f->debuginfo = (uint8_t)debuginfo;
	f->err = err;
}

/* the client's cache, as libdebuginfod finds it */
static int client_cache(char *buf, size_t len)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (home && (n = snprintf(buf, len, "%s/.debuginfod_client_cache",
				       home)) > 0 && (size_t)n < len &&
		 !stat(buf, &st))
		;
	else if (xdg && *xdg)
		n = snprintf(buf, len, "%s/debuginfod_client", xdg);
	else if (home)
		n = snprintf(buf, len, "%s/.cache/debuginfod_client", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/*
 * A lookup we stopped is no miss: the empty file some libdebuginfod
 * versions leave to say "not on the servers" (for ten minutes) is
 * removed, when it is one this lookup made.
 */
static void unsay_miss(const char *kind, time_t since)
{
	char path[4096];
	struct stat st;
	size_t n;

	if (client_cache(path, sizeof(path)))
		return;
	n = strlen(path);
	if ((size_t)snprintf(path + n, sizeof(path) - n, "/%s/%s", dbg.hex,
			     kind) >= sizeof(path) - n)
		return;
	if (!lstat(path, &st) && S_ISREG(st.st_mode) && !st.st_size &&
	    st.st_uid == geteuid() && st.st_mtime >= since - 1)
		unlink(path);
}

static int find(int debuginfo, const uint8_t *id, size_t len, char *buf,
		size_t buflen)
{
	const char *kind = debuginfo ? "debuginfo" : "executable";
	struct failed *f;
	struct stat st;
	char num[32];
	char *path = NULL;
	uint64_t left, el;
	time_t since;
	int fd, ret;
	size_t i;

	if (!id || !len || len > ID_MAX)
		return -EINVAL;
	ret = debuginfod__open();
	if (ret)
		return ret;
	if (debuginfo && !dbg.find_debuginfo)
		return -ENOSYS;
	f = failed_find(debuginfo, id, len);
	if (f)
		return f->err;
	if (!dbg.out && dbg.spent_ns >= dbg.time_ns)
		dbg.out = -ETIME;
	else if (!dbg.out && dbg.got >= dbg.size)
		dbg.out = -EFBIG;
	if (dbg.out) {
		dbg.not_asked++;
		return dbg.out;
	}
	/* what is left, for the client's own bounds too */
	left = (dbg.time_ns - dbg.spent_ns + NS - 1) / NS;
	if (dbg.user_time && dbg.user_time < left)
		left = dbg.user_time;
	snprintf(num, sizeof(num), "%" PRIu64, left);
	setenv("DEBUGINFOD_MAXTIME", num, 1);
	left = dbg.size - dbg.got;
	if (dbg.user_size && dbg.user_size < left)
		left = dbg.user_size;
	snprintf(num, sizeof(num), "%" PRIu64, left);
	setenv("DEBUGINFOD_MAXSIZE", num, 1);

	for (i = 0; i < len; i++)
		snprintf(dbg.hex + 2 * i, 3, "%02x", id[i]);
	dbg.kind = debuginfo ? "debug file" : "executable";
	dbg.start_ns = now_ns();
	dbg.bytes = 0;
	dbg.answered = 0;
	dbg.stop = 0;
	dbg.said = 0;
	dbg.redirs = 0;
	dbg.max_redirs = AP_DEBUGINFOD_REDIRS * nr_urls();
	if (dbg.vb_fd >= 0 && !ftruncate(dbg.vb_fd, 0) &&
	    !lseek(dbg.vb_fd, 0, SEEK_SET))
		dbg.vb_off = 0;
	since = time(NULL);
	fd = debuginfo ? dbg.find_debuginfo(dbg.client, id, (int)len, &path) :
			 dbg.find_executable(dbg.client, id, (int)len, &path);
	el = now_ns() - dbg.start_ns;
	dbg.spent_ns += el;
	dbg.asked++;
	dbg.got += dbg.bytes;
	if (fd < 0 && dbg.stop) {
		unsay_miss(kind, since);
		fd = dbg.stop;
	}
	if (fd < 0) {
		free(path);
		ret = fd == -ENOSYS ? -ENOENT : fd;
		failed_add(debuginfo, id, len, ret);
		return ret;
	}
	/* the whole of what came, past the callback's last count */
	if (dbg.answered && !fstat(fd, &st) &&
	    (uint64_t)st.st_size > dbg.bytes)
		dbg.got += (uint64_t)st.st_size - dbg.bytes;
	close(fd);
	if (!path)
		return -ENOENT;
	ret = snprintf(buf, buflen, "%s", path) >= (int)buflen ? -ENAMETOOLONG
							       : 0;
	free(path);
	return ret;
}

int ap_debuginfod__find_executable(const uint8_t *id, size_t len, char *buf,
				   size_t buflen)
{
	return find(0, id, len, buf, buflen);
}

int ap_debuginfod__find_debuginfo(const uint8_t *id, size_t len, char *buf,
				  size_t buflen)
{
	return find(1, id, len, buf, buflen);
}

void ap_debuginfod__stats(struct ap_debuginfod_stats *st)
{
	budget_init();
	st->secs = (double)dbg.spent_ns / NS;
	st->bytes = dbg.got;
	st->asked = dbg.asked;
	st->not_asked = dbg.not_asked;
	st->time = dbg.time_ns / NS;
	st->size = dbg.size;
}
