// SPDX-License-Identifier: GPL-2.0
#include "record/procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hmap.h"
#include "symbols/symbolizer.h"

int ap_proc_cgroup(pid_t pid, char *path, size_t len)
{
	char file[64], line[4096 + 64], *p;
	int found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	/* "ID:CONTROLLERS:PATH" a line; a longer line (a path past 4 KiB)
	 * is read in pieces, none of which starts "N:" usefully */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		p = strchr(line, ':');
		p = p ? strchr(p + 1, ':') : NULL;
		if (!p || p[1] != '/')
			continue;
		if (!strncmp(line, "0::", 3) || !found) {
			snprintf(path, len, "%s", p + 1);
			found = 1;
		}
		if (!strncmp(line, "0::", 3))
			break;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int ap_proc_stat(pid_t pid, uint64_t *start_ticks, pid_t *ppid,
		 char *comm, size_t comm_len)
{
	char path[64], buf[1024], *open_paren, *close_paren, *p;
	unsigned long long start = 0;
	int field, ppid_v = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: it ends at the last ')' */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -EINVAL;
	if (comm && comm_len) {
		size_t len = close_paren - open_paren - 1;

		if (len >= comm_len)
			len = comm_len - 1;
		memcpy(comm, open_paren + 1, len);
		comm[len] = '\0';
	}
	/* fields after comm: 3 state, 4 ppid, ... 22 starttime */
	p = close_paren + 2;
	for (field = 3; field <= 22 && p && *p; field++) {
		if (field == 4)
			ppid_v = atoi(p);
		if (field == 22)
			start = strtoull(p, NULL, 10);
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (field <= 22)
		return -EINVAL;
	if (start_ticks)
		*start_ticks = start;
	if (ppid)
		*ppid = ppid_v;
	return 0;
}

int ap_proc_thread_comm(pid_t pid, pid_t tid, char *comm, size_t len)
{
	char path[96];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(comm, 1, len - 1, f);
	fclose(f);
	comm[n] = '\0';
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	return 0;
}

int ap_proc_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return 0;
	return p[2] != 'Z' && p[2] != 'X';
}

uint64_t ap_ns_to_ticks(uint64_t ns)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	return ns / (1000000000ull / (uint64_t)hz);
}

int ap_parse_maps_line(const char *line, struct ap_mmap *m)
{
	unsigned long long start, end, pgoff, inode;
	char perms[8];
	unsigned int dmaj, dmin;
	int pos = 0;
	const char *path;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &dmaj, &dmin, &inode, &pos) < 7)
		return -EINVAL;
	memset(m, 0, sizeof(*m) - sizeof(m->path));
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->inode = inode;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	path = pos ? line + pos : "";
	while (*path == ' ')
		path++;
	len = strcspn(path, "\n");
	if (len >= sizeof(m->path))
		len = sizeof(m->path) - 1;
	memcpy(m->path, path, len);
	m->path[len] = '\0';
	return 0;
}

/*
 * Build-ids read, by the file's device and inode and checked against its
 * size and modification time: a process that maps one file 20,000 times,
 * or every process mapping libc, costs one read of its ELF notes, not
 * one per mapping and scan.  Two ways a set, the older one replaced: two
 * files whose slots collide (a target's own file and libc) are not read
 * again on every scan.
 */
#define BID_SETS	256
#define BID_WAYS	2

static struct bid_ent {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint8_t id[AP_BUILD_ID_MAX];
	int len;			/* < 0: not an ELF file with one */
	uint64_t last;			/* bid_clock when last used; 0: free */
} bid_cache[BID_SETS][BID_WAYS];
static uint64_t bid_reads, bid_clock;

uint64_t ap_proc_build_id_reads(void)
{
	return bid_reads;
}

static int read_build_id(const char *path, uint8_t *id, size_t len)
{
	struct bid_ent *set, *e;
	struct stat st;
	int n, w;

	/* stat does not open: a FIFO there does not block it */
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		bid_reads++;
		return ap_read_build_id(path, id, len);
	}
	set = bid_cache[ap_hash64((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ull ^
				  (uint64_t)st.st_ino) % BID_SETS];
	e = &set[0];
	for (w = 0; w < BID_WAYS; w++) {
		if (set[w].last && set[w].dev == st.st_dev &&
		    set[w].ino == st.st_ino) {
			e = &set[w];
			break;
		}
		if (set[w].last < e->last)
			e = &set[w];
	}
	e->last = ++bid_clock;
	if (w < BID_WAYS && e->size == st.st_size &&
	    e->mtime.tv_sec == st.st_mtim.tv_sec &&
	    e->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		if (e->len > 0)
			memcpy(id, e->id, (size_t)e->len < len ?
					  (size_t)e->len : len);
		return e->len;
	}
	bid_reads++;
	n = ap_read_build_id(path, id, len);
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->size = st.st_size;
	e->mtime = st.st_mtim;
	e->len = n > (int)sizeof(e->id) ? -1 : n;
	if (n > 0 && n <= (int)sizeof(e->id))
		memcpy(e->id, id, (size_t)n);
	return n;
}

