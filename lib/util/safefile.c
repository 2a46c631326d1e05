// SPDX-License-Identifier: GPL-2.0
/*
 * O_NONBLOCK makes open() of a FIFO return at once instead of waiting for
 * a writer (an unprivileged user could otherwise hang root's recorder and
 * every report of its file); fstat() on the descriptor, not stat() on the
 * path, so that the file checked is the file read.
 */
#include "util/safefile.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ap_open_regular(const char *path, int flags)
{
	struct stat st;
	int fd, fl, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -AP_ENOTREG;
		goto out_close;
	}
	/* reads of a regular file never block; clear it for libelf's sake */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;

out_close:
	close(fd);
	return err;
}

/* one step of ap_path_trusted: 0, or -EPERM with why */
static int trusted(const char *path, const struct stat *st, char *why,
		   size_t wlen)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, wlen, "'%s' belongs to uid %u", path,
			 (unsigned int)st->st_uid);
		return -EPERM;
	}
	/* group root's writing is root's; a sticky directory keeps what
	 * is not theirs from others */
	if (((st->st_mode & S_IWOTH) ||
	     ((st->st_mode & S_IWGRP) && st->st_gid != 0)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))) {
		snprintf(why, wlen, "'%s' can be written by others", path);
		return -EPERM;
	}
	return 0;
}

int ap_path_trusted(const char *path, char *real, size_t rlen, char *why,
		    size_t wlen)
{
	char buf[PATH_MAX], *slash;
	struct stat st;
	int err;

	if (!realpath(path, buf))
		return -errno;
	if (stat(buf, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -AP_ENOTREG;
	err = trusted(buf, &st, why, wlen);
	if (err)
		return err;
	if (strlen(buf) >= rlen)
		return -ENAMETOOLONG;
	snprintf(real, rlen, "%s", buf);
	/* then each directory up to / */
	while ((slash = strrchr(buf, '/'))) {
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(buf, &st))
			return -errno;
		err = trusted(buf, &st, why, wlen);
		if (err)
			return err;
		if (slash == buf)
			break;
	}
	return 0;
}

const char *ap_open_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == AP_ENOTREG)
		return "not a regular file";
	if (err == AP_ENOTOURS)
		return "a FIFO or socket of another user's, not written to";
	if (err == ELOOP)
		return "a symbolic link, not followed";
	return strerror(err);
}
