// SPDX-License-Identifier: GPL-2.0
/*
 * io_file PATH BYTES: ground truth for file I/O.  Writes exactly BYTES to
 * PATH (a third each with write, pwrite64 and writev), reads them back
 * (half with read, the rest with pread64), copies PATH to PATH.copy with
 * copy_file_range, and sends PATH.copy to /dev/null with sendfile.  So:
 *
 *	PATH		written BYTES, read 2 * BYTES
 *	PATH.copy	written BYTES, read BYTES
 *	/dev/null	written BYTES
 *
 * Exits non-zero if any call moved less than that.
 */
#define _GNU_SOURCE		/* copy_file_range */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK	4096

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	char buf[CHUNK], copy[4096];
	unsigned long long bytes, third, done, half;
	int fd, out, null;
	ssize_t n;
	off_t off;

	if (argc != 3) {
		fprintf(stderr, "usage: io_file PATH BYTES\n");
		return 64;
	}
	bytes = strtoull(argv[2], NULL, 0);
	third = bytes / 3;
	memset(buf, 'y', sizeof(buf));
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(argv[1]);

	for (done = 0; done < third; done += n) {
		n = write(fd, buf, third - done < CHUNK ? third - done : CHUNK);
		if (n <= 0)
			die("write");
	}
	for (; done < 2 * third; done += n) {
		n = pwrite(fd, buf, 2 * third - done < CHUNK ?
				    2 * third - done : CHUNK, done);
		if (n <= 0)
			die("pwrite");
	}
	if (lseek(fd, done, SEEK_SET) < 0)
		die("lseek");
	for (; done < bytes; done += n) {
		struct iovec iov[2] = {
			{ buf, (bytes - done) / 2 < CHUNK ? (bytes - done) / 2 : CHUNK },
			{ buf, 0 },
		};

		iov[1].iov_len = bytes - done - iov[0].iov_len < CHUNK ?
				 bytes - done - iov[0].iov_len : CHUNK;
		n = writev(fd, iov, 2);
		if (n <= 0)
			die("writev");
	}

	half = bytes / 2;
	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek");
	for (done = 0; done < half; done += n) {
		n = read(fd, buf, half - done < CHUNK ? half - done : CHUNK);
		if (n <= 0)
			die("read");
	}
	for (; done < bytes; done += n) {
		n = pread(fd, buf, bytes - done < CHUNK ? bytes - done : CHUNK,
			  done);
		if (n <= 0)
			die("pread");
	}

	snprintf(copy, sizeof(copy), "%s.copy", argv[1]);
	out = open(copy, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (out < 0)
		die(copy);
	off = 0;
	for (done = 0; done < bytes; done += n) {
		n = copy_file_range(fd, &off, out, NULL, bytes - done, 0);
		if (n <= 0)
			die("copy_file_range");
	}
	null = open("/dev/null", O_WRONLY);
	if (null < 0)
		die("/dev/null");
	off = 0;
	for (done = 0; done < bytes; done += n) {
		n = sendfile(null, out, &off, bytes - done);
		if (n <= 0)
			die("sendfile");
	}
	close(null);
	close(out);
	close(fd);
	printf("io_file: %llu bytes to %s\n", bytes, argv[1]);
	return 0;
}
