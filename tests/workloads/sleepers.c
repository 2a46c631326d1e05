// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the in-flight table test: N threads, each blocked in
 * pause() (one syscall in flight per thread), then READY_FILE created;
 * waits until killed.  Small stacks, so that tens of thousands fit.
 *
 *	sleepers N READY_FILE
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int started;

static void *sleeper(void *arg)
{
	atomic_fetch_add(&started, 1);
	for (;;)
		pause();
	return NULL;
}

/* threads of this process blocked in pause(), from /proc/self/task */
static int in_pause(void)
{
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc/self/task");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char path[64], buf[64];
		int fd;
		ssize_t len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall",
			 d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len > 0) {
			buf[len] = '\0';
			if (atol(buf) == SYS_pause)
				n++;
		}
	}
	closedir(dir);
	return n;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	pthread_attr_t attr;
	int i, n, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sleepers N READY_FILE\n");
		return 2;
	}
	n = atoi(argv[1]);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, sleeper, NULL)) {
			fprintf(stderr, "sleepers: thread %d not created\n", i);
			return 1;
		}
	}
	while (atomic_load(&started) < n)
		nanosleep(&ms, NULL);
	/* each one inside its syscall, not only about to enter it */
	while (in_pause() < n)
		nanosleep(&ms, NULL);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	for (;;)
		pause();
}
