// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the separate debug file of an ELF file (debugfile.h).  The link
 * name and the paths come from a target's file: hostile input.  A name
 * with a '/' is refused, every candidate is opened as a regular file only
 * (safefile.h), and nothing is used that is not provably the file's.
 */
#include "symbols/debugfile.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/buildid.h"
#include "util/safefile.h"

#define BUILD_ID_MAX	64

struct want {
	uint8_t id[BUILD_ID_MAX];
	int id_len;		/* 0: the file has no build-id */
	uint32_t crc;		/* the debuglink's, when id_len is 0 */
};

/* the name and CRC of elf's .gnu_debuglink; 0 or -ENOENT */
static int debuglink(Elf *elf, char *name, size_t len, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n;
	const char *p;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *sn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -ENOENT;
		p = d->d_buf;
		n = strnlen(p, d->d_size);
		/* name, NUL, padding to 4, then the CRC */
		if (!n || n >= len || (n + 4) / 4 * 4 + 4 > d->d_size ||
		    memchr(p, '/', n) || !strcmp(p, ".") || !strcmp(p, ".."))
			return -ENOENT;
		memcpy(name, p, n + 1);
		memcpy(crc, p + (n + 4) / 4 * 4, sizeof(*crc));
		if (elf_getident(elf, NULL)[EI_DATA] != ELFDATA2LSB)
			*crc = __builtin_bswap32(*crc);
		return 0;
	}
	return -ENOENT;
}

static uint32_t file_crc(int fd)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	return (uint32_t)crc;
}

/* fd of path when it is the debug file w asks for, else -1 */
static int try_candidate(const char *path, const struct want *w)
{
	uint8_t id[BUILD_ID_MAX];
	int fd, n = -1;
	Elf *elf;

	fd = ap_open_regular(path, 0);
	if (fd < 0)
		return -1;
	if (!w->id_len) {
		if (file_crc(fd) == w->crc)
			return fd;
		close(fd);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = ap_elf__build_id(elf, id, sizeof(id));
	elf_end(elf);
	if (n == w->id_len && !memcmp(id, w->id, n))
		return fd;
	close(fd);
	return -1;
}

int ap_debugfile__open(Elf *elf, const char *path, const char *debugdir)
{
	char cand[PATH_MAX], name[256], dir[PATH_MAX];
	const char *slash;
	struct want w;
	int fd, i, n;

	if (!debugdir)
		debugdir = AP_DEBUGDIR;
	memset(&w, 0, sizeof(w));
	n = ap_elf__build_id(elf, w.id, sizeof(w.id));
	if (n > 0) {
		char hex[2 * BUILD_ID_MAX + 1];

		w.id_len = n;
		for (i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", w.id[i]);
		n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug",
			     debugdir, hex, hex + 2);
		if (n > 0 && (size_t)n < sizeof(cand) &&
		    (fd = try_candidate(cand, &w)) >= 0)
			return fd;
	}
	if (debuglink(elf, name, sizeof(name), &w.crc))
		return -ENOENT;
	if (!path || path[0] != '/' || !(slash = strrchr(path, '/')))
		return -ENOENT;
	n = (int)(slash - path);
	if ((size_t)n >= sizeof(dir))
		return -ENOENT;
	memcpy(dir, path, n);
	dir[n] = '\0';
	for (i = 0; i < 3; i++) {
		if (i == 0)
			n = snprintf(cand, sizeof(cand), "%s/%s", dir, name);
		else if (i == 1)
			n = snprintf(cand, sizeof(cand), "%s/.debug/%s", dir,
				     name);
		else
			n = snprintf(cand, sizeof(cand), "%s%s/%s", debugdir,
				     dir, name);
		/* the link may name the file itself: it has no CFI */
		if (n <= 0 || (size_t)n >= sizeof(cand) || !strcmp(cand, path))
			continue;
		fd = try_candidate(cand, &w);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}
