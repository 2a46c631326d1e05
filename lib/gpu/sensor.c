// SPDX-License-Identifier: GPL-2.0
/*
 * GPU kernel launches: uprobes and uretprobes on the CUDA launch entry
 * points (bpf/gpu.bpf.c).
 *
 * A uprobe is set on a file (an inode), for every process, and the BPF
 * side keeps only the targets.  So the sensor arms files, once each:
 *  - --cuda-lib PATH;
 *  - for record -- CMD, before the command runs: the command itself (a
 *    statically linked runtime) and every libcudart / libcuda in the
 *    directories it names (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH), so
 *    that launches made as soon as main() starts are seen;
 *  - for each target: the same for its executable and environment,
 *    and every executable file it has mapped that defines a launch entry
 *    point;
 *  - later: when a target maps new code from a file, the mmap tracepoints
 *    send a record that makes the recorder re-read its mappings, and the
 *    recorder calls target_changed, which reads them here too.
 * A library loaded from a directory that could not be foreseen is armed
 * a few milliseconds after it is mapped: launches made in that window are
 * not seen.
 *
 * The device side: libaperture-cupti.so, the injection library record
 * puts in CUDA_INJECTION64_PATH for its command, is armed the same way
 * (before the command runs, and wherever a target maps it), with USDT
 * probes instead of function uprobes (bpf/gpu.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "gpu.h"
#include "gpu/libs.h"
#include "util/hmap.h"
#include "record/procfs.h"
#include "record/sensor.h"

#define MAX_FUNCS		16

#define CUPTI_LIB_NAME		"libaperture-cupti.so"

struct gpu_file {
	dev_t dev;
	ino_t ino;
	uint32_t funcs;			/* ap_gpu_funcs bits it defines */
	int cupti;			/* the injection library, armed */
	int nr_links;
	struct bpf_link *links[2 * MAX_FUNCS];
	char path[];
};

struct gpu_priv {
	struct ap_sensor *st;
	struct gpu_file **files;	/* every file looked at, CUDA or not */
	size_t nr_files, cap_files;
	size_t nr_armed;		/* files with launch probes */
	struct ap_hmap searched;	/* pid -> exe inode searched for */
	struct bpf_link *mmap_enter, *mmap_exit;
	int mapped;			/* a target mapped an armed file */
	int cupti_armed;		/* files with the USDT probes armed */
	int attach_errs;
	char missing[128];		/* "PID 12, 13": targets without CUDA */
	char driver[160];		/* no driver, no device: in words */
	int driver_noted;		/* ... said for a target using CUDA */
};

static struct gpu_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "gpu");

	return idx >= 0 ? c->priv[idx] : NULL;
}

static int gpu_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		       int enabled)
{
	struct bpf_program *progs[] = {
		skel->progs.ap_gpu_runtime, skel->progs.ap_gpu_runtime_exc,
		skel->progs.ap_gpu_driver, skel->progs.ap_gpu_driver_ex,
		skel->progs.ap_gpu_return, skel->progs.ap_gpu_getfunc,
		skel->progs.ap_gpu_getfunc_return,
		skel->progs.ap_gpu_mmap_enter, skel->progs.ap_gpu_mmap_exit,
		skel->progs.ap_gpu_cupti_launch, skel->progs.ap_gpu_cupti_act,
	};
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		bpf_program__set_autoload(progs[i], enabled);
	if (!enabled) {
		/* the in-flight table is preallocated: megabytes for nothing */
		bpf_map__set_max_entries(skel->maps.gpu_inflight, 1);
		bpf_map__set_max_entries(skel->maps.gpu_names, 1);
		bpf_map__set_max_entries(skel->maps.gpu_getfunc, 1);
		bpf_map__set_max_entries(skel->maps.gpu_mmap_tids, 1);
		bpf_map__set_max_entries(skel->maps.gpu_sent, 1);
	}
	return 0;
}

static struct bpf_program *entry_prog(struct aperture_bpf *skel, int api)
{
	switch (api) {
	case AP_GPU_API_RUNTIME:
		return skel->progs.ap_gpu_runtime;
	case AP_GPU_API_RUNTIME_EXC:
		return skel->progs.ap_gpu_runtime_exc;
	case AP_GPU_API_DRIVER:
		return skel->progs.ap_gpu_driver;
	case AP_GPU_API_DRIVER_EX:
		return skel->progs.ap_gpu_driver_ex;
	default:
		return skel->progs.ap_gpu_getfunc;
	}
}

