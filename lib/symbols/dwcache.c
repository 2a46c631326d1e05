// SPDX-License-Identifier: GPL-2.0
/*
 * The debug cache (dwcache.h).  The copy is the file as it is, with each
 * compressed section's inflated bytes appended and its section header
 * pointed at them, then a new section header table: program headers,
 * notes (the build-id) and every other section stay where they were.
 * Entries are written to a temporary file made O_EXCL, mode 0600, synced
 * and renamed into place, so that an entry found is whole; a found entry
 * is used only if it carries the build-id asked for.  The temporary file
 * is given its whole size before a byte is written, under the directory's
 * lock (flock of DIR) with the eviction that makes room for it: reports
 * making entries at once each count the others' whole.
 */
#include "symbols/dwcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include "record/bidcache.h"
#include "symbols/buildid.h"
#include "util/num.h"
#include "util/safefile.h"

/* bounds on what one file may make us write (dwcache.h) */
#define MAX_SECTION	(1ull << 30)
#define MAX_TOTAL	(4ull << 30)
/* deflate's best ratio is 1032:1 (zlib's FAQ); a little for the stream's
 * own header and trailer */
#define MAX_RATIO	1032
#define RATIO_SLACK	1024

#define IBUF_SIZE	(64 * 1024)
#define OBUF_SIZE	(256 * 1024)

int ap_dwcache__limits(struct ap_dwcache_limits *l, const char **bad)
{
	const struct {
		const char *env;
		uint64_t *f;
		uint64_t def;
	} vars[] = {
		{ "APERTURE_DEBUG_CACHE_SIZE", &l->size, AP_DWCACHE_SIZE },
		{ "APERTURE_DEBUG_CACHE_FILES", &l->files, AP_DWCACHE_FILES },
		{ "APERTURE_DEBUG_INFLATE", &l->inflate, AP_DWCACHE_INFLATE },
	};
	unsigned long long n;
	uint64_t val;
	size_t i;
	int err = 0, bad_val;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i].env);
		uint64_t *f = vars[i].f;

		if (*f)
			continue;
		*f = vars[i].def;
		if (!v || !*v)
			continue;
		/* a count, or a size with its unit */
		if (f == &l->files) {
			bad_val = ap_parse_u64(v, 1, 1000000, &n);
			val = n;
		} else {
			bad_val = ap_parse_size(v, 1, UINT64_MAX, &val);
		}
		if (bad_val) {
			*bad = vars[i].env;
			err = -EINVAL;
			continue;
		}
		*f = val;
	}
	return err;
}

int ap_dwcache__dir(char *buf, size_t len)
{
	const char *env = getenv("APERTURE_DEBUG_CACHE");
	int n;

	if (env && !strcmp(env, "off"))
		return -ENOENT;
	if (!env || *env != '/')
		return ap_user_cache_dir("debug", buf, len);
	n = snprintf(buf, len, "%s", env);
	return n > 0 && (size_t)n < len ? 0 : -ENOENT;
}

