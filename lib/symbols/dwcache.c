// SPDX-License-Identifier: GPL-2.0
/*
 * The debug cache (dwcache.h).  The copy is the file as it is, with each
 * compressed section's inflated bytes appended and its section header
 * pointed at them, then a new section header table: program headers,
 * notes (the build-id) and every other section stay where they were.
 * Entries are written to a temporary file made O_EXCL, mode 0600, synced
 * and renamed into place, so that an entry found is whole; a found entry
 * is used only if it carries the build-id asked for.
 */
#include "symbols/dwcache.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include "record/bidcache.h"
#include "symbols/buildid.h"
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

/* the copy of in, its compressed sections inflated, written to out */
static int write_copy(int in, int out, const Elf64_Ehdr *eh0,
		      const Elf64_Shdr *sh0, uint64_t fsize)
{
	Elf64_Shdr *sh = malloc(eh0->e_shnum * sizeof(*sh));
	Elf64_Ehdr eh = *eh0;
	uint64_t end = fsize, off = 0;
	char *buf = malloc(IBUF_SIZE);
	int i, err = 0;

	if (!sh || !buf) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(sh, sh0, eh0->e_shnum * sizeof(*sh));
	while (off < fsize && !err) {
		size_t n = fsize - off < IBUF_SIZE ? fsize - off : IBUF_SIZE;

		err = pread_all(in, buf, n, off);
		if (!err)
			err = pwrite_all(out, buf, n, off);
		off += n;
	}
	for (i = 0; i < eh.e_shnum && !err; i++) {
		uint64_t align;
		Elf64_Chdr ch;

		if (!is_compressed(&sh[i]))
			continue;
		err = pread_all(in, &ch, sizeof(ch), sh[i].sh_offset);
		if (err)
			break;
		align = ch.ch_addralign &&
			!(ch.ch_addralign & (ch.ch_addralign - 1)) &&
			ch.ch_addralign <= 4096 ? ch.ch_addralign : 8;
		end = (end + align - 1) & ~(align - 1);
		err = inflate_section(in, out, &sh[i], ch.ch_size, end);
		sh[i].sh_offset = end;
		sh[i].sh_size = ch.ch_size;
		sh[i].sh_addralign = align;
		sh[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		end += ch.ch_size;
	}
	end = (end + 7) & ~7ull;
	eh.e_shoff = end;
	if (!err)
		err = pwrite_all(out, sh, eh.e_shnum * sizeof(*sh), end);
	if (!err)
		err = pwrite_all(out, &eh, sizeof(eh), 0);
out:
	free(buf);
	free(sh);
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

int ap_dwcache__open(const char *dir, int fd, const uint8_t *id, size_t n,
		     char *path, size_t len, uint64_t *inflated)
{
	static unsigned int seq;
	char tmp[NAME_MAX + 1];
	const char *name;
	Elf64_Shdr *sh = NULL;
	struct statvfs vfs;
	int dfd, sfd = -1, cfd, out, bad;
	uint64_t fsize, claim, avail, keep;
	int64_t total;
	Elf64_Ehdr eh;
	size_t l;
	int err;

	*inflated = 0;
	if (ap_bidcache__path(dir, id, n, path, len))
		return -ENAMETOOLONG;
	l = strlen(path);
	if (l + sizeof(".debug") > len)
		return -ENAMETOOLONG;
	memcpy(path + l, ".debug", sizeof(".debug"));
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

	cfd = ap_open_regular(path, O_NOFOLLOW);
	if (cfd >= 0) {
		if (is_entry(cfd, id, n)) {
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
	/* what the copy takes must leave a tenth of the filesystem free */
	if (fstatvfs(sfd, &vfs)) {
		err = -errno;
		goto out;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	keep = (uint64_t)vfs.f_blocks * vfs.f_frsize / 10;
	if (avail < keep || avail - keep < fsize + (uint64_t)total) {
		err = -ENOSPC;
		goto out;
	}

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.%u.tmp", name,
			     (int)getpid(), seq++) >= sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	out = openat(sfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	err = write_copy(fd, out, &eh, sh, fsize);
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
	if (sfd >= 0)
		close(sfd);
	close(dfd);
	return err;
}