/* "libcudart.so.12, libcuda.so.1" as the sensor's source */
static void update_status(struct gpu_priv *p)
{
	struct ap_sensor *st = p->st;
	size_t i, off;

	off = snprintf(st->source, sizeof(st->source), "uprobe");
	for (i = 0; i < p->nr_files && off < sizeof(st->source); i++) {
		const struct gpu_file *f = p->files[i];
		const char *base;

		if (!(f->funcs & ap_gpu_launch_mask()) || !f->nr_links)
			continue;
		base = strrchr(f->path, '/');
		off += snprintf(st->source + off, sizeof(st->source) - off,
				"%s%s", off == 6 ? ": " : ", ",
				base ? base + 1 : f->path);
	}
	if (p->cupti_armed && off < sizeof(st->source))
		snprintf(st->source + off, sizeof(st->source) - off,
			 "; usdt: cupti");
	if (p->mapped)
		snprintf(st->reason, sizeof(st->reason), "%s", p->driver);
}

/* the reason set, with what this machine lacks for CUDA after it */
static void add_driver(struct gpu_priv *p)
{
	size_t off = strlen(p->st->reason);

	if (p->driver[0] && off < sizeof(p->st->reason))
		snprintf(p->st->reason + off, sizeof(p->st->reason) - off,
			 "%s%s", off ? "; " : "", p->driver);
}

/* a target uses CUDA (exe, as its dynamic linker sees it): what it
 * cannot reach is said once, and kept in the sensor's status */
static void cuda_in_use(struct ap_collector *c, struct gpu_priv *p,
			const char *exe, const char *ld_library_path,
			const char *who)
{
	if (p->driver_noted++)
		return;
	if (ap_gpu_driver_status(exe, ld_library_path, p->driver,
				 sizeof(p->driver)))
		ap_collector__notef(c, "gpu: %s uses CUDA, but this machine has %s: its CUDA calls fail",
				    who, p->driver);
	update_status(p);
}

static int is_cupti_lib(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, CUPTI_LIB_NAME);
}

/* the USDT probes of libaperture-cupti.so, for every process */
static int attach_cupti(struct ap_collector *c, struct gpu_priv *p,
			struct gpu_file *f)
{
	struct aperture_bpf *skel = c->skel;
	struct bpf_link *l;

	l = bpf_program__attach_usdt(skel->progs.ap_gpu_cupti_launch, -1,
				     f->path, AP_CUPTI_PROVIDER, "launch",
				     NULL);
	if (!l)
		return -errno;
	f->links[f->nr_links++] = l;
	l = bpf_program__attach_usdt(skel->progs.ap_gpu_cupti_act, -1,
				     f->path, AP_CUPTI_PROVIDER, "activity",
				     NULL);
	if (!l)
		return -errno;
	f->links[f->nr_links++] = l;
	f->cupti = 1;
	p->cupti_armed++;
	update_status(p);
	return 0;
}

/* uprobes on one function; 0 or -errno */
static int attach_func(struct ap_collector *c, struct aperture_bpf *skel,
		       struct gpu_file *f, size_t fn, uint64_t off)
{
	const struct ap_gpu_func *g = &ap_gpu_funcs[fn];
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct bpf_program *ret = g->api >= 0 ?
		skel->progs.ap_gpu_return : skel->progs.ap_gpu_getfunc_return;
	struct bpf_link *l;

	/* the return probe first: a return without an entry is ignored,
	 * an entry without its return would look like a call in flight */
	o.retprobe = true;
	l = bpf_program__attach_uprobe_opts(ret, -1, f->path, off, &o);
	if (!l)
		return -errno;
	f->links[f->nr_links++] = l;
	o.retprobe = false;
	l = bpf_program__attach_uprobe_opts(entry_prog(skel, g->api), -1,
					    f->path, off, &o);
	if (!l)
		return -errno;
	f->links[f->nr_links++] = l;
	return 0;
}

/*
 * Arms path once per inode: probes on every CUDA function it defines.
 * Returns the file (also when it defines none), or NULL with -errno in
 * *err.
 */