/* all of len at off, read (wr 0) into buf or written from it */
static int pio_all(int fd, char *p, size_t len, uint64_t off, int wr)
{
	ssize_t r;

	while (len) {
		r = wr ? pwrite(fd, p, len, (off_t)off) :
			 pread(fd, p, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return pio_all(fd, buf, len, off, 0);
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	return pio_all(fd, (char *)buf, len, off, 1);
}

static int is_compressed(const Elf64_Shdr *sh)
{
	return (sh->sh_flags & SHF_COMPRESSED) && sh->sh_type != SHT_NOBITS;
}

/* a 64-bit ELF file of this machine's byte order, its headers checked
 * against its size: 0, -ENODATA (another kind: used as it is), -EINVAL */
static int read_headers(int fd, Elf64_Ehdr *eh, Elf64_Shdr **out,
			uint64_t *fsize)
{
	Elf64_Shdr *sh;
	struct stat st;
	int err;

	*out = NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh))
		return -ENODATA;
	*fsize = (uint64_t)st.st_size;
	err = pread_all(fd, eh, sizeof(*eh), 0);
	if (err)
		return err;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
#else
	    eh->e_ident[EI_DATA] != ELFDATA2MSB ||
#endif
	    !eh->e_shnum || eh->e_shnum >= SHN_LORESERVE)
		return -ENODATA;
	if (eh->e_shentsize != sizeof(*sh) || eh->e_shoff > *fsize ||
	    *fsize - eh->e_shoff < (uint64_t)eh->e_shnum * sizeof(*sh))
		return -EINVAL;
	sh = calloc(eh->e_shnum, sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	err = pread_all(fd, sh, eh->e_shnum * sizeof(*sh), eh->e_shoff);
	if (err) {
		free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

/* the bytes the compressed sections inflate to, each checked; 0 when
 * none is compressed, -ENODATA for a compression other than zlib's */
static int64_t check_sections(int fd, const Elf64_Ehdr *eh,
			      const Elf64_Shdr *sh, uint64_t fsize, int *bad,
			      uint64_t *claim)
{
	uint64_t total = 0;
	Elf64_Chdr ch;
	int i, err;

	for (i = 0; i < eh->e_shnum; i++) {
		if (!is_compressed(&sh[i]))
			continue;
		if (sh[i].sh_offset > fsize ||
		    sh[i].sh_size > fsize - sh[i].sh_offset ||
		    sh[i].sh_size < sizeof(ch))
			return -EINVAL;
		err = pread_all(fd, &ch, sizeof(ch), sh[i].sh_offset);
		if (err)
			return err;
		if (ch.ch_type != ELFCOMPRESS_ZLIB)
			return -ENODATA;
		*bad = i;
		*claim = ch.ch_size;
		if (ch.ch_size > MAX_SECTION ||
		    ch.ch_size > (sh[i].sh_size - sizeof(ch)) * MAX_RATIO +
				 RATIO_SLACK)
			return -EFBIG;
		total += ch.ch_size;
		if (total > MAX_TOTAL) {
			*claim = total;
			*bad = -1;
			return -EFBIG;
		}
	}
	return (int64_t)total;
}

int64_t ap_dwcache__check(int fd, int *bad, uint64_t *claim)
{
	Elf64_Shdr *sh;
	Elf64_Ehdr eh;
	uint64_t fsize;
	int64_t ret;

	*bad = -1;
	*claim = 0;
	ret = read_headers(fd, &eh, &sh, &fsize);
	if (ret)
		return ret == -ENODATA ? 0 : ret;
	ret = check_sections(fd, &eh, sh, fsize, bad, claim);
	free(sh);
	return ret == -ENODATA ? 0 : ret;
}

/* inflates compressed section sh (size bytes once inflated) into out at
 * off, through fixed buffers: a claim is believed only as far as the
 * stream bears it out */
static int inflate_section(int in, int out, const Elf64_Shdr *sh,
			   uint64_t size, uint64_t off)
{
	uint64_t ioff = sh->sh_offset + sizeof(Elf64_Chdr);
	uint64_t iend = sh->sh_offset + sh->sh_size, done = 0;
	unsigned char *ibuf, *obuf;
	z_stream zs = { 0 };
	int ret = Z_OK, err = 0;
	size_t got;

	ibuf = malloc(IBUF_SIZE);
	obuf = malloc(OBUF_SIZE);
	if (!ibuf || !obuf || inflateInit(&zs) != Z_OK) {
		free(ibuf);
		free(obuf);
		return -ENOMEM;
	}
	while (ret != Z_STREAM_END) {
		if (!zs.avail_in) {
			size_t n = iend - ioff < IBUF_SIZE ? iend - ioff :
							     IBUF_SIZE;

			if (!n) {
				err = -EINVAL;	/* the stream is cut short */
				break;
			}
			err = pread_all(in, ibuf, n, ioff);
			if (err)
				break;
			ioff += n;
			zs.next_in = ibuf;
			zs.avail_in = (uInt)n;
		}
		zs.next_out = obuf;
		zs.avail_out = OBUF_SIZE;
		ret = inflate(&zs, Z_NO_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END) {
			err = -EINVAL;
			break;
		}
		got = OBUF_SIZE - zs.avail_out;
		if (got > size - done) {
			err = -EINVAL;	/* more than its header said */
			break;
		}
		err = pwrite_all(out, obuf, got, off + done);
		if (err)
			break;
		done += got;
	}
	inflateEnd(&zs);
	free(ibuf);
	free(obuf);
	if (!err && done != size)
		err = -EINVAL;
	return err;
}

/* the copy's section headers (sh, from in's sh0) and its size: each
 * compressed section's inflated bytes after the file, aligned, then the
 * section header table */
static int layout_copy(int in, const Elf64_Ehdr *eh, const Elf64_Shdr *sh0,
		       Elf64_Shdr *sh, uint64_t fsize, uint64_t *size)
{
	uint64_t end = fsize;
	int i, err;

	memcpy(sh, sh0, eh->e_shnum * sizeof(*sh));
	for (i = 0; i < eh->e_shnum; i++) {
		uint64_t align;
		Elf64_Chdr ch;

		if (!is_compressed(&sh[i]))
			continue;
		err = pread_all(in, &ch, sizeof(ch), sh[i].sh_offset);
		if (err)
			return err;
		align = ch.ch_addralign &&
			!(ch.ch_addralign & (ch.ch_addralign - 1)) &&
			ch.ch_addralign <= 4096 ? ch.ch_addralign : 8;
		end = (end + align - 1) & ~(align - 1);
		sh[i].sh_offset = end;
		sh[i].sh_size = ch.ch_size;
		sh[i].sh_addralign = align;
		sh[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		end += ch.ch_size;
	}
	end = (end + 7) & ~7ull;
	*size = end + eh->e_shnum * sizeof(*sh);
	return 0;
}

/* the copy of in laid out as sh (layout_copy), written to out */
static int write_copy(int in, int out, const Elf64_Ehdr *eh0,
		      const Elf64_Shdr *sh0, const Elf64_Shdr *sh,
		      uint64_t fsize, uint64_t size)
{
	Elf64_Ehdr eh = *eh0;
	uint64_t off = 0;
	char *buf = malloc(IBUF_SIZE);
	int i, err = 0;

	if (!buf)
		return -ENOMEM;
	while (off < fsize && !err) {
		size_t n = fsize - off < IBUF_SIZE ? fsize - off : IBUF_SIZE;

		err = pread_all(in, buf, n, off);
		if (!err)
			err = pwrite_all(out, buf, n, off);
		off += n;
	}
	free(buf);
	for (i = 0; i < eh.e_shnum && !err; i++)
		if (is_compressed(&sh0[i]))
			err = inflate_section(in, out, &sh0[i], sh[i].sh_size,
					      sh[i].sh_offset);
	eh.e_shoff = size - eh.e_shnum * sizeof(*sh);
	if (!err)
		err = pwrite_all(out, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff);
	if (!err)
		err = pwrite_all(out, &eh, sizeof(eh), 0);
	return err;
}

/* a directory of the user's own that no one else may write, made 0700
 * when missing, opened without following a link; its descriptor or
 * -errno.  One that exists keeps its mode: the cache may be pointed at a
 * directory that is not ours to close (APERTURE_DEBUG_CACHE=/tmp as
 * root). */
static int own_dir(int at, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0700) && errno != EEXIST)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? -ELOOP : -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* DIR, its missing parents made 0700 (as XDG's cache directory) */
static int open_cache_dir(const char *dir)
{
	char path[PATH_MAX];
	char *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return own_dir(AT_FDCWD, path);
}

/* fd is a file of ours with build-id id */
static int is_entry(int fd, const uint8_t *id, size_t n)
{
	uint8_t got[AP_BUILD_ID_MAX];
	char fdpath[64];
	struct stat st;
	int len;

	if (fstat(fd, &st) || st.st_uid != geteuid())
		return 0;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	len = ap_read_build_id(fdpath, got, sizeof(got));
	return len == (int)n && !memcmp(got, id, n);
}

/* "cdef....lock" for entry "cdef....debug" (or its "cdef....debug.*.tmp") */
static int lock_name(const char *entry, char *buf, size_t len)
{
	const char *dot = strstr(entry, ".debug");

	if (!dot || (size_t)snprintf(buf, len, "%.*s.lock", (int)(dot - entry),
				     entry) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * The lock of entry name in directory sfd, held (LOCK_EX; nb: or
 * -EWOULDBLOCK at once): its descriptor.  A lock file removed while we
 * waited (its entry evicted) is not the one there now: taken again.
 */
static int entry_lock(int sfd, const char *name, int nb)
{
	char lname[NAME_MAX + 1];
	struct stat a, b;
	int fd, err;

	err = lock_name(name, lname, sizeof(lname));
	if (err)
		return err;
	for (;;) {
		fd = openat(sfd, lname, O_RDONLY | O_CREAT | O_NOFOLLOW |
					O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &a) || !S_ISREG(a.st_mode)) {
			close(fd);
			return -EINVAL;
		}
		while (flock(fd, LOCK_EX | (nb ? LOCK_NB : 0)))
			if (errno != EINTR) {
				err = -errno;
				close(fd);
				return err;
			}
		if (!fstatat(sfd, lname, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
}

/* releases the lock of entry name taken by entry_lock: its file removed
 * first, so that none are left behind (one waiting for it takes the one
 * made after) */
static void entry_unlock(int sfd, const char *name, int lfd)
{
	char lname[NAME_MAX + 1];

	if (!lock_name(name, lname, sizeof(lname)))
		unlinkat(sfd, lname, 0);
	close(lfd);
}

/* a file of the cache: an entry or a temporary one, 0600 and ours */
struct centry {
	int sub;			/* index in the subdirectories */
	char name[NAME_MAX + 1];
	uint64_t size;
	struct timespec used;		/* atime: set on each use */
	bool tmp;
};

static int by_use(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 :
	       x->used.tv_nsec > y->used.tv_nsec;
}

/* removes entry e (or a temporary file no report is writing): 1 when
 * done, 0 when a report holds its lock */
static int centry_remove(const int *subs, const struct centry *e)
{
	int lfd = entry_lock(subs[e->sub], e->name, 1);

	if (lfd < 0)
		return 0;
	unlinkat(subs[e->sub], e->name, 0);
	entry_unlock(subs[e->sub], e->name, lfd);
	return 1;
}

static int is_hex2(const char *n)
{
	return strlen(n) == 2 && strspn(n, "0123456789abcdef") == 2;
}

/* the entries and temporary files of DIR/ab (sub, open at subs[nsub]) */
static int scan_sub(int *subs, int nsub, struct centry **v, size_t *nr,
		    size_t *cap)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd = dup(subs[nsub]);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		const char *dot = strstr(de->d_name, ".debug");
		bool tmp;

		if (!dot || dot == de->d_name)
			continue;
		tmp = dot[6] == '.' && strlen(dot) > 10 &&
		      !strcmp(dot + strlen(dot) - 4, ".tmp");
		if ((dot[6] && !tmp) ||
		    fstatat(subs[nsub], de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 07777) != 0600)
			continue;
		if (*nr == *cap) {
			size_t n = *cap ? *cap * 2 : 64;
			struct centry *p = realloc(*v, n * sizeof(*p));

			if (!p) {
				closedir(d);
				return -ENOMEM;
			}
			*v = p;
			*cap = n;
		}
		(*v)[*nr].sub = nsub;
		snprintf((*v)[*nr].name, sizeof((*v)[*nr].name), "%s",
			 de->d_name);
		(*v)[*nr].size = (uint64_t)st.st_size;
		(*v)[*nr].used = st.st_atim;
		(*v)[*nr].tmp = tmp;
		(*nr)++;
	}
	closedir(d);
	return 0;
}

/*
 * Room in the cache at dfd (its lock held) for one more entry of need
 * bytes: the least recently used entries removed until the others and
 * it keep within l; temporary files left by reports that died removed,
 * those being written counted whole (they have their size).  0, or
 * -E2BIG when the entries in use leave no room.
 */
static int make_room(int dfd, const struct ap_dwcache_limits *l,
		     uint64_t need)
{
	struct centry *v = NULL;
	size_t nr = 0, cap = 0, i;
	uint64_t total = 0, count = 0;
	int subs[256], nsub = 0, err = 0;
	struct dirent *de;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d)) && nsub < 256 && !err) {
		if (!is_hex2(de->d_name))
			continue;
		subs[nsub] = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
						     O_NOFOLLOW | O_CLOEXEC);
		if (subs[nsub] < 0)
			continue;
		err = scan_sub(subs, nsub, &v, &nr, &cap);
		nsub++;
	}
	closedir(d);
	for (i = 0; i < nr && !err; i++) {
		/* a temporary file no one writes is a dead report's */
		if (v[i].tmp && centry_remove(subs, &v[i])) {
			v[i].size = 0;
			v[i].name[0] = '\0';
			continue;
		}
		total += v[i].size;
		count++;
	}
	/* an empty cache has no table: qsort takes no NULL */
	if (!err && nr)
		qsort(v, nr, sizeof(*v), by_use);
	for (i = 0; i < nr && !err &&
		    (total + need > l->size || count + 1 > l->files); i++) {
		if (!v[i].name[0] || v[i].tmp || !centry_remove(subs, &v[i]))
			continue;
		total -= v[i].size;
		count--;
	}
	if (!err && (total + need > l->size || count + 1 > l->files))
		err = -E2BIG;
	while (nsub--)
		close(subs[nsub]);
	free(v);
	return err;
}

/* the temporary file of a new entry in sfd, need bytes long, room made
 * for it in the cache at dfd */
static int make_tmp(int dfd, int sfd, const char *name,
		    const struct ap_dwcache_limits *l, uint64_t need,
		    char *tmp, size_t len)
{
	static unsigned int seq;
	int out, err;

	if ((size_t)snprintf(tmp, len, "%s.%d.%u.tmp", name, (int)getpid(),
			     seq++) >= len)
		return -ENAMETOOLONG;
	while (flock(dfd, LOCK_EX))
		if (errno != EINTR)
			return -errno;
	err = make_room(dfd, l, need);
	if (err)
		goto out;
	out = openat(sfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	if (ftruncate(out, (off_t)need)) {
		err = -errno;
		close(out);
		unlinkat(sfd, tmp, 0);
		goto out;
	}
	err = out;
out:
	flock(dfd, LOCK_UN);
	return err;
}

/* an entry found in the cache, used now: evicted last */
static void touch(int fd)
{
	const struct timespec ts[2] = {
		{ .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_OMIT },
	};

	futimens(fd, ts);
}

int ap_dwcache__open(const char *dir, const struct ap_dwcache_limits *l,
		     uint64_t inflate_left, int fd, const uint8_t *id,
		     size_t n, char *path, size_t len, uint64_t *inflated)
{
	char tmp[NAME_MAX + 1];
	const char *name;
	Elf64_Shdr *sh = NULL, *nsh = NULL;
	struct statvfs vfs;
	int dfd, sfd = -1, lfd = -1, cfd, out, bad;
	uint64_t fsize, claim, avail, keep, need;
	int64_t total;
	Elf64_Ehdr eh;
	size_t l2;
	int err;

	*inflated = 0;
	if (ap_bidcache__path(dir, id, n, path, len))
		return -ENAMETOOLONG;
	l2 = strlen(path);
	if (l2 + sizeof(".debug") > len)
		return -ENAMETOOLONG;
	memcpy(path + l2, ".debug", sizeof(".debug"));
	name = strrchr(path, '/') + 1;

	dfd = open_cache_dir(dir);
	if (dfd < 0)
		return dfd;
	/* DIR/ab */
	path[name - path - 1] = '\0';
	sfd = own_dir(dfd, strrchr(path, '/') + 1);
	path[name - path - 1] = '/';
	if (sfd < 0) {
		err = sfd;
		goto out;
	}
	/* one report makes the entry; the others wait for it here */
	lfd = entry_lock(sfd, name, 0);
	if (lfd < 0) {
		err = lfd;
		goto out;
	}

	cfd = ap_open_regular(path, O_NOFOLLOW);
	if (cfd >= 0) {
		if (is_entry(cfd, id, n)) {
			touch(cfd);
			err = cfd;
			goto out;
		}
		/* another build-id, or not ours: replaced below */
		close(cfd);
	}

	err = read_headers(fd, &eh, &sh, &fsize);
	if (err)
		goto out;
	total = check_sections(fd, &eh, sh, fsize, &bad, &claim);
	if (total <= 0) {
		err = total ? (int)total : -ENODATA;
		goto out;
	}
	if ((uint64_t)total > inflate_left) {
		err = -EDQUOT;
		goto out;
	}
	nsh = malloc(eh.e_shnum * sizeof(*nsh));
	if (!nsh) {
		err = -ENOMEM;
		goto out;
	}
	err = layout_copy(fd, &eh, sh, nsh, fsize, &need);
	if (err)
		goto out;
	if (need > l->size) {
		err = -E2BIG;
		goto out;
	}
	/* what the copy takes must leave a tenth of the filesystem free */
	if (fstatvfs(sfd, &vfs)) {
		err = -errno;
		goto out;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	keep = (uint64_t)vfs.f_blocks * vfs.f_frsize / 10;
	if (avail < keep || avail - keep < need) {
		err = -ENOSPC;
		goto out;
	}

	out = make_tmp(dfd, sfd, name, l, need, tmp, sizeof(tmp));
	if (out < 0) {
		err = out;
		goto out;
	}
	err = write_copy(fd, out, &eh, sh, nsh, fsize, need);
	if (!err && fsync(out))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	if (!err && renameat(sfd, tmp, sfd, name))
		err = -errno;
	if (err) {
		unlinkat(sfd, tmp, 0);
		goto out;
	}
	fsync(sfd);
	cfd = ap_open_regular(path, O_NOFOLLOW);
	if (cfd < 0) {
		err = cfd;
		goto out;
	}
	if (!is_entry(cfd, id, n)) {
		close(cfd);
		err = -EIO;
		goto out;
	}
	*inflated = (uint64_t)total;
	err = cfd;
out:
	free(sh);
	free(nsh);
	if (lfd >= 0)
		entry_unlock(sfd, name, lfd);
	if (sfd >= 0)
		close(sfd);
	close(dfd);
	return err;
}
