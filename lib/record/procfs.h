/* SPDX-License-Identifier: GPL-2.0 */
/* Reading what record needs from /proc: identity, comm, threads, mappings. */
#ifndef APERTURE_PROCFS_H
#define APERTURE_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/format.h"

/* /proc/PID/stat: starttime (clock ticks since boot) and parent; 0 or
 * -errno (-ESRCH: no such process) */
int ap_proc_stat(pid_t pid, uint64_t *start_ticks, pid_t *ppid,
		 char *comm, size_t comm_len);
/* the cgroup path of pid from /proc/PID/cgroup: cgroup v2's ("0::PATH"),
 * else the first hierarchy's, cut to len - 1 bytes; 0 or -errno */
int ap_proc_cgroup(pid_t pid, char *path, size_t len);
/* thread comm from /proc/PID/task/TID/comm */
int ap_proc_thread_comm(pid_t pid, pid_t tid, char *comm, size_t len);
/* 1 if pid exists and is not a zombie, 0 otherwise */
int ap_proc_alive(pid_t pid);
/* converts task->start_boottime (ns) to /proc's clock ticks */
uint64_t ap_ns_to_ticks(uint64_t ns);

/* Calls fn for every mapping of pid in /proc/PID/maps, executable ones
 * with their build-id.  Returns 0 or -errno. */
typedef int (*ap_mmap_fn)(void *ctx, const struct ap_mmap *m);
int ap_proc_maps(pid_t pid, int exec_only, ap_mmap_fn fn, void *ctx);
/* the same for the mappings known(ctx, m) says are not known yet (it
 * sees m before its build-id is read, build_id_len 0) */
int ap_proc_maps_new(pid_t pid, int exec_only, ap_mmap_fn known, ap_mmap_fn fn,
		     void *ctx);
/* ELF files whose build-id the two above read so far: once per file
 * (device, inode, size, mtime), however many mappings and scans name it */
uint64_t ap_proc_build_id_reads(void);
/* The build-id of file mapping m (m->pid, start, end, path, inode; from
 * the kernel's records, which do not carry it): read through
 * /proc/PID/map_files while it is mapped, else by path, through the
 * process's root first, from the first that has m's inode.  Sets
 * m->build_id and m->build_id_len; returns the length, 0 when none. */
int ap_proc_mapping_build_id(struct ap_mmap *m);
/* parses one /proc/PID/maps line; 0 or -EINVAL */
int ap_parse_maps_line(const char *line, struct ap_mmap *m);

/* Calls fn for every thread id of pid. */
int ap_proc_threads(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);
/* ... and for every process */
int ap_proc_pids(int (*fn)(void *ctx, pid_t pid), void *ctx);
/* 1 when a thread of pid is running or waits for a CPU (state R), 0 when
 * none is, -errno */
int ap_proc_running(pid_t pid);
/* the thread's run time as the kernel counts it (se.sum_exec_runtime, the
 * first field of /proc/PID/task/TID/schedstat); 0 or -errno */
int ap_proc_thread_runtime(pid_t pid, pid_t tid, uint64_t *ns);

#endif /* APERTURE_PROCFS_H */