static struct gpu_file *arm_file(struct ap_collector *c, struct gpu_priv *p,
				 const char *path, int *err)
{
	uint64_t offs[MAX_FUNCS];
	struct gpu_file *f;
	struct stat sb;
	size_t i;
	int e;

	*err = 0;
	if (stat(path, &sb)) {
		*err = -errno;
		return NULL;
	}
	for (i = 0; i < p->nr_files; i++)
		if (p->files[i]->dev == sb.st_dev &&
		    p->files[i]->ino == sb.st_ino)
			return p->files[i];
	if (!S_ISREG(sb.st_mode)) {
		*err = -EINVAL;
		return NULL;
	}
	if (p->nr_files == p->cap_files) {
		size_t cap = p->cap_files ? p->cap_files * 2 : 16;
		struct gpu_file **v = realloc(p->files, cap * sizeof(*v));

		if (!v) {
			*err = -ENOMEM;
			return NULL;
		}
		p->files = v;
		p->cap_files = cap;
	}
	f = calloc(1, sizeof(*f) + strlen(path) + 1);
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->dev = sb.st_dev;
	f->ino = sb.st_ino;
	strcpy(f->path, path);
	p->files[p->nr_files++] = f;
	if (is_cupti_lib(path)) {
		e = attach_cupti(c, p, f);
		if (e) {
			ap_collector__notef(c,
					    "gpu: USDT probes in %s: %s; no GPU device times",
					    path, strerror(-e));
			*err = e;
		}
		return f;
	}
	/* offsets found once here rather than by libbpf per function:
	 * libcuda's symbol table is large */
	if (ap_gpu_elf_funcs(path, &f->funcs, offs) || !f->funcs)
		return f;
	for (i = 0; i < ap_gpu_nr_funcs; i++) {
		if (!(f->funcs & (1u << i)))
			continue;
		e = attach_func(c, c->skel, f, i, offs[i]);
		if (e && !p->attach_errs++)
			ap_collector__notef(c,
					    "gpu: uprobe on %s in %s: %s",
					    ap_gpu_funcs[i].name, path,
					    strerror(-e));
		if (e)
			*err = e;
	}
	if (f->funcs & ap_gpu_launch_mask() && f->nr_links) {
		p->nr_armed++;
		update_status(p);
	}
	return f;
}

static int is_launch_file(const struct gpu_file *f)
{
	return f && (f->funcs & ap_gpu_launch_mask()) && f->nr_links;
}

struct arm_ctx {
	struct ap_collector *c;
	struct gpu_priv *p;
};

static int on_lib(void *ctx, const char *path)
{
	struct arm_ctx *a = ctx;
	int err;

	arm_file(a->c, a->p, path, &err);
	return 0;
}

static int on_dir(void *ctx, const char *dir)
{
	return ap_gpu_dir_libs(dir, on_lib, ctx);
}

/*
 * The program exe and the CUDA libraries in the directories it names
 * itself (DT_RPATH, DT_RUNPATH) or its environment does
 * (LD_LIBRARY_PATH).  Not the system directories: every probe costs a
 * tenth of a second to remove at the end, and a library from there is
 * armed when it is mapped, long before CUDA's own initialization is over.
 */
static void search_for(struct ap_collector *c, struct gpu_priv *p,
		       const char *exe, const char *ld_library_path)
{
	struct arm_ctx a = { c, p };
	int err;

	if (exe)
		arm_file(c, p, exe, &err);
	ap_gpu_search_dirs(exe, ld_library_path, NULL, 0, on_dir, &a);
	/* and what it needs from the system directories: the dynamic
	 * linker maps those before main(), and the first launches come
	 * before the mapping is seen */
	if (exe)
		ap_gpu_needed_libs(exe, ld_library_path, on_lib, &a);
}

/* LD_LIBRARY_PATH of a process, into buf; NULL when unset or unreadable */
static const char *proc_ld_library_path(pid_t pid, char *buf, size_t len)
{
	char path[64], *env = NULL;
	size_t cap = 0, n = 0;
	const char *found = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	for (;;) {
		char *v;

		if (n == cap) {
			cap = cap ? cap * 2 : 16384;
			v = realloc(env, cap + 1);
			if (!v)
				goto out;
			env = v;
		}
		v = env;
		n += fread(env + n, 1, cap - n, f);
		if (n < cap)
			break;
	}
	env[n] = '\0';
	for (size_t off = 0; off < n; off += strlen(env + off) + 1) {
		if (!strncmp(env + off, "LD_LIBRARY_PATH=", 16)) {
			snprintf(buf, len, "%s", env + off + 16);
			found = buf;
		}
	}
out:
	free(env);
	fclose(f);
	return found;
}

/* once per (pid, executable): the search of its library directories */
static void search_pid(struct ap_collector *c, struct gpu_priv *p, pid_t pid)
{
	char exe[64], llp[PATH_MAX];
	const char *l;
	uint64_t *slot;
	struct stat sb;
	int fresh;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (stat(exe, &sb))
		return;
	slot = ap_hmap__upsert(&p->searched, (uint32_t)pid, &fresh);
	if (!slot || (!fresh && *slot == (uint64_t)sb.st_ino))
		return;
	*slot = sb.st_ino;
	l = proc_ld_library_path(pid, llp, sizeof(llp));
	search_for(c, p, exe, l);
}

