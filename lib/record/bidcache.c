// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache (bidcache.h).
 */
#include "record/bidcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int copy_fd(int in, const char *dst)
{
	char tmp[AP_PATH_MAX + 160], buf[65536];
	ssize_t n;
	int out, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", dst, (int)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0644);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	}
	if (n < 0)
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int ap_bidcache__keep(const char *dir, const struct ap_mmap *m)
{
	char dst[AP_PATH_MAX + 64], src[AP_PATH_MAX + 64];
	uint8_t id[AP_BUILD_ID_MAX];
	int n, fd, err, i;

	if (!dir || m->path[0] != '/' || !m->build_id_len ||
	    m->build_id_len > AP_BUILD_ID_MAX)
		return 0;
	if (ap_bidcache__path(dir, m->build_id, m->build_id_len, dst,
			      sizeof(dst)))
		return -ENAMETOOLONG;
	if (!access(dst, F_OK))
		return 0;
	/* reachable here as it was mapped: report finds it by its path */
	n = ap_read_build_id_safe(m->path, id, sizeof(id));
	if (n == (int)m->build_id_len && !memcmp(id, m->build_id, n))
		return 0;
	for (i = 0; i < 2; i++) {
		if (i == 0)
			snprintf(src, sizeof(src), "/proc/%u/map_files/%llx-%llx",
				 m->pid, (unsigned long long)m->start,
				 (unsigned long long)m->end);
		else
			snprintf(src, sizeof(src), "/proc/%u/root%s", m->pid,
				 m->path);
		n = ap_read_build_id_safe(src, id, sizeof(id));
		/* never keep a file under another file's build-id */
		if (n != (int)m->build_id_len || memcmp(id, m->build_id, n))
			continue;
		fd = ap_open_regular(src, 0);
		if (fd < 0)
			continue;
		err = ap_mkdirs(dst);
		if (!err)
			err = copy_fd(fd, dst);
		close(fd);
		return err ? err : 1;
	}
	return -ENOENT;
}
