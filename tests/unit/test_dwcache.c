// SPDX-License-Identifier: GPL-2.0
/*
 * The debug cache (lib/symbols/dwcache.h) on small ELF files written here: a
 * build-id note and one zlib-compressed .debug_info.  What a compressed
 * section may claim, the copy's contents, modes and reuse, and what is
 * refused: links, entries of another build-id, streams that do not give
 * what they claim; the bounds on the cache and on what is inflated, and
 * eviction by last use.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/dwcache.h"

#define DATA_LEN	65536

static const struct ap_dwcache_limits lim = {
	.size = 1ull << 30, .files = 10, .inflate = 1ull << 30,
};
static const uint8_t bid[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				 11, 12, 13, 14, 15, 16, 17, 18 };
static char tmpdir[64];
static unsigned char data[DATA_LEN];

static void setup(void)
{
	size_t i;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/aperture-dwcache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	for (i = 0; i < DATA_LEN; i++)
		data[i] = (unsigned char)(i * 7 / 13);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * Writes name in tmpdir: an ELF file whose .debug_info is data,
 * compressed, with ch_size claim (0: the truth) and the compressed
 * section's offset moved by bad_off; returns an open descriptor.
 */
static int write_elf(const char *name, uint64_t claim, uint64_t bad_off)
{
	static const char shstr[] = "\0.note.gnu.build-id\0.debug_info\0.shstrtab";
	unsigned char *z, buf[1 << 17];
	uLongf zlen = compressBound(DATA_LEN);
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[4] = { { 0 } };
	Elf64_Chdr ch = { 0 };
	Elf64_Nhdr nh = { 4, sizeof(bid), NT_GNU_BUILD_ID };
	char path[128];
	size_t off;
	int fd;

	z = malloc(zlen);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(compress(z, &zlen, data, DATA_LEN), Z_OK);
	memset(buf, 0, sizeof(buf));

	off = sizeof(eh);
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_NOTE;
	sh[1].sh_flags = SHF_ALLOC;
	sh[1].sh_offset = off;
	sh[1].sh_size = sizeof(nh) + 4 + sizeof(bid);
	sh[1].sh_addralign = 4;
	memcpy(buf + off, &nh, sizeof(nh));
	memcpy(buf + off + sizeof(nh), "GNU", 4);
	memcpy(buf + off + sizeof(nh) + 4, bid, sizeof(bid));
	off = (off + sh[1].sh_size + 7) & ~7ul;

	ch.ch_type = ELFCOMPRESS_ZLIB;
	ch.ch_size = claim ? claim : DATA_LEN;
	ch.ch_addralign = 1;
	sh[2].sh_name = 20;
	sh[2].sh_type = SHT_PROGBITS;
	sh[2].sh_flags = SHF_COMPRESSED;
	sh[2].sh_offset = off + bad_off;
	sh[2].sh_size = sizeof(ch) + zlen;
	sh[2].sh_addralign = 8;
	memcpy(buf + off, &ch, sizeof(ch));
	memcpy(buf + off + sizeof(ch), z, zlen);
	off += sh[2].sh_size;

	sh[3].sh_name = 32;
	sh[3].sh_type = SHT_STRTAB;
	sh[3].sh_offset = off;
	sh[3].sh_size = sizeof(shstr);
	sh[3].sh_addralign = 1;
	memcpy(buf + off, shstr, sizeof(shstr));
	off = (off + sizeof(shstr) + 7) & ~7ul;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = off;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 4;
	eh.e_shstrndx = 3;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + off, sh, sizeof(sh));
	off += sizeof(sh);
	ck_assert_uint_lt(off, sizeof(buf));
	free(z);

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, off), (ssize_t)off);
	return fd;
}

