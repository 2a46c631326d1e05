// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache (bidcache.h).  The recorder's thread decides and
 * opens; one thread of the cache's copies, so that a big file (another
 * user's sparse gigabyte) never holds up the recording loop, and within
 * limits on size and free space.
 */
#include "record/bidcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "util/safefile.h"
#include "symbols/symbolizer.h"

/* base exists and belongs to someone else (root under sudo -E keeps the
 * user's HOME): writing there would leave the user files of root's */
static int others(const char *base)
{
	struct stat st;

	return !stat(base, &st) && st.st_uid != geteuid();
}

int ap_user_cache_dir(const char *leaf, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct passwd *pw;
	int n;

	if (xdg && *xdg == '/' && !others(xdg)) {
		n = snprintf(buf, len, "%s/aperture/%s", xdg, leaf);
	} else if (home && *home == '/' && !others(home)) {
		n = snprintf(buf, len, "%s/.cache/aperture/%s", home, leaf);
	} else {
		pw = getpwuid(geteuid());
		if (!pw || !pw->pw_dir || *pw->pw_dir != '/')
			return -ENOENT;
		n = snprintf(buf, len, "%s/.cache/aperture/%s", pw->pw_dir,
			     leaf);
	}
	return n > 0 && (size_t)n < len ? 0 : -ENOENT;
}

int ap_bidcache__dir(const char *opt, char *buf, size_t len)
{
	const char *env = getenv("APERTURE_BUILDID_DIR");

	if (opt && *opt)
		snprintf(buf, len, "%s", opt);
	else if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		return ap_user_cache_dir("build-id", buf, len);
	return 0;
}

int ap_bidcache__path(const char *dir, const uint8_t *id, size_t n,
		      char *buf, size_t len)
{
	size_t off, i;

	if (!dir || !n || n > AP_BUILD_ID_MAX)
		return -EINVAL;
	off = snprintf(buf, len, "%s/%02x/", dir, id[0]);
	for (i = 1; i < n && off + 3 <= len; i++)
		off += snprintf(buf + off, len - off, "%02x", id[i]);
	return off + 1 < len ? 0 : -ENAMETOOLONG;
}

int ap_read_build_id_safe(const char *path, uint8_t *buf, size_t len)
{
	char fdpath[64];
	int fd = ap_open_regular(path, 0), n;

	if (fd < 0)
		return fd;
	/* the checked descriptor, not the name again */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	n = ap_read_build_id(fdpath, buf, len);
	close(fd);
	return n;
}

int ap_mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

/* copies queued at most: each holds the file open */
#define QUEUE_MAX	32
/* ap_bidcache__finish looks at its abort flag this often */
#define FINISH_SLICE_NS	(100 * 1000 * 1000ull)

struct job {
	int fd;
	uint64_t size;
	char dst[AP_PATH_MAX + 64];
};

struct ap_bidcache {
	char dir[AP_PATH_MAX];
	struct ap_bidcache_limits lim;
	uint64_t reserved;		/* bytes queued or kept; caller's */
	pthread_mutex_t lock;		/* what follows */
	pthread_cond_t cond;		/* a job queued, or the end */
	pthread_t thread;
	int started;
	int closing;			/* no more jobs come */
	int cancel;			/* stop copying (atomic) */
	int stuck;			/* the thread did not stop */
	struct job q[QUEUE_MAX];
	size_t head, nr;
	struct ap_bidcache_counts counts;
};

struct ap_bidcache *ap_bidcache__new(const char *dir,
				     const struct ap_bidcache_limits *lim)
{
	struct ap_bidcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->lim = *lim;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	return c;
}

/* at most size bytes of in into dst, through a temporary file renamed
 * when whole; 0 or -errno (-EFBIG: it grew, -ECANCELED: stopped) */
static int copy_fd(struct ap_bidcache *c, int in, uint64_t size,
		   const char *dst)
{
	char tmp[AP_PATH_MAX + 160], buf[65536];
	uint64_t done = 0;
	ssize_t n;
	int out, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", dst, (int)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0644);
	if (out < 0)
		return -errno;
	while ((n = pread(in, buf, sizeof(buf), (off_t)done)) > 0) {
		if (__atomic_load_n(&c->cancel, __ATOMIC_RELAXED)) {
			err = -ECANCELED;
			break;
		}
		/* the file's owner may write to it as it is read */
		if ((uint64_t)n > size - done) {
			err = -EFBIG;
			break;
		}
		if (write(out, buf, n) != n) {
			err = errno == ENOSPC ? -ENOSPC : -EIO;
			break;
		}
		done += n;
	}
	if (n < 0 && !err)
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* the worker's: the cache's filesystem keeps min_free after the copy */
static int copy_job(struct ap_bidcache *c, struct job *j)
{
	struct statvfs vfs;
	int err;

	err = ap_mkdirs(j->dst);
	if (err)
		return err;
	if (!statvfs(c->dir, &vfs) &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < j->size + c->lim.min_free)
		return -ENOSPC;
	return copy_fd(c, j->fd, j->size, j->dst);
}

static void count(struct ap_bidcache_counts *n, int err, uint64_t size)
{
	if (!err) {
		n->kept++;
		n->kept_bytes += size;
	} else if (err == -ENOSPC) {
		n->no_space++;
	} else if (err == -ECANCELED) {
		n->unfinished++;
	} else {
		n->failed++;
	}
}

static void *worker(void *arg)
{
	struct ap_bidcache *c = arg;
	struct job j;
	int err;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->nr && !c->closing)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->nr)
			break;
		j = c->q[c->head];
		c->head = (c->head + 1) % QUEUE_MAX;
		c->nr--;
		pthread_mutex_unlock(&c->lock);
		err = __atomic_load_n(&c->cancel, __ATOMIC_RELAXED) ?
		      -ECANCELED : copy_job(c, &j);
		close(j.fd);
		pthread_mutex_lock(&c->lock);
		count(&c->counts, err, j.size);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* the thread, with every signal blocked: Ctrl-C and SIGTERM are the
 * recording loop's */
