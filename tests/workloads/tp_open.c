// SPDX-License-Identifier: GPL-2.0
/*
 * tp_open N PATH: ground truth for tracepoints.  Opens PATH exactly N
 * times with openat(2) from open_many(), each with O_NOCTTY, which the
 * C library's own opens (the loader's, locale files) never pass, so that
 * a filter on the flags keeps these N alone.  Exits non-zero if an open
 * fails.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static int open_many(const char *path, int n)
{
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = openat(AT_FDCWD, path, O_RDONLY | O_NOCTTY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tp_open N PATH\n");
		return 2;
	}
	return open_many(argv[2], atoi(argv[1]));
}
