// SPDX-License-Identifier: GPL-2.0
#include "record/targets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aperture.h"
#include "record/procfs.h"
#include "record/recorder.h"
#include "util/num.h"

pid_t ap_proc_tgid(uint32_t tid)
{
	char path[64], line[256];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int ap_targets__parse_tids(const char *arg, uint32_t *tids, int *nr_tids,
			   pid_t *pids, int *nr_pids, int max_pids,
			   char *err, size_t len)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int i, ret = 0;

	if (!dup) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;
		pid_t tgid;

		ret = -EINVAL;
		if (ap_parse_u64(tok, 1, INT32_MAX, &v)) {
			snprintf(err, len, "invalid thread id '%s'", tok);
			break;
		}
		if (*nr_tids == AP_MAX_TIDS) {
			snprintf(err, len, "at most %d threads", AP_MAX_TIDS);
			break;
		}
		tgid = ap_proc_tgid((uint32_t)v);
		if (!tgid) {
			snprintf(err, len, "no such thread: %s", tok);
			ret = -ESRCH;
			break;
		}
		tids[(*nr_tids)++] = (uint32_t)v;
		for (i = 0; i < *nr_pids && pids[i] != tgid; i++)
			;
		if (i == *nr_pids) {
			if (*nr_pids == max_pids) {
				snprintf(err, len, "at most %d processes",
					 max_pids);
				break;
			}
			pids[(*nr_pids)++] = tgid;
		}
		ret = 0;
	}
	free(dup);
	return ret;
}

int ap_targets__parse_cpus(const char *arg, uint64_t *mask, char *err,
			   size_t len)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	char *dup = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!dup) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if (ncpus > AP_MAX_CPUS)
		ncpus = AP_MAX_CPUS;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long lo, hi;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (ap_parse_u64(tok, 0, UINT32_MAX, &lo) ||
		    (dash && ap_parse_u64(dash + 1, 0, UINT32_MAX, &hi))) {
			snprintf(err, len,
				 "bad CPU list '%s': give CPUs and ranges, as 0,2-3",
				 arg);
			ret = -EINVAL;
			break;
		}
		if (!dash)
			hi = lo;
		if (hi < lo || hi >= (unsigned long long)ncpus) {
			snprintf(err, len,
				 "bad CPU list '%s': this machine has CPUs 0 to %ld",
				 arg, ncpus - 1);
			ret = -EINVAL;
			break;
		}
		for (; lo <= hi; lo++)
			mask[lo / 64] |= 1ull << (lo % 64);
	}
	free(dup);
	return ret;
}

/* the cgroup v2 mount point, from /proc/self/mounts */
static int cgroup2_mount(char *buf, size_t len)
{
	char line[4096], dir[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 &&
		    !strcmp(type, "cgroup2"))
			found = snprintf(buf, len, "%s", dir) < (int)len;
	fclose(f);
	return found ? 0 : -ENOENT;
}

int ap_cgroup__resolve(const char *arg, struct ap_cgroup *cg, char *err,
		       size_t len)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	char path[8192], real[PATH_MAX], realmnt[PATH_MAX];
	const char *mnt = cg->mount, *p;
	int mount_id, e;

	e = cgroup2_mount(cg->mount, sizeof(cg->mount));
	if (e) {
		snprintf(err, len,
			 "--cgroup: no cgroup v2 hierarchy is mounted (cgroup2 in /proc/self/mounts)");
		return e;
	}
	if (arg[0] == '/' && !strncmp(arg, mnt, strlen(mnt)))
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%s/%s", mnt,
			 arg + (arg[0] == '/'));
	if (!realpath(path, real) || !realpath(mnt, realmnt)) {
		e = -errno;
		snprintf(err, len, "no such cgroup: '%s' (%s: %s)", arg, path,
			 strerror(-e));
		return e;
	}
	if (strncmp(real, realmnt, strlen(realmnt)) ||
	    (real[strlen(realmnt)] && real[strlen(realmnt)] != '/')) {
		snprintf(err, len,
			 "'%s' is not in the cgroup v2 hierarchy at %s", arg,
			 mnt);
		return -EINVAL;
	}
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, real, &h.fh, &mount_id, 0) ||
	    h.fh.handle_bytes != sizeof(h.id)) {
		e = errno ? -errno : -EINVAL;
		snprintf(err, len, "cgroup '%s': no cgroup id: %s", arg,
			 strerror(errno));
		return e;
	}
	memcpy(&cg->id, h.fh.f_handle, sizeof(uint64_t));
	cg->level = 0;
	for (p = real + strlen(realmnt); *p; p++)
		if (*p == '/' && p[1])
			cg->level++;
	snprintf(cg->name, sizeof(cg->name), "%s%s", real + strlen(realmnt),
		 cg->level ? "" : "/");
	return 0;
}

int ap_targets__alive(const struct ap_recorder *rec, const pid_t *pids,
		      int nr)
{
	int i, alive = 0;

	for (i = 0; i < nr; i++)
		if (ap_recorder__exit_code(rec, pids[i]) < 0 &&
		    ap_proc_alive(pids[i]))
			alive++;
	return alive;
}