static int start(struct ap_bidcache *c)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&c->thread, NULL, worker, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err)
		c->started = 1;
	return err;
}

/* fd (taken) of size bytes to copy to dst, within the limits */
static int enqueue(struct ap_bidcache *c, int fd, uint64_t size,
		   const char *dst)
{
	struct job *j;
	int err = 0;

	pthread_mutex_lock(&c->lock);
	if (size > c->lim.max_file) {
		c->counts.too_big++;
		err = -EFBIG;
	} else if (size > c->lim.max_total - c->reserved ||
		   c->reserved > c->lim.max_total) {
		c->counts.over_total++;
		err = -EFBIG;
	} else if (c->closing || c->nr == QUEUE_MAX) {
		/* the copies are behind: this one would not be in time */
		c->counts.unfinished++;
		err = -EBUSY;
	} else if (!c->started && (err = start(c))) {
		c->counts.failed++;
	}
	if (err) {
		pthread_mutex_unlock(&c->lock);
		close(fd);
		return err;
	}
	j = &c->q[(c->head + c->nr) % QUEUE_MAX];
	j->fd = fd;
	j->size = size;
	snprintf(j->dst, sizeof(j->dst), "%s", dst);
	c->nr++;
	c->reserved += size;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return 1;
}

int ap_bidcache__keep(struct ap_bidcache *c, const struct ap_mmap *m)
{
	char dst[AP_PATH_MAX + 64], src[AP_PATH_MAX + 64], fdpath[64];
	uint8_t id[AP_BUILD_ID_MAX];
	struct stat st;
	int n, fd, i;

	if (!c || m->path[0] != '/' || !m->build_id_len ||
	    m->build_id_len > AP_BUILD_ID_MAX)
		return 0;
	if (ap_bidcache__path(c->dir, m->build_id, m->build_id_len, dst,
			      sizeof(dst)))
		return -ENAMETOOLONG;
	if (!access(dst, F_OK))
		return 0;
	/* reachable here as it was mapped: report finds it by its path */
	n = ap_read_build_id_safe(m->path, id, sizeof(id));
	if (n == (int)m->build_id_len && !memcmp(id, m->build_id, n))
		return 0;
	for (i = 0; i < 2; i++) {
		/* map_files first: the file mapped, even deleted */
		if (i == 0)
			snprintf(src, sizeof(src), "/proc/%u/map_files/%llx-%llx",
				 m->pid, (unsigned long long)m->start,
				 (unsigned long long)m->end);
		else
			snprintf(src, sizeof(src), "/proc/%u/root%s", m->pid,
				 m->path);
		fd = ap_open_regular(src, 0);
		if (fd < 0)
			continue;
		/* never keep a file under another file's build-id: the
		 * one checked is the one copied */
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		n = ap_read_build_id(fdpath, id, sizeof(id));
		if (n != (int)m->build_id_len || memcmp(id, m->build_id, n) ||
		    fstat(fd, &st)) {
			close(fd);
			continue;
		}
		return enqueue(c, fd, (uint64_t)st.st_size, dst);
	}
	return -ENOENT;
}

/* pthread_timedjoin_np's deadline: ns from now */
static void deadline(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ns / 1000000000ull;
	ts->tv_nsec += ns % 1000000000ull;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

void ap_bidcache__finish(struct ap_bidcache *c, uint64_t budget_ns,
			 const volatile sig_atomic_t *abort)
{
	struct timespec ts;
	uint64_t waited;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->closing = 1;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (!c->started)
		return;
	c->started = 0;
	/* in slices: a signal cuts the wait short */
	for (waited = 0; waited < budget_ns && !(abort && *abort);
	     waited += FINISH_SLICE_NS) {
		deadline(&ts, FINISH_SLICE_NS);
		if (!pthread_timedjoin_np(c->thread, NULL, &ts))
			return;
	}
	/* the rest is left out; the copy under way stops at its next
	 * chunk */
	__atomic_store_n(&c->cancel, 1, __ATOMIC_RELAXED);
	deadline(&ts, 1000000000ull);
	if (pthread_timedjoin_np(c->thread, NULL, &ts)) {
		/* a read that never returns (a hung NFS server): the
		 * thread keeps c, and the exit ends it */
		pthread_detach(c->thread);
		c->stuck = 1;
	}
}

void ap_bidcache__counts(struct ap_bidcache *c, struct ap_bidcache_counts *n)
{
	memset(n, 0, sizeof(*n));
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	*n = c->counts;
	pthread_mutex_unlock(&c->lock);
}

void ap_bidcache__free(struct ap_bidcache *c)
{
	if (!c)
		return;
	ap_bidcache__finish(c, 0, NULL);
	if (c->stuck)
		return;
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