START_TEST(test_check_bounds)
{
	uint64_t claim;
	int fd, bad;

	fd = write_elf("ok", 0, 0);
	ck_assert_int_eq(ap_dwcache__check(fd, &bad, &claim), DATA_LEN);
	close(fd);
	/* far more than a few hundred bytes of deflate can give */
	fd = write_elf("ratio", 512ull << 20, 0);
	ck_assert_int_eq(ap_dwcache__check(fd, &bad, &claim), -EFBIG);
	ck_assert_int_eq(bad, 2);
	ck_assert_uint_eq(claim, 512ull << 20);
	close(fd);
	fd = write_elf("huge", 1ull << 40, 0);
	ck_assert_int_eq(ap_dwcache__check(fd, &bad, &claim), -EFBIG);
	close(fd);
	/* the section past the end of the file */
	fd = write_elf("past", 0, 1 << 20);
	ck_assert_int_eq(ap_dwcache__check(fd, &bad, &claim), -EINVAL);
	close(fd);
	/* not ELF: nothing to say */
	fd = open("/proc/self/status", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ap_dwcache__check(fd, &bad, &claim), 0);
	close(fd);
}
END_TEST

/* the bytes of section .debug_info of the file open at fd, and whether it
 * is compressed */
static void debug_info(int fd, unsigned char *out, size_t *len, int *comp)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	*len = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
		if (strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".debug_info"))
			continue;
		*comp = !!(sh.sh_flags & SHF_COMPRESSED);
		if (*comp)
			ck_assert_int_eq(elf_compress(scn, 0, 0), 1);
		d = elf_getdata(scn, NULL);
		ck_assert_ptr_nonnull(d);
		memcpy(out, d->d_buf, d->d_size);
		*len = d->d_size;
	}
	elf_end(elf);
}

START_TEST(test_open_copy)
{
	static unsigned char got[DATA_LEN];
	char dir[128], path[256], sub[320];
	uint64_t inflated;
	struct stat st;
	size_t len;
	int fd, cfd, comp;

	snprintf(dir, sizeof(dir), "%s/cache/debug", tmpdir);
	fd = write_elf("ok", 0, 0);
	cfd = ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid, sizeof(bid),
			       path, sizeof(path), &inflated);
	ck_assert_int_ge(cfd, 0);
	ck_assert_uint_eq(inflated, DATA_LEN);
	snprintf(sub, sizeof(sub), "%s/ab/cd0102030405060708090a0b0c0d0e0f101112.debug", dir);
	ck_assert_str_eq(path, sub);
	debug_info(cfd, got, &len, &comp);
	ck_assert_int_eq(comp, 0);
	ck_assert_uint_eq(len, DATA_LEN);
	ck_assert_int_eq(memcmp(got, data, DATA_LEN), 0);
	close(cfd);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	snprintf(sub, sizeof(sub), "%s/ab", dir);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);

	/* again: read, not made */
	cfd = ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid, sizeof(bid),
			       path, sizeof(path), &inflated);
	ck_assert_int_ge(cfd, 0);
	ck_assert_uint_eq(inflated, 0);
	close(cfd);

	/* an entry of another build-id is made again */
	ck_assert_int_eq(truncate(path, 100), 0);
	cfd = ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid, sizeof(bid),
			       path, sizeof(path), &inflated);
	ck_assert_int_ge(cfd, 0);
	ck_assert_uint_eq(inflated, DATA_LEN);
	close(cfd);
	close(fd);
}
END_TEST