/*
 * Arms the executable files pid has mapped that define CUDA functions;
 * returns 1 when one of them defines a launch entry point, 0 when none
 * does, -errno when the maps cannot be read.
 */
static int scan_pid(struct ap_collector *c, struct gpu_priv *p, pid_t pid)
{
	char path[64], line[AP_PATH_MAX + 128], file[AP_PATH_MAX + 64];
	struct ap_mmap *m;
	int found = 0, err;
	FILE *f;

	search_pid(c, p, pid);
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		free(m);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len;

		if (ap_parse_maps_line(line, m) || !(m->prot & PROT_EXEC) ||
		    m->path[0] != '/')
			continue;
		len = strlen(m->path);
		if (len > 10 && !strcmp(m->path + len - 10, " (deleted)"))
			continue;
		/* through the target's root: containers, chroots */
		snprintf(file, sizeof(file), "/proc/%d/root%s", (int)pid,
			 m->path);
		if (is_launch_file(arm_file(c, p, file, &err)))
			found = 1;
	}
	fclose(f);
	free(m);
	if (found && !p->mapped) {
		char who[32];

		p->mapped = 1;
		update_status(p);
		snprintf(who, sizeof(who), "PID %d", (int)pid);
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		cuda_in_use(c, p, path,
			    proc_ld_library_path(pid, file, sizeof(file)), who);
	}
	return found;
}

static void note_missing(struct gpu_priv *p, const char *what)
{
	size_t off = strlen(p->missing);

	if (off < sizeof(p->missing) - 1)
		snprintf(p->missing + off, sizeof(p->missing) - off, "%s%s",
			 off ? ", " : "PID ", what);
}

static int scan_targets(struct ap_collector *c, struct gpu_priv *p)
{
	int fd = bpf_map__fd(c->skel->maps.targets);
	__u32 key, next, *prev = NULL;
	char what[16];

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (scan_pid(c, p, key) == 0) {
			snprintf(what, sizeof(what), "%u", key);
			note_missing(p, what);
		}
	}
	return 0;
}

static void scan_system(struct ap_collector *c, struct gpu_priv *p)
{
	struct dirent *d;
	DIR *dp = opendir("/proc");

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		scan_pid(c, p, (pid_t)pid);
	}
	closedir(dp);
}

static int gpu_attach(struct ap_collector *c, struct aperture_bpf *skel,
		      struct ap_sensor *st)
{
	struct gpu_priv *p;
	char exe[PATH_MAX];
	int err;

	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK)) {
		snprintf(st->reason, sizeof(st->reason),
			 "this kernel has no uprobe events (/sys/bus/event_source/devices/uprobe: CONFIG_UPROBE_EVENTS): CUDA launches cannot be traced");
		return -EOPNOTSUPP;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->st = st;
	ap_hmap__init(&p->searched);
	c->priv[ap_sensor_index(c, "gpu")] = p;
	update_status(p);

	if (c->opts.cuda_lib) {
		struct gpu_file *f = arm_file(c, p, c->opts.cuda_lib, &err);

		if (!is_launch_file(f)) {
			if (f && !(f->funcs & ap_gpu_launch_mask()))
				snprintf(st->reason, sizeof(st->reason),
					 "--cuda-lib %s defines none of cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx",
					 c->opts.cuda_lib);
			else
				snprintf(st->reason, sizeof(st->reason),
					 "uprobes on --cuda-lib %s: %s",
					 c->opts.cuda_lib,
					 strerror(err ? -err : ENOENT));
			return f && !f->funcs ? -ENOENT : (err ? err : -ENOENT);
		}
	}

	if (c->opts.cupti_lib)
		arm_file(c, p, c->opts.cupti_lib, &err);

	/* dlopen: the mmap tracepoints flag targets that map new code */
	p->mmap_enter = bpf_program__attach(skel->progs.ap_gpu_mmap_enter);
	p->mmap_exit = bpf_program__attach(skel->progs.ap_gpu_mmap_exit);
	if (!p->mmap_enter || !p->mmap_exit)
		ap_collector__notef(c,
				    "gpu: attaching to syscalls:sys_*_mmap: %s; CUDA libraries loaded later are probed only when a sample or exec reveals them",
				    strerror(errno));

	/* what a CUDA program here could not reach: the command's view, or
	 * the system's */
	exe[0] = '\0';
	if (c->opts.cmd && c->opts.cmd[0] &&
	    !ap_gpu_which(c->opts.cmd[0], getenv("PATH"), exe, sizeof(exe))) {
		size_t armed = p->nr_armed;

		search_for(c, p, exe, getenv("LD_LIBRARY_PATH"));
		if (p->nr_armed > armed)
			cuda_in_use(c, p, exe, getenv("LD_LIBRARY_PATH"),
				    c->opts.cmd[0]);
	}
	if (!p->driver_noted)
		ap_gpu_driver_status(exe[0] ? exe : NULL,
				     getenv("LD_LIBRARY_PATH"), p->driver,
				     sizeof(p->driver));
	if (c->opts.system_wide) {
		scan_system(c, p);
		if (!p->mapped)
			snprintf(p->missing, sizeof(p->missing), "any process");
	} else {
		scan_targets(c, p);
	}
	if (!p->mapped && !c->opts.cmd) {
		snprintf(st->reason, sizeof(st->reason),
			 "no CUDA runtime or driver library mapped in %s",
			 p->missing);
		add_driver(p);
		ap_collector__notef(c,
				    "gpu: no CUDA runtime or driver library mapped in %s; launches are recorded if one is loaded later",
				    p->missing);
	} else if (!p->mapped) {
		/* the command has not run yet: said at the end if it never
		 * maps one */
		snprintf(st->reason, sizeof(st->reason),
			 "no CUDA runtime or driver library mapped by %s",
			 c->opts.cmd[0]);
		add_driver(p);
	}
	return 0;
}

