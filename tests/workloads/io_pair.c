// SPDX-License-Identifier: GPL-2.0
/*
 * io_pair PIPE_BYTES SOCK_BYTES: ground truth for I/O pairs.  The parent
 * forks; it then writes exactly PIPE_BYTES into a pipe (write) and
 * SOCK_BYTES over a loopback TCP connection (sendto), and the child reads
 * them all (read, recvfrom).  The child exits 0 only if it read exactly
 * what was sent; the parent exits with the child's status.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK	4096

static unsigned long long drain_pipe(int fd)
{
	char buf[CHUNK];
	unsigned long long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("read");
			exit(3);
		}
		total += n;
	}
	return total;
}

static unsigned long long drain_sock(int fd)
{
	char buf[CHUNK];
	unsigned long long total = 0;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("recv");
			exit(3);
		}
		total += n;
	}
	return total;
}

static void fill(int fd, unsigned long long bytes, int sock)
{
	char buf[CHUNK];
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	while (bytes) {
		size_t want = bytes < sizeof(buf) ? bytes : sizeof(buf);

		n = sock ? send(fd, buf, want, 0) : write(fd, buf, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror(sock ? "send" : "write");
			exit(2);
		}
		bytes -= n;
	}
}

int main(int argc, char **argv)
{
	unsigned long long pipe_bytes, sock_bytes, got_pipe, got_sock;
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	int p[2], lfd, cfd, status;
	pid_t child;

	if (argc != 3) {
		fprintf(stderr, "usage: io_pair PIPE_BYTES SOCK_BYTES\n");
		return 64;
	}
	pipe_bytes = strtoull(argv[1], NULL, 0);
	sock_bytes = strtoull(argv[2], NULL, 0);

	if (pipe(p)) {
		perror("pipe");
		return 1;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen)) {
		perror("listen on 127.0.0.1");
		return 1;
	}

	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		close(p[1]);
		close(lfd);
		cfd = socket(AF_INET, SOCK_STREAM, 0);
		if (cfd < 0 || connect(cfd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("connect");
			_exit(1);
		}
		got_pipe = drain_pipe(p[0]);
		got_sock = drain_sock(cfd);
		printf("child: read %llu bytes from the pipe, %llu from the socket\n",
		       got_pipe, got_sock);
		fflush(stdout);
		_exit(got_pipe == pipe_bytes && got_sock == sock_bytes ? 0 : 1);
	}

	close(p[0]);
	cfd = accept(lfd, NULL, NULL);
	if (cfd < 0) {
		perror("accept");
		return 1;
	}
	close(lfd);
	fill(p[1], pipe_bytes, 0);
	close(p[1]);
	fill(cfd, sock_bytes, 1);
	close(cfd);
	if (waitpid(child, &status, 0) != child) {
		perror("waitpid");
		return 1;
	}
	printf("parent %d: wrote %llu bytes into the pipe, %llu over tcp port %u to child %d\n",
	       (int)getpid(), pipe_bytes, sock_bytes, ntohs(sa.sin_port),
	       (int)child);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
