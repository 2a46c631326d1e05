/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space half of CFI unwinding: one table of rows per mapped file
 * (lib/unwind/cfi.c), shared by every process that maps it and kept in one BPF
 * array, and a mirror of each target's executable mappings in a BPF hash
 * map, kept current as the recorder learns mappings and as images go.
 * bpf/unwind.bpf.h walks the stacks with both.
 */
#ifndef APERTURE_UNWIND_H
#define APERTURE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ap_unwind;

struct ap_unwind_stats {
	uint64_t tables;		/* files with a table loaded */
	uint64_t no_cfi;		/* files without usable CFI */
	uint64_t rows;			/* rows in use */
	uint64_t rows_max;
	uint64_t bad_rows;		/* rules the tables could not express */
	uint64_t build_ns;		/* time spent compiling tables */
	uint64_t no_room;		/* files left without a table: rows full */
	uint64_t debug_files;		/* tables from a separate debug file */
	uint64_t procs;			/* processes mirrored now */
	uint64_t maps_full;		/* mappings beyond AP_UMAP_MAX */
	uint64_t builds;		/* files opened to build a table */
	uint64_t publishes;		/* mirrors written to the kernel */
	uint64_t publishes_max;		/* ... for one process, at most */
	uint64_t cache_loaded;		/* tables read from the disk cache */
	uint64_t cache_saved;		/* ... written to it */
	uint64_t cache_start_ns;	/* reading it at start */
};

/* rows_fd: the rows array map (rows_max rows, BPF_F_MMAPABLE); procs_fd,
 * maps_fd: the mirror's maps; files_fd: the tables by file
 * (bpf/unwind.bpf.h) */
struct ap_unwind *ap_unwind__new(int rows_fd, uint32_t rows_max,
				 int procs_fd, int maps_fd, int files_fd);
void ap_unwind__free(struct ap_unwind *u);
/* a mapping of m->pid: executable ones get their file's table and go into
 * the process's mirror, replacing what they overlap */
void ap_unwind__mapping(struct ap_unwind *u, const struct ap_mmap *m);
/* the mirrors changed since the last flush to the kernel: call after a
 * batch of mappings, before the samples that need them are taken */
void ap_unwind__flush(struct ap_unwind *u);
/* recording runs: from now on compiling tables takes at most a share of
 * the caller's time, and what waits is finished by ap_unwind__work */
void ap_unwind__go_live(struct ap_unwind *u);
/* lazy (system-wide): a file's table is compiled only once a stack of a
 * process that maps it needs it, not for every file of every process */
void ap_unwind__set_lazy(struct ap_unwind *u, int lazy);
/* until CLOCK_MONOTONIC reaches until_ns, the table of a file is compiled
 * when it is mapped, lazy or not, and given up at until_ns (the processes
 * running when a system-wide recording starts: their first samples need
 * their tables); 0: off */
void ap_unwind__set_eager(struct ap_unwind *u, uint64_t until_ns);
/* no table is compiled once CLOCK_MONOTONIC reaches until_ns (record -d:
 * the window's end), and one being compiled then is given up: a big file
 * takes seconds on a busy machine; 0: no end */
void ap_unwind__set_until(struct ap_unwind *u, uint64_t until_ns);
/* once live, compiling tables takes at most pct % of the time (default
 * 30); frames of files still waiting go by frame pointer */
void ap_unwind__set_budget(struct ap_unwind *u, uint32_t pct);
/* user frames ips[0..n) of pid went by frame pointer: their files'
 * tables are wanted (lazy mode) */
void ap_unwind__want(struct ap_unwind *u, uint32_t pid, const uint64_t *ips,
		     size_t n);
/* on every pass of the reader: tables that waited, and their mirrors */
void ap_unwind__work(struct ap_unwind *u);
/* the image of pid is gone (exec, exit): its mirror goes */
void ap_unwind__image_gone(struct ap_unwind *u, uint32_t pid);
/* tables kept on disk by build-id in dir (tabcache.h): those of files
 * still there are loaded now, before any target maps them, and each table
 * compiled from now on is kept there; 0 or -errno */
int ap_unwind__use_cache(struct ap_unwind *u, const char *dir);
/* compile the table of the file at path now, before a process maps it
 * (a command about to be started); 0 or -errno */
int ap_unwind__preload(struct ap_unwind *u, const char *path);
/* the same for the program execvp would run for cmd, its dynamic loader
 * and the libraries it names (as the dynamic loader finds them) */
int ap_unwind__preload_command(struct ap_unwind *u, const char *cmd);
void ap_unwind__stats(const struct ap_unwind *u, struct ap_unwind_stats *st);

#endif /* APERTURE_UNWIND_H */
