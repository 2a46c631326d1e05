// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables on disk by build-id (tabcache.h).  An entry is read as
 * hostile input: its size, counts and CRC are checked, and a file that is
 * not a whole entry of the build-id asked for is refused.
 */
#include "unwind/tabcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "record/bidcache.h"
#include "util/safefile.h"
#include "util/vec.h"

/* 2: rows carry the rbx rule; a table kept without it is built again */
#define TAB_MAGIC	"APUWTAB2"

struct tab_hdr {
	char magic[8];
	uint8_t build_id[AP_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t nloads;
	uint32_t path_len;
	uint32_t flags;			/* AP_TABCACHE_* */
	uint32_t pad;
	uint64_t bad;
	uint64_t nr;
	struct ap_tabcache_load loads[AP_TABCACHE_LOADS];
};

int ap_tabcache__dir(char *buf, size_t len)
{
	const char *env = getenv("APERTURE_UNWIND_CACHE");

	if (env && !strcmp(env, "none"))
		return -ENOENT;
	if (env && *env == '/') {
		snprintf(buf, len, "%s", env);
		return strlen(env) < len ? 0 : -ENAMETOOLONG;
	}
	return ap_user_cache_dir("unwind", buf, len);
}

static int entry_path(const char *dir, const uint8_t *id, uint32_t n,
		      char *buf, size_t len)
{
	size_t off;
	uint32_t i;

	if (!n || n > AP_BUILD_ID_MAX)
		return -EINVAL;
	off = (size_t)snprintf(buf, len, "%s/", dir);
	for (i = 0; i < n && off + 3 <= len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%02x", id[i]);
	if (off + 5 > len)
		return -ENAMETOOLONG;
	snprintf(buf + off, len - off, ".tab");
	return 0;
}

static int write_all(int fd, const void *p, size_t n, uLong *crc)
{
	const char *c = p;

	*crc = crc32(*crc, p, (uInt)n);
	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int ap_tabcache__save(const char *dir, const struct ap_tabcache_entry *e)
{
	char path[AP_PATH_MAX + 64], tmp[AP_PATH_MAX + 96];
	struct tab_hdr h;
	uLong crc = crc32(0, NULL, 0);
	uint32_t c32;
	int fd, err;

	if (!e->nr || e->nr > AP_TABCACHE_ROWS ||
	    e->nloads > AP_TABCACHE_LOADS)
		return -EINVAL;
	err = entry_path(dir, e->build_id, e->build_id_len, path,
			 sizeof(path));
	if (err)
		return err;
	err = ap_mkdirs(path);
	if (err)
		return err;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TAB_MAGIC, sizeof(h.magic));
	memcpy(h.build_id, e->build_id, e->build_id_len);
	h.build_id_len = e->build_id_len;
	h.nloads = e->nloads;
	h.path_len = (uint32_t)strnlen(e->path, sizeof(e->path) - 1);
	h.flags = e->flags;
	h.bad = e->bad;
	h.nr = e->nr;
	memcpy(h.loads, e->loads, sizeof(h.loads));
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	err = write_all(fd, &h, sizeof(h), &crc);
	if (!err)
		err = write_all(fd, e->path, h.path_len, &crc);
	if (!err)
		err = write_all(fd, e->rows, e->nr * sizeof(*e->rows), &crc);
	c32 = (uint32_t)crc;
	if (!err)
		err = write_all(fd, &c32, sizeof(c32), &crc);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int read_all(int fd, void *p, size_t n, uLong *crc)
{
	char *c = p;
	size_t left = n;

	while (left) {
		ssize_t r = read(fd, c, left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EINVAL;
		c += r;
		left -= (size_t)r;
	}
	*crc = crc32(*crc, p, (uInt)n);
	return 0;
}

int ap_tabcache__load(const char *dir, const uint8_t *id, uint32_t n,
		      struct ap_tabcache_entry *e, int rows)
{
	char path[AP_PATH_MAX + 64];
	uLong crc = crc32(0, NULL, 0);
	struct tab_hdr h;
	struct stat st;
	uint32_t c32;
	int fd, err;

	e->rows = NULL;
	err = entry_path(dir, id, n, path, sizeof(path));
	if (err)
		return err;
	fd = ap_open_regular(path, O_NOFOLLOW);
	if (fd < 0)
		return -ENOENT;
	err = -EINVAL;
	if (fstat(fd, &st) || read_all(fd, &h, sizeof(h), &crc) ||
	    memcmp(h.magic, TAB_MAGIC, sizeof(h.magic)) ||
	    h.build_id_len != n || memcmp(h.build_id, id, n) ||
	    h.nloads > AP_TABCACHE_LOADS || h.path_len >= sizeof(e->path) ||
	    !h.nr || h.nr > AP_TABCACHE_ROWS ||
	    (uint64_t)st.st_size != sizeof(h) + h.path_len +
				    h.nr * sizeof(*e->rows) + sizeof(c32))
		goto out;
	memcpy(e->build_id, h.build_id, n);
	e->build_id_len = n;
	e->nloads = h.nloads;
	memcpy(e->loads, h.loads, sizeof(e->loads));
	e->flags = h.flags;
	e->bad = h.bad;
	e->nr = h.nr;
	if (read_all(fd, e->path, h.path_len, &crc))
		goto out;
	e->path[h.path_len] = '\0';
	if (!rows) {
		err = 0;
		goto out;
	}
	e->rows = malloc(h.nr * sizeof(*e->rows));
	if (!e->rows) {
		err = -ENOMEM;
		goto out;
	}
	if (read_all(fd, e->rows, h.nr * sizeof(*e->rows), &crc) ||
	    read(fd, &c32, sizeof(c32)) != sizeof(c32) ||
	    c32 != (uint32_t)crc)
		goto out;
	/* used now: the last to go when the cache is trimmed */
	futimens(fd, NULL);
	err = 0;
out:
	if (err) {
		free(e->rows);
		e->rows = NULL;
	}
	close(fd);
	return err;
}

struct dent {
	uint8_t id[AP_BUILD_ID_MAX];
	uint32_t n;
	int64_t mtime;			/* ns */
	uint64_t size;
};

static int by_recent(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : 0;
}

/* "<hex build-id>.tab" into d; 0 or -EINVAL */
static int parse_name(const char *name, struct dent *d)
{
	size_t len = strlen(name), i;

	if (len < 6 || len > 2 * AP_BUILD_ID_MAX + 4 || (len - 4) % 2 ||
	    strcmp(name + len - 4, ".tab"))
		return -EINVAL;
	for (i = 0; i < len - 4; i += 2) {
		unsigned int v;

		if (sscanf(name + i, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdef", name[i]) ||
		    !strchr("0123456789abcdef", name[i + 1]))
			return -EINVAL;
		d->id[i / 2] = (uint8_t)v;
	}
	d->n = (uint32_t)(len - 4) / 2;
	return 0;
}

int ap_tabcache__each(const char *dir, uint64_t bytes,
		      int (*fn)(void *ctx, const uint8_t *id, uint32_t n),
		      void *ctx)
{
	struct dent *v = NULL;
	size_t nr = 0, cap = 0, i;
	uint64_t total = 0;
	struct dirent *de;
	int dfd, stop = 0;
	DIR *d;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct dent e;
		struct stat st;

		if (parse_name(de->d_name, &e) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		e.mtime = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
		e.size = (uint64_t)st.st_size;
		if (ap_grow((void **)&v, &cap, nr, sizeof(*v), 64))
			break;
		v[nr++] = e;
	}
	qsort(v, nr, sizeof(*v), by_recent);
	for (i = 0; i < nr; i++) {
		char path[AP_PATH_MAX + 64];

		total += v[i].size;
		if (total <= bytes) {
			if (!stop)
				stop = fn(ctx, v[i].id, v[i].n);
			continue;
		}
		if (!entry_path(dir, v[i].id, v[i].n, path, sizeof(path)))
			unlink(path);
	}
	free(v);
	closedir(d);
	return 0;
}