START_TEST(test_open_refused)
{
	char dir[128], path[256], sub[320], other[160];
	uint64_t inflated;
	int fd;

	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	/* more than the stream gives, less than it gives */
	fd = write_elf("more", DATA_LEN + 1, 0);
	ck_assert_int_eq(ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -EINVAL);
	close(fd);
	fd = write_elf("less", DATA_LEN - 1, 0);
	ck_assert_int_eq(ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -EINVAL);
	close(fd);
	fd = write_elf("huge", 1ull << 40, 0);
	ck_assert_int_eq(ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -EFBIG);
	close(fd);
	/* nothing left behind: no entry, no temporary file */
	snprintf(sub, sizeof(sub), "rmdir %s/cache/ab", tmpdir);
	ck_assert_int_eq(system(sub), 0);

	/* a link where a directory goes is not followed */
	snprintf(other, sizeof(other), "%s/other", tmpdir);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/ab", dir);
	ck_assert_int_eq(symlink(other, sub), 0);
	fd = write_elf("ok", 0, 0);
	ck_assert_int_eq(ap_dwcache__open(dir, &lim, UINT64_MAX, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -ELOOP);
	close(fd);
	snprintf(sub, sizeof(sub), "rmdir %s", other);
	ck_assert_int_eq(system(sub), 0);
}
END_TEST

/* a fake entry DIR/SUB/NAME.debug of size bytes, last used at atime */
static void fake_entry(const char *dir, const char *sub, const char *name,
		       size_t size, time_t atime)
{
	struct timespec ts[2] = {
		{ .tv_sec = atime }, { .tv_nsec = UTIME_OMIT },
	};
	char path[320];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s.debug", dir, sub, name);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
}

static int exists(const char *dir, const char *rel)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return !access(path, F_OK);
}