int ap_proc_mapping_build_id(struct ap_mmap *m)
{
	char path[AP_PATH_MAX + 64];
	struct stat st;
	int n, i;

	/*
	 * The file mapped there now (no name that could have gone to
	 * another file since), then, unmapped already (a short-lived
	 * process) or replaced by another mapping at that address (a plugin
	 * unloaded, another loaded), by its name through the process's root
	 * and ours: whichever has the inode the kernel's record gave.
	 */
	for (i = 0, n = 0; n <= 0 && i < 3; i++) {
		if (i == 0)
			snprintf(path, sizeof(path),
				 "/proc/%u/map_files/%llx-%llx", m->pid,
				 (unsigned long long)m->start,
				 (unsigned long long)m->end);
		else if (i == 1)
			snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid,
				 m->path);
		else
			snprintf(path, sizeof(path), "%s", m->path);
		if (stat(path, &st) || (m->inode && st.st_ino != m->inode))
			continue;
		n = read_build_id(path, m->build_id, sizeof(m->build_id));
	}
	m->build_id_len = n > 0 ? (uint32_t)n : 0;
	return n > 0 ? n : 0;
}

int ap_proc_maps(pid_t pid, int exec_only, ap_mmap_fn fn, void *ctx)
{
	return ap_proc_maps_new(pid, exec_only, NULL, fn, ctx);
}

int ap_proc_maps_new(pid_t pid, int exec_only, ap_mmap_fn known, ap_mmap_fn fn,
		     void *ctx)
{
	char path[64], line[AP_PATH_MAX + 128], elf[AP_PATH_MAX + 64];
	struct ap_mmap *m;
	FILE *f;
	int err = 0;

	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto out_free;
	}
	while (fgets(line, sizeof(line), f)) {
		int n;

		if (ap_parse_maps_line(line, m))
			continue;
		if (exec_only && !(m->prot & PROT_EXEC))
			continue;
		m->pid = pid;
		/* a rescan: the file of a mapping already known is not
		 * opened again */
		if (known && known(ctx, m))
			continue;
		if (m->path[0] == '/' && (m->prot & PROT_EXEC)) {
			/* through the target's root: containers, chroots */
			snprintf(elf, sizeof(elf), "/proc/%d/root%s", (int)pid,
				 m->path);
			n = read_build_id(elf, m->build_id,
					  sizeof(m->build_id));
			if (n <= 0)
				n = read_build_id(m->path, m->build_id,
						  sizeof(m->build_id));
			/* deleted, or its path leads elsewhere: the file
			 * mapped itself (root only) */
			if (n <= 0) {
				snprintf(elf, sizeof(elf),
					 "/proc/%d/map_files/%llx-%llx",
					 (int)pid,
					 (unsigned long long)m->start,
					 (unsigned long long)m->end);
				n = read_build_id(elf, m->build_id,
						  sizeof(m->build_id));
			}
			m->build_id_len = n > 0 ? n : 0;
		}
		err = fn(ctx, m);
		if (err)
			break;
	}
	fclose(f);
out_free:
	free(m);
	return err;
}

/* fn for each numeric entry of dir */
static int each_number(const char *path, int (*fn)(void *ctx, pid_t id),
		       void *ctx)
{
	struct dirent *d;
	DIR *dir;
	int err = 0;

	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		err = fn(ctx, atoi(d->d_name));
		if (err)
			break;
	}
	closedir(dir);
	return err;
}

int ap_proc_threads(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return each_number(path, fn, ctx);
}

int ap_proc_pids(int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	return each_number("/proc", fn, ctx);
}

struct running_ctx {
	pid_t pid;
	int running;
};

static int thread_running(void *ctx, pid_t tid)
{
	struct running_ctx *rc = ctx;
	char path[96], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)rc->pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* gone meanwhile */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the state follows comm, which ends at the last ')' */
	paren = strrchr(buf, ')');
	if (paren && paren[1] == ' ' && paren[2] == 'R')
		rc->running = 1;
	return rc->running;	/* non-zero: no need to look further */
}

int ap_proc_running(pid_t pid)
{
	struct running_ctx rc = { pid, 0 };
	int err = ap_proc_threads(pid, thread_running, &rc);

	return rc.running ? 1 : err < 0 ? err : 0;
}

int ap_proc_thread_runtime(pid_t pid, pid_t tid, uint64_t *ns)
{
	char path[96];
	unsigned long long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*ns = v;
	return 0;
}