static void gpu_target_changed(struct ap_collector *c,
			       struct aperture_bpf *skel, pid_t pid)
{
	struct gpu_priv *p = priv_of(c);

	if (p)
		scan_pid(c, p, pid);
}

/* records sent by the BPF side: slot 0 launches, 1 device records */
static uint64_t sent(struct ap_collector *c, __u32 slot)
{
	uint64_t n = 0;
	__u64 *vals;
	int cpu;

	vals = calloc(c->ncpus, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.gpu_sent), &slot,
				 vals))
		for (cpu = 0; cpu < c->ncpus; cpu++)
			n += vals[cpu];
	free(vals);
	return n;
}

/* launches seen: a probed library is in use even if its mapping was
 * never read (a target that came and went between two polls) */
static void check_sent(struct ap_collector *c, struct gpu_priv *p)
{
	if (p->mapped || !sent(c, 0))
		return;
	p->mapped = 1;
	update_status(p);
	cuda_in_use(c, p, NULL, NULL, "a target");
}

/* Launches are sent without waking the reader (bpf/gpu.bpf.c): the
 * collector takes them on every pass; here only the status is kept right. */
static int gpu_poll(struct ap_collector *c)
{
	struct gpu_priv *p = priv_of(c);

	if (p)
		check_sent(c, p);
	return 0;
}

static void gpu_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "gpu");
	struct gpu_priv *p = idx >= 0 ? c->priv[idx] : NULL;
	size_t i;
	int l;

	if (!p)
		return;
	check_sent(c, p);
	if (!p->mapped && c->opts.cmd && c->opts.cmd[0] &&
	    p->st->state != AP_SENSOR_UNAVAILABLE)
		ap_collector__notef(c,
				    "gpu: no CUDA runtime or driver library mapped in %s (%s): no launches recorded",
				    p->missing, c->opts.cmd[0]);
	/* the command launched kernels with the injection library set, and
	 * none reached the device side */
	if (p->cupti_armed && c->opts.cupti_lib && sent(c, 0) && !sent(c, 1) &&
	    p->driver[0])
		ap_collector__notef(c,
				    "gpu: no device records: %s; launch times are host-side only",
				    p->driver);
	else if (p->cupti_armed && c->opts.cupti_lib && sent(c, 0) &&
		 !sent(c, 1))
		ap_collector__notef(c,
				    "gpu: no device records from %s: the CUDA driver did not load it (no GPU or driver) or CUPTI failed in the program (its stderr says so); launch times are host-side only",
				    CUPTI_LIB_NAME);
	/* each removal waits for an RCU grace period (a tenth of a second
	 * here), serialized by the kernel: fewer files armed, faster end */
	for (i = 0; i < p->nr_files; i++) {
		for (l = 0; l < p->files[i]->nr_links; l++)
			bpf_link__destroy(p->files[i]->links[l]);
		free(p->files[i]);
	}
	bpf_link__destroy(p->mmap_enter);
	bpf_link__destroy(p->mmap_exit);
	ap_hmap__free(&p->searched);
	free(p->files);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_gpu = {
	.name = "gpu",
	.tag = AP_TAG_GPU,
	.prepare = gpu_prepare,
	.attach = gpu_attach,
	.target_changed = gpu_target_changed,
	.poll = gpu_poll,
	.close = gpu_close,
};