START_TEST(test_open_bounds)
{
	struct ap_dwcache_limits l = lim;
	char dir[128], path[256];
	uint64_t inflated;
	struct stat st;
	int fd, cfd;

	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	fd = write_elf("ok", 0, 0);
	/* more than may be inflated: nothing made */
	ck_assert_int_eq(ap_dwcache__open(dir, &l, DATA_LEN - 1, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -EDQUOT);
	ck_assert(!exists(dir, "ab/cd0102030405060708090a0b0c0d0e0f101112.debug"));
	/* a copy larger than the cache */
	l.size = DATA_LEN;
	ck_assert_int_eq(ap_dwcache__open(dir, &l, UINT64_MAX, fd, bid,
					  sizeof(bid), path, sizeof(path),
					  &inflated), -E2BIG);

	/* three entries, one slot left: the least recently used goes,
	 * and what is not an entry (0644, misnamed) stays */
	fake_entry(dir, "01", "aa", 1000, 3000);
	fake_entry(dir, "02", "bb", 1000, 2000);
	fake_entry(dir, "03", "cc", 1000, 4000);
	fake_entry(dir, "04", "dd", 1000, 1000);
	snprintf(path, sizeof(path), "%s/04/dd.debug", dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	l = lim;
	l.files = 3;
	cfd = ap_dwcache__open(dir, &l, UINT64_MAX, fd, bid, sizeof(bid), path,
			       sizeof(path), &inflated);
	ck_assert_int_ge(cfd, 0);
	ck_assert_uint_eq(inflated, DATA_LEN);
	ck_assert_int_eq(fstat(cfd, &st), 0);
	close(cfd);
	ck_assert(exists(dir, "01/aa.debug"));
	ck_assert(!exists(dir, "02/bb.debug"));
	ck_assert(exists(dir, "03/cc.debug"));
	ck_assert(exists(dir, "04/dd.debug"));
	/* no lock left behind */
	ck_assert(!exists(dir, "ab/cd0102030405060708090a0b0c0d0e0f101112.lock"));

	/* by size: room for the new entry and one of 1000 bytes; a use
	 * makes the oldest the newest */
	unlink(path);
	l = lim;
	l.size = (uint64_t)st.st_size + 1500;
	cfd = open(path, O_RDONLY);
	ck_assert_int_lt(cfd, 0);
	fake_entry(dir, "05", "ee", 1000, 500);
	cfd = ap_dwcache__open(dir, &l, UINT64_MAX, fd, bid, sizeof(bid), path,
			       sizeof(path), &inflated);
	ck_assert_int_ge(cfd, 0);
	close(cfd);
	ck_assert(exists(dir, "03/cc.debug"));
	ck_assert(!exists(dir, "01/aa.debug"));
	ck_assert(!exists(dir, "05/ee.debug"));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_atime, 5000);
	close(fd);
}
END_TEST

START_TEST(test_limits)
{
	struct ap_dwcache_limits l = { 0 };
	const char *bad = NULL;

	unsetenv("APERTURE_DEBUG_CACHE_SIZE");
	unsetenv("APERTURE_DEBUG_CACHE_FILES");
	unsetenv("APERTURE_DEBUG_INFLATE");
	ck_assert_int_eq(ap_dwcache__limits(&l, &bad), 0);
	ck_assert_uint_eq(l.size, AP_DWCACHE_SIZE);
	ck_assert_uint_eq(l.files, AP_DWCACHE_FILES);
	ck_assert_uint_eq(l.inflate, AP_DWCACHE_INFLATE);
	memset(&l, 0, sizeof(l));
	l.files = 7;
	setenv("APERTURE_DEBUG_CACHE_SIZE", "3M", 1);
	setenv("APERTURE_DEBUG_CACHE_FILES", "9", 1);
	setenv("APERTURE_DEBUG_INFLATE", "12345", 1);
	ck_assert_int_eq(ap_dwcache__limits(&l, &bad), 0);
	ck_assert_uint_eq(l.size, 3u << 20);
	ck_assert_uint_eq(l.files, 7);		/* given: kept */
	ck_assert_uint_eq(l.inflate, 12345);
	memset(&l, 0, sizeof(l));
	setenv("APERTURE_DEBUG_CACHE_FILES", "0", 1);
	ck_assert_int_eq(ap_dwcache__limits(&l, &bad), -EINVAL);
	ck_assert_str_eq(bad, "APERTURE_DEBUG_CACHE_FILES");
	ck_assert_uint_eq(l.files, AP_DWCACHE_FILES);
	unsetenv("APERTURE_DEBUG_CACHE_SIZE");
	unsetenv("APERTURE_DEBUG_CACHE_FILES");
	unsetenv("APERTURE_DEBUG_INFLATE");
}
END_TEST

START_TEST(test_dir)
{
	char buf[256];

	setenv("APERTURE_DEBUG_CACHE", "off", 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), -ENOENT);
	setenv("APERTURE_DEBUG_CACHE", "/x/y", 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/x/y");
	unsetenv("APERTURE_DEBUG_CACHE");
	setenv("XDG_CACHE_HOME", "/c", 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/c/aperture/debug");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/h/.cache/aperture/debug");
}
END_TEST

/* root under sudo -E: a HOME or XDG_CACHE_HOME of another user's is not
 * written into; the passwd entry's home is used */
START_TEST(test_dir_others)
{
	char other[] = "/tmp/aperture-home-XXXXXX", buf[512], want[512];
	struct passwd *pw = getpwuid(geteuid());

	ck_assert_ptr_nonnull(pw);
	ck_assert_ptr_nonnull(mkdtemp(other));
	if (chown(other, geteuid() + 1, (gid_t)-1)) {
		rmdir(other);
		return;		/* not root: nothing to pass over */
	}
	unsetenv("APERTURE_DEBUG_CACHE");
	snprintf(want, sizeof(want), "%s/.cache/aperture/debug", pw->pw_dir);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", other, 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
	setenv("XDG_CACHE_HOME", other, 1);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(chown(other, geteuid(), (gid_t)-1), 0);
	ck_assert_int_eq(ap_dwcache__dir(buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/aperture/debug", other);
	ck_assert_str_eq(buf, want);
	rmdir(other);
}
END_TEST

static Suite *dwcache_suite(void)
{
	Suite *s = suite_create("dwcache");
	TCase *tc;

	tc = tcase_create("ap_dwcache__check");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_check_bounds);
	suite_add_tcase(s, tc);
	tc = tcase_create("ap_dwcache__open");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_copy);
	tcase_add_test(tc, test_open_refused);
	tcase_add_test(tc, test_open_bounds);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("ap_dwcache__dir");
	tcase_add_test(tc, test_dir_others);
	tcase_add_test(tc, test_dir);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dwcache_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
