// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod lookups through libdebuginfod, opened with dlopen: aperture
 * neither links it nor needs its headers, and a report without
 * DEBUGINFOD_URLS never loads it.  Both lookups are ours: libdwfl's
 * (dwfl_standard_find_debuginfo) first searches the local paths again
 * with a plain open(), and it cannot find the ELF file itself when its
 * path is gone.
 *
 * One client per process, made on first use: libdebuginfod keeps its
 * cache on disk, so the client holds no state worth a per-report object.
 */
#include "symbols/debuginfod.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libdebuginfod's ABI (debuginfod.h), stable since elfutils 0.178 */
typedef struct debuginfod_client debuginfod_client;

static struct {
	int tried;
	void *lib;
	debuginfod_client *client;
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *,
			       int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *,
			      int, char **);
	void (*end)(debuginfod_client *);
} dbg;

int ap_debuginfod__enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

static int debuginfod__open(void)
{
	if (dbg.tried)
		return dbg.client ? 0 : -ENOSYS;
	dbg.tried = 1;
	if (!ap_debuginfod__enabled())
		return -ENOSYS;
	dbg.lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!dbg.lib)
		return -ENOSYS;
	dbg.begin = (debuginfod_client *(*)(void))dlsym(dbg.lib,
							"debuginfod_begin");
	dbg.find_executable = (int (*)(debuginfod_client *,
				       const unsigned char *, int, char **))
		dlsym(dbg.lib, "debuginfod_find_executable");
	dbg.find_debuginfo = (int (*)(debuginfod_client *,
				      const unsigned char *, int, char **))
		dlsym(dbg.lib, "debuginfod_find_debuginfo");
	dbg.end = (void (*)(debuginfod_client *))dlsym(dbg.lib,
						       "debuginfod_end");
	if (dbg.begin && dbg.find_executable && dbg.end)
		dbg.client = dbg.begin();
	if (!dbg.client) {
		dlclose(dbg.lib);
		dbg.lib = NULL;
		return -ENOSYS;
	}
	return 0;
}

static int find(int debuginfo, const uint8_t *id, size_t len, char *buf,
		size_t buflen)
{
	char *path = NULL;
	int fd, ret;

	if (!id || !len)
		return -EINVAL;
	ret = debuginfod__open();
	if (ret)
		return ret;
	if (debuginfo && !dbg.find_debuginfo)
		return -ENOSYS;
	fd = debuginfo ? dbg.find_debuginfo(dbg.client, id, (int)len, &path) :
			 dbg.find_executable(dbg.client, id, (int)len, &path);
	if (fd < 0) {
		free(path);
		return fd == -ENOENT || fd == -ENOSYS ? -ENOENT : fd;
	}
	close(fd);
	if (!path)
		return -ENOENT;
	ret = snprintf(buf, buflen, "%s", path) >= (int)buflen ? -ENAMETOOLONG
							       : 0;
	free(path);
	return ret;
}

int ap_debuginfod__find_executable(const uint8_t *id, size_t len, char *buf,
				   size_t buflen)
{
	return find(0, id, len, buf, buflen);
}

int ap_debuginfod__find_debuginfo(const uint8_t *id, size_t len, char *buf,
				  size_t buflen)
{
	return find(1, id, len, buf, buflen);
}
