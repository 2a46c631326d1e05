// SPDX-License-Identifier: GPL-2.0
/*
 * O_NONBLOCK makes open() of a FIFO return at once instead of waiting for
 * a writer (an unprivileged user could otherwise hang root's recorder and
 * every report of its file); fstat() on the descriptor, not stat() on the
 * path, so that the file checked is the file read.
 */
#include "util/safefile.h"

#include <fcntl.h>
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
