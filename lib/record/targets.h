/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What record's and top's targets resolve to: a thread's process, a
 * cgroup v2 directory (its id as BPF sees it), record's thread and CPU
 * lists, and whether the processes watched still run.
 */
#ifndef APERTURE_TARGETS_H
#define APERTURE_TARGETS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ap_recorder;

/* the thread group of thread tid, from /proc/TID/status; 0 if none */
pid_t ap_proc_tgid(uint32_t tid);

/* a cgroup v2 directory */
struct ap_cgroup {
	uint64_t id;			/* bpf_get_current_cgroup_id's */
	uint32_t level;			/* its depth below the root */
	char name[PATH_MAX];		/* its path below the mount, "/" */
	char mount[4096];		/* the cgroup2 mount */
};

/* arg: an absolute path, or one under the cgroup2 mount.  0, or -errno
 * with what failed in err[len] */
int ap_cgroup__resolve(const char *arg, struct ap_cgroup *cg, char *err,
		       size_t len);

/*
 * record -t TID,..: each thread into tids[*nr_tids] (at most
 * AP_MAX_TIDS), and its process into pids[*nr_pids] (at most max_pids)
 * unless there already.  0, or -errno with the message in err[len].
 */
int ap_targets__parse_tids(const char *arg, uint32_t *tids, int *nr_tids,
			   pid_t *pids, int *nr_pids, int max_pids,
			   char *err, size_t len);
/* record -C 0,2-3: CPUs this machine has, as bits of mask (AP_MAX_CPUS
 * of them).  0, or -errno with the message in err[len]. */
int ap_targets__parse_cpus(const char *arg, uint64_t *mask, char *err,
			   size_t len);

/* how many of pids[nr] run: not seen exiting by the recorder, and in
 * /proc (reads /proc: callers space the calls) */
int ap_targets__alive(const struct ap_recorder *rec, const pid_t *pids,
		      int nr);

#endif /* APERTURE_TARGETS_H */
