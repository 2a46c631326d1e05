// SPDX-License-Identifier: GPL-2.0
#include "record/collector.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.h"
#include "aperture.skel.h"
#include "event/event.h"
#include "record/kmaps.h"
#include "record/procfs.h"
#include "record/sensor.h"
#include "tracepoint/tpformat.h"
#include "unwind/tabcache.h"
#include "unwind/unwind.h"

const struct ap_cpu_event ap_cpu_events[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "CPU cycles (hardware PMU)" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "instructions retired (hardware PMU)" },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  "a timer per CPU (software)" },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS, "page faults (software)" },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches (software)" },
};
const size_t ap_nr_cpu_events = sizeof(ap_cpu_events) /
				sizeof(ap_cpu_events[0]);

/* does tok's part before ':' name a kind or a CPU event (cycles:x,
 * syscall:nope)?  Then it is no tracepoint, whatever tracefs has */
static int kind_prefix(const char *tok)
{
	size_t n = strcspn(tok, ":"), i;

	for (i = 0; i < ap_nr_event_kinds; i++)
		if (strlen(ap_event_kinds[i]->name) == n &&
		    !strncmp(tok, ap_event_kinds[i]->name, n))
			return 1;
	for (i = 0; i < ap_nr_cpu_events; i++)
		if ((strlen(ap_cpu_events[i].name) == n &&
		     !strncmp(tok, ap_cpu_events[i].name, n)) ||
		    (ap_cpu_events[i].alias &&
		     strlen(ap_cpu_events[i].alias) == n &&
		     !strncmp(tok, ap_cpu_events[i].alias, n)))
			return 1;
	return 0;
}

/*
 * perf's spellings of a CPU sampling event: NAME[:u|:k|:uk], or cpu with
 * a modifier.  Returns 1 + its index in ap_cpu_events (0 for cpu) and
 * sets the exclusions, or -1 when tok is not one.
 */
static int cpu_event_parse(const char *tok, int *excl_user, int *excl_kernel,
			   int *precise)
{
	const char *colon = strchr(tok, ':');
	size_t n = colon ? (size_t)(colon - tok) : strlen(tok), i;
	int idx = -1, u = 0, k = 0, pp = 0;

	if (n == 3 && !strncmp(tok, "cpu", 3))
		idx = 0;
	for (i = 0; idx < 0 && i < ap_nr_cpu_events; i++)
		if ((strlen(ap_cpu_events[i].name) == n &&
		     !strncmp(tok, ap_cpu_events[i].name, n)) ||
		    (ap_cpu_events[i].alias &&
		     strlen(ap_cpu_events[i].alias) == n &&
		     !strncmp(tok, ap_cpu_events[i].alias, n)))
			idx = (int)i + 1;
	if (idx < 0 || (!colon && !idx))
		return idx < 0 ? -1 : 0;
	if (colon) {
		const char *m;

		if (!colon[1])
			return -1;
		/* perf's modifiers: u, k, p (pp, ppp: precise levels), P
		 * (the most precise), H and G (host, guest: one machine) */
		for (m = colon + 1; *m; m++) {
			if (*m == 'u')
				u = 1;
			else if (*m == 'k')
				k = 1;
			else if (*m == 'p' && pp < 3)
				pp++;
			else if (*m == 'P')
				pp = 3;
			else if (*m != 'H' && *m != 'G')
				return -1;
		}
	}
	/* :u counts user mode only: the kernel is excluded, and so on */
	*excl_kernel = u && !k;
	*excl_user = k && !u;
	*precise = pp;
	return idx;
}

int ap_events__parse(const char *list, uint32_t *mask,
		     struct ap_collect_opts *o, char *bad, size_t badlen)
{
	char *dup, *tok, *save = NULL;
	int err = 0, cpu_named = o && (o->cpu_event || o->cpu_exclude_user ||
				       o->cpu_exclude_kernel);

	*mask = 0;
	dup = strdup(list ? list : "");
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		size_t i;
		int found = 0, eu = 0, ek = 0, pp = 0;
		int ce = cpu_event_parse(tok, &eu, &ek, &pp);

		if (ce > 0 || (ce == 0 && strcmp(tok, "cpu"))) {
			/* one event drives the cpu sensor */
			if (cpu_named && o && (o->cpu_event != ce ||
			    o->cpu_exclude_user != eu ||
			    o->cpu_exclude_kernel != ek)) {
				snprintf(bad, badlen, "%s", tok);
				err = -EEXIST;
				break;
			}
			if (o) {
				o->cpu_event = ce;
				o->cpu_exclude_user = eu;
				o->cpu_exclude_kernel = ek;
				o->cpu_precise = pp;
			}
			cpu_named = 1;
			tok = "cpu";
		}
		for (i = 0; i < ap_nr_event_kinds && !found; i++) {
			const struct ap_event_kind *k = ap_event_kinds[i];
			const struct ap_event_variant *va;

			for (va = k->variants; va && va->name; va++) {
				if (strcmp(tok, va->name))
					continue;
				if (o)
					*(int *)((char *)o + va->opt) = 1;
				tok = (char *)k->name;
				break;
			}
			if (!strcmp(tok, k->name)) {
				*mask |= AP_EVMASK(k->tag);
				found = 1;
				/* "tracepoint" alone names none */
				if (k->named_only)
					err = -ENOENT;
			}
		}
		if (err) {
			snprintf(bad, badlen, "%s", tok);
			break;
		}
		/* a tracepoint, after the kinds' variants (lock:pthread is
		 * none; lock:contention_begin is one) */
		if (!found) {
			err = ap_tp__parse_event(tok, o);
			if (!err)
				*mask |= AP_EVMASK(AP_TAG_TRACEPOINT);
			found = !err;
			if (err > 0 || (err && kind_prefix(tok)))
				err = -EINVAL;
		}
		if (!found) {
			snprintf(bad, badlen, "%s", tok);
			break;
		}
	}
	if (!err && !*mask) {
		snprintf(bad, badlen, "%s", list ? list : "");
		err = -EINVAL;
	}
	free(dup);
	return err;
}

int ap_collect_opts__cpu(const struct ap_collect_opts *o, int cpu)
{
	if (!o->cpu_mask)
		return 1;
	return cpu >= 0 && cpu < AP_MAX_CPUS &&
	       (o->cpu_mask[cpu / 64] >> (cpu % 64) & 1);
}

uint64_t ap_collect_opts__ring_bytes(const struct ap_collect_opts *o,
				     int ncpus)
{
	uint64_t want, bytes = 8 << 20;

	if (o->ring_bytes)
		return o->ring_bytes;
	/* every process's events: bursts such as 17,000 threads made at
	 * once (test 87) */
	if (o->system_wide)
		return AP_RINGBUF_BYTES;
	/*
	 * The targets' events: 1 MiB per CPU, as they come from every CPU at
	 * once, within 8 and 16 MiB: records are as long as their stacks and
	 * the reader drains from before the command starts, woken at an
	 * eighth full.  The floor is for the fewest CPUs, where the reader
	 * waits longest: one thread's futex burst fills 2 MiB in 30 ms, and
	 * on 2 CPUs with a busy loop on each the reader, runnable, waited up
	 * to 480 ms for a CPU (test 39 lost 1,368 to 29,787 of 200,000 in 1
	 * run of 20 to 60 with 2 MiB, none in 60 with 8).  The kernel maps
	 * the ring's pages twice (so that no record wraps), and RSS counts
	 * them twice: the ring is most of the recorder's memory.
	 */
	want = (uint64_t)(ncpus > 0 ? ncpus : 1) << 20;
	while (bytes < want && bytes < AP_RINGBUF_BYTES)
		bytes <<= 1;
	return bytes;
}

const char *ap_events__valid(void)
{
	static char buf[512];	/* built once from the constant table */
	size_t i, off = 0;

	if (buf[0])
		return buf;
	for (i = 0; i < ap_nr_event_kinds && off < sizeof(buf); i++)
		if (!ap_event_kinds[i]->named_only)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s",
					i ? ", " : "",
					ap_event_kinds[i]->name);
	for (i = 0; i < ap_nr_event_kinds && off < sizeof(buf); i++) {
		const struct ap_event_variant *va;

		for (va = ap_event_kinds[i]->variants;
		     va && va->name && off < sizeof(buf); va++)
			off += snprintf(buf + off, sizeof(buf) - off, ", %s",
					va->name);
	}
	for (i = 0; i < ap_nr_cpu_events && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, ", %s",
				ap_cpu_events[i].name);
	if (off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off,
			 " (CPU sampling events take :u, :k and :p, :pp, :P), and tracepoints CATEGORY:NAME ('aperture list tracepoint')");
	return buf;
}

void ap_collector__notef(struct ap_collector *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->note)
		c->note(c->ctx, msg);
	else
		fprintf(stderr, "aperture: %s\n", msg);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int on_kmap(void *ctx, const struct ap_rec_kmap *rec)
{
	struct ap_collector *c = ctx;

	return c->fn(c->ctx, rec, sizeof(*rec));
}

static int drain_kmaps(struct ap_collector *c)
{
	int n;

	if (!c->kmaps || c->kmaps_busy)
		return 0;
	c->kmaps_busy = 1;
	c->kmaps_at = mono_ns();
	n = ap_kmaps__drain(c->kmaps, on_kmap, c);
	c->kmaps_busy = 0;
	/* a loss (the buffer of a CPU full: a burst of mmaps system-wide)
	 * is not fatal: ap_collector__mappings_live turns /proc re-reads on
	 * unknown frames back on */
	return n;
}

/*
 * Before a record taken after the last drain: the mappings made before it
 * first, so that a sample never precedes the mapping of its code.  The
 * kernel writes a mapping's record in mmap() itself, before any code in
 * it can run.
 */
static int sync_kmaps(struct ap_collector *c, const void *data, size_t size)
{
	const struct ap_ev_hdr *h = data;
	int n;

	if (!c->kmaps || size < sizeof(*h) || h->ts <= c->kmaps_at ||
	    !ap_kmaps__pending(c->kmaps))
		return 0;
	n = drain_kmaps(c);
	return n < 0 ? n : 0;
}

/* a ring record from the window's end on: outside the recording (the
 * kernel stops tracing then, but what was under way may still come).
 * Records built in user space (sums, calls in flight, open intervals) say
 * what the window held, stamped when they are read: they are kept */
static int past_window(struct ap_collector *c, const void *data, size_t size)
{
	const struct ap_ev_hdr *h = data;

	if (!c->win.end_ns || size < sizeof(*h) || h->ts < c->win.end_ns)
		return 0;
	c->win.late++;
	return 1;
}

int ap_collector__deliver(struct ap_collector *c, const void *data,
			  size_t size)
{
	int err = sync_kmaps(c, data, size);

	return err ? err : c->fn(c->ctx, data, size);
}

int ap_collector__system_wide(const struct ap_collector *c)
{
	return c->opts.system_wide;
}

int ap_collector__py_fd(const struct ap_collector *c)
{
	return bpf_map__fd(c->skel->maps.ap_py_procs);
}

int ap_collector__mappings_live(const struct ap_collector *c)
{
	return c->kmaps && !ap_kmaps__lost(c->kmaps);
}

uint64_t ap_collector__mappings_lost(const struct ap_collector *c)
{
	return c->kmaps ? ap_kmaps__lost(c->kmaps) : 0;
}

int ap_sensor_index(const struct ap_collector *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->ops[i]->name, name))
			return i;
	return -1;
}

static int aborted(const struct ap_collector *c)
{
	return c->abort && *c->abort;
}

/* libbpf consumes for as long as records keep coming, which under
 * overload is for ever: a negative return ends the pass (the record
 * itself is taken) */
#define PASS_OVER	(-ECANCELED)

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct ap_collector *c = ctx;
	int err = 0;

	if (!past_window(c, data, size)) {
		err = sync_kmaps(c, data, size);
		if (!err)
			err = c->fn(c->ctx, data, size);
	}
	if (err)
		return err;
	/* the clock after every record: a few ns, and a record that makes
	 * the recorder read a new process's mappings can take 100s of ms */
	++c->pass_n;
	if (aborted(c) || mono_ns() >= c->pass_until) {
		c->pass_over = 1;
		return PASS_OVER;
	}
	return 0;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("APERTURE_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG && getenv("APERTURE_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static void explain_load_error(int err, char *buf, size_t len)
{
	struct rlimit rl;

	if (err == -EPERM || err == -EACCES)
		snprintf(buf, len,
			 "loading BPF programs: %s; run as root or grant CAP_BPF and CAP_PERFMON",
			 strerror(-err));
	/* each map and program is a descriptor: not the verifier's doing */
	else if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &rl))
		snprintf(buf, len,
			 "loading BPF programs: %s; the open files limit (ulimit -n) is %llu, too low for aperture's maps and programs: raise it (ulimit -n 1024)",
			 strerror(-err), (unsigned long long)rl.rlim_cur);
	else if (err == -ENFILE)
		snprintf(buf, len,
			 "loading BPF programs: %s; the system's open files are at fs.file-max",
			 strerror(-err));
	else if (access("/sys/kernel/btf/vmlinux", R_OK))
		snprintf(buf, len,
			 "loading BPF programs: %s; this kernel has no BTF (/sys/kernel/btf/vmlinux): build it with CONFIG_DEBUG_INFO_BTF=y",
			 strerror(-err));
	else
		snprintf(buf, len,
			 "loading BPF programs: %s; set APERTURE_DEBUG=1 for the verifier log",
			 strerror(-err));
}

/* rows for all unwind tables, 8 bytes each (32 MiB of kernel memory):
 * libc has 28,000, python3 65,000, gcc's cc1plus 520,000, cc1 950,000,
 * libLLVM 950,000; a compile under -a with clang, xz and python running
 * filled 2^21 */
#define UNWIND_ROWS	(1u << 22)

/* knobs of the unwinder, before load */
static void unwind_prepare(struct ap_collector *c)
{
	int cfi = c->opts.call_graph == AP_CALL_GRAPH_CFI;
	uint32_t max = c->opts.max_stack;

	c->skel->rodata->ap_unwind_cfi = cfi;
	if (max)
		c->skel->rodata->ap_max_ustack = max;
	bpf_map__set_max_entries(c->skel->maps.ap_uw_rows,
				 cfi ? UNWIND_ROWS : 1);
	bpf_map__set_map_flags(c->skel->maps.ap_uw_rows,
			       bpf_map__map_flags(c->skel->maps.ap_uw_rows) |
			       BPF_F_MMAPABLE);
	if (!cfi) {
		bpf_map__set_max_entries(c->skel->maps.ap_uw_procs, 1);
		bpf_map__set_max_entries(c->skel->maps.ap_uw_maps, 1);
		bpf_map__set_max_entries(c->skel->maps.ap_uw_files, 1);
	}
}

/* after load: the rows map written in place, the mirror through its fd */
static int unwind_open(struct ap_collector *c)
{
	char dir[AP_PATH_MAX];

	_Static_assert(sizeof(struct ap_cfi_row) % 8 == 0,
		       "rows are laid out as the array map lays out elements");

	if (c->opts.call_graph != AP_CALL_GRAPH_CFI)
		return 0;
	c->unwind = ap_unwind__new(bpf_map__fd(c->skel->maps.ap_uw_rows),
				   UNWIND_ROWS,
				   bpf_map__fd(c->skel->maps.ap_uw_procs),
				   bpf_map__fd(c->skel->maps.ap_uw_maps),
				   bpf_map__fd(c->skel->maps.ap_uw_files));
	if (!c->unwind)
		return -ENOMEM;
	/* the tables earlier recordings built: those of the files every
	 * program maps are ready before the first sample */
	if (!ap_tabcache__dir(dir, sizeof(dir)))
		ap_unwind__use_cache(c->unwind, dir);
	/* system-wide, tables for every file of every process would cost
	 * seconds: only those that stacks need */
	ap_unwind__set_lazy(c->unwind, c->opts.system_wide);
	if (c->opts.unwind_budget_pct)
		ap_unwind__set_budget(c->unwind, c->opts.unwind_budget_pct);
	return 0;
}

static void unwind_close(struct ap_collector *c)
{
	ap_unwind__free(c->unwind);
	c->unwind = NULL;
}

/* open, set up and load the object once */
static int load_object(struct ap_collector *c, char *err, size_t errlen)
{
	const struct ap_collect_opts *o = &c->opts;
	uint64_t ring;
	size_t i;
	int ret;

	c->nr = 0;
	c->skel = aperture_bpf__open();
	if (!c->skel) {
		ret = -errno;
		explain_load_error(ret, err, errlen);
		return ret;
	}
	c->skel->rodata->ap_filter_targets = !o->system_wide;
	c->skel->rodata->ap_self_pid = getpid();
	c->skel->rodata->ap_filter_tids = o->nr_tids > 0;
	c->skel->rodata->ap_filter_cpus = o->cpu_mask != NULL;
	if (o->cpu_mask)
		memcpy((void *)c->skel->rodata->ap_cpu_mask, o->cpu_mask,
		       sizeof(c->skel->rodata->ap_cpu_mask));
	c->skel->rodata->ap_filter_uid = o->filter_uid;
	c->skel->rodata->ap_uid = o->uid;
	c->skel->rodata->ap_cgroup_id = o->cgroup_id;
	c->skel->rodata->ap_cgroup_level = o->cgroup_level;
	ring = ap_collect_opts__ring_bytes(o, c->ncpus);
	bpf_map__set_max_entries(c->skel->maps.events, (uint32_t)ring);
	c->skel->rodata->ap_wakeup_bytes = ring / 8 < 512 * 1024 ?
					   ring / 8 : 512 * 1024;
	unwind_prepare(c);

	for (i = 0; i < ap_nr_event_kinds; i++) {
		const struct ap_sensor_ops *ops = ap_event_kinds[i]->sensor;
		int on = !!(o->events & AP_EVMASK(ops->tag));

		c->ops[c->nr] = ops;
		c->enabled[c->nr] = on;
		memset(&c->status[c->nr], 0, sizeof(c->status[0]));
		snprintf(c->status[c->nr].name, sizeof(c->status[0].name),
			 "%s", ops->name);
		c->status[c->nr].tag = ops->tag;
		c->nr++;
		ret = ops->prepare(c, c->skel, on);
		if (ret) {
			snprintf(err, errlen, "preparing the %s sensor: %s",
				 ops->name, strerror(-ret));
			goto out_destroy;
		}
	}

	ret = aperture_bpf__load(c->skel);
	if (ret) {
		explain_load_error(ret, err, errlen);
		goto out_destroy;
	}
	for (i = 0; i < (size_t)o->nr_tids; i++) {
		__u32 tid = o->tids[i];
		__u8 one = 1;

		if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.ap_tids),
					&tid, &one, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "adding thread %u to the filter: %s",
				 tid, strerror(-ret));
			goto out_destroy;
		}
	}
	return 0;

out_destroy:
	aperture_bpf__destroy(c->skel);
	c->skel = NULL;
	return ret;
}

int ap_collector__open(struct ap_collector **out,
		       const struct ap_collect_opts *o, ap_event_fn fn,
		       ap_note_fn note, void *ctx, char *err, size_t errlen)
{
	struct ap_collector *c;
	int ret;

	*out = NULL;
	if (geteuid() != 0 && access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen,
			 "no kernel BTF at /sys/kernel/btf/vmlinux: aperture needs CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->opts = *o;
	c->fn = fn;
	c->note = note;
	c->ctx = ctx;
	c->ncpus = libbpf_num_possible_cpus();
	libbpf_set_print(libbpf_quiet);

	ret = load_object(c, err, errlen);
	if (ret && c->opts.call_graph == AP_CALL_GRAPH_CFI) {
		/* the unwinder needs bpf_loop (5.17) and bpf_task_pt_regs
		 * (5.15): older kernels still get frame-pointer stacks */
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		c->opts.call_graph = AP_CALL_GRAPH_FP;
		ret = load_object(c, err, errlen);
		if (!ret)
			ap_collector__notef(c,
					    "CFI unwinding unavailable (%s): user stacks from frame pointers",
					    why);
	}
	if (ret)
		goto out_free;
	ret = unwind_open(c);
	if (ret) {
		snprintf(err, errlen, "mapping the unwind tables: %s",
			 strerror(-ret));
		goto out_destroy;
	}
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events),
				 on_ringbuf, c, NULL);
	if (!c->rb) {
		ret = -errno;
		snprintf(err, errlen, "creating the ring buffer: %s",
			 strerror(-ret));
		goto out_destroy;
	}
	*out = c;
	return 0;

out_destroy:
	unwind_close(c);
	aperture_bpf__destroy(c->skel);
out_free:
	free(c);
	return ret;
}

static int mirror_mapping(void *ctx, const struct ap_mmap *m)
{
	ap_unwind__mapping(ctx, m);
	return 0;
}

/* at most this long for the tables of the processes running when a
 * system-wide recording starts (cold, python3's took 0.3 s under load) */
#define PRIME_NS		(1000 * 1000 * 1000ull)

struct prime {
	struct ap_unwind *u;
	uint64_t until;
	pid_t cmd;		/* the command, aperture's image until exec */
};

static int prime_running(void *ctx, pid_t pid)
{
	struct prime *pr = ctx;

	if (mono_ns() >= pr->until)
		return 1;
	if (pid != getpid() && pid != pr->cmd && ap_proc_running(pid) == 1)
		ap_proc_maps(pid, 1, mirror_mapping, pr->u);
	return 0;
}

/* system-wide, tables are compiled as stacks need them; but the first
 * samples land in the processes on a CPU now, and lazily their chains
 * were cut for the first 0.4 s (cold tables, the build budget shared
 * with every other process): theirs are mirrored and compiled first */
static void prime_system(struct ap_collector *c)
{
	struct prime pr = { c->unwind, mono_ns() + PRIME_NS, c->cmd_pid };

	ap_unwind__set_eager(c->unwind, pr.until);
	ap_proc_pids(prime_running, &pr);
	ap_unwind__set_eager(c->unwind, 0);
	ap_unwind__flush(c->unwind);
}

int ap_collector__add_target(struct ap_collector *c, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	if (c->opts.system_wide)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.targets), &key,
				&one, BPF_ANY))
		return -errno;
	/* a running process: its tables before the sensors attach (a
	 * command to be started is still aperture's own image) */
	if (c->unwind && !c->opts.cmd) {
		ap_proc_maps(pid, 1, mirror_mapping, c->unwind);
		ap_unwind__flush(c->unwind);
	}
	if (c->opts.cmd)
		c->cmd_pid = pid;
	return 0;
}

void ap_collector__target_changed(struct ap_collector *c, pid_t pid)
{
	int i;

	if (c->stopped)		/* arming probes for a stopped recording */
		return;
	for (i = 0; i < c->nr; i++)
		if (c->enabled[i] && c->ops[i]->target_changed &&
		    c->status[i].state != AP_SENSOR_UNAVAILABLE)
			c->ops[i]->target_changed(c, c->skel, pid);
}

void ap_collector__mapping(struct ap_collector *c, const struct ap_mmap *m)
{
	/* the command before its exec is aperture: nothing to unwind */
	if (!c->cmd_pid || (pid_t)m->pid != c->cmd_pid || c->cmd_execd)
		ap_unwind__mapping(c->unwind, m);
}

void ap_collector__user_stack(struct ap_collector *c, pid_t pid,
			      const uint64_t *ips, size_t n, uint32_t uflags)
{
	if (uflags & (AP_USTACK_FP | AP_USTACK_OUTSIDE))
		ap_unwind__want(c->unwind, pid, ips, n);
}

void ap_collector__image_gone(struct ap_collector *c, pid_t pid)
{
	ap_unwind__image_gone(c->unwind, pid);
	if (pid == c->cmd_pid)
		c->cmd_execd = 1;
}

int ap_collector__start(struct ap_collector *c, char *err, size_t errlen)
{
	int i, ret, running = 0, asked = 0;
	char why[256];

	/* before the targets run: every mapping they make from now on */
	ret = ap_kmaps__open(&c->kmaps, c->ncpus, why, sizeof(why));
	if (ret)
		ap_collector__notef(c, "mappings as they happen: unavailable: %s; mappings come from /proc/PID/maps only",
				    why);

	/* the command's files, so that its first samples find tables */
	if (c->unwind && c->opts.cmd && c->opts.cmd[0])
		ap_unwind__preload_command(c->unwind, c->opts.cmd[0]);

	/* task life cycle: always on, it keeps the target set right */
	c->skel->links.ap_task_fork =
		bpf_program__attach(c->skel->progs.ap_task_fork);
	c->skel->links.ap_task_exec =
		bpf_program__attach(c->skel->progs.ap_task_exec);
	c->skel->links.ap_task_exit =
		bpf_program__attach(c->skel->progs.ap_task_exit);
	c->skel->links.ap_task_rename =
		bpf_program__attach(c->skel->progs.ap_task_rename);
	if (!c->skel->links.ap_task_fork || !c->skel->links.ap_task_exec ||
	    !c->skel->links.ap_task_exit) {
		ret = -errno;
		snprintf(err, errlen,
			 "attaching to sched_process_* tracepoints: %s",
			 strerror(-ret));
		return ret;
	}
	/* (after the task tracepoints: one that exits meanwhile is seen) */
	if (c->unwind && c->opts.system_wide)
		prime_system(c);

	/* the window opens with the first sensor: its end is the events'
	 * own time, so that a reader running late cannot stretch it */
	c->win.start_ns = mono_ns();
	if (c->window_ns) {
		c->win.end_ns = c->win.start_ns + c->window_ns;
		c->skel->bss->ap_end_ns = c->win.end_ns;
		ap_unwind__set_until(c->unwind, c->win.end_ns);
	}
	for (i = 0; i < c->nr; i++) {
		if (!c->enabled[i])
			continue;
		asked++;
		ret = c->ops[i]->attach(c, c->skel, &c->status[i]);
		if (ret) {
			c->status[i].state = AP_SENSOR_UNAVAILABLE;
			if (!c->status[i].reason[0])
				snprintf(c->status[i].reason,
					 sizeof(c->status[i].reason), "%s",
					 strerror(-ret));
			ap_collector__notef(c, "%s: unavailable: %s",
					    c->ops[i]->name,
					    c->status[i].reason);
			continue;
		}
		running++;
	}
	if (asked && !running) {
		snprintf(err, errlen, "no event source could be started");
		return -ENODEV;
	}
	c->win.attached_ns = mono_ns();
	ap_unwind__go_live(c->unwind);
	return 0;
}

void ap_collector__set_window(struct ap_collector *c, uint64_t ns)
{
	c->window_ns = ns;
}

const struct ap_window *ap_collector__window(const struct ap_collector *c)
{
	return &c->win;
}

int ap_collector__poll(struct ap_collector *c, int timeout_ms)
{
	int i, n, total;

	if (aborted(c))
		return 0;
	c->pass_n = 0;
	c->pass_over = 0;
	c->pass_start = mono_ns();
	/* the drain's time is over: the sensors' finish polls too, and
	 * what the ring still holds is counted lost, not read one record a
	 * pass */
	if (c->stopped && c->drain_until && c->pass_start >= c->drain_until)
		return 0;
	/* the pass ends with its budget, the window or the drain */
	c->pass_until = c->pass_start + AP_POLL_BUDGET_MS * 1000000ull;
	if (c->stopped && c->drain_until && c->drain_until < c->pass_until)
		c->pass_until = c->drain_until;
	if (!c->stopped && c->win.end_ns && c->win.end_ns > c->pass_start &&
	    c->win.end_ns < c->pass_until)
		c->pass_until = c->win.end_ns;
	/*
	 * Busy sensors (syscall, gpu) submit without waking the reader, so
	 * that it reads in batches instead of competing with the target for
	 * the CPUs: take what is waiting on every pass, and still sleep in
	 * epoll until a wakeup or the timeout.
	 */
	/* mappings first: they normally precede the samples that use them;
	 * not counted (side-band: the whole system's, never "done") */
	n = drain_kmaps(c);
	if (n < 0)
		return n;
	ap_unwind__flush(c->unwind);
	total = ring_buffer__consume(c->rb);
	/* processes first seen in the samples: mapped from /proc */
	ap_unwind__flush(c->unwind);
	if (total < 0 && !(total == PASS_OVER && c->pass_over))
		return total;
	/* the budget, the window or the drain is over: what can wait does
	 * (a table build, a sensor's table read take 100s of ms under load) */
	if (c->pass_over || mono_ns() >= c->pass_until)
		return c->pass_n;
	ap_unwind__work(c->unwind);
	for (i = 0; i < c->nr; i++) {
		if (!c->enabled[i] || !c->ops[i]->poll ||
		    c->status[i].state == AP_SENSOR_UNAVAILABLE)
			continue;
		if (mono_ns() >= c->pass_until)
			return total;
		/* stopped: what it holds, its finish delivers (reading a
		 * table twice took half a second under load) */
		if (c->stopped && c->ops[i]->finish)
			continue;
		n = c->ops[i]->poll(c);
		if (n < 0)
			return n;
		total += n;
		/* user-space sources are busy: do not sleep on the ring */
		if (n)
			timeout_ms = 0;
	}
	c->pass_n = 0;
	n = ring_buffer__poll(c->rb, timeout_ms);
	if (n < 0 && !(n == PASS_OVER && c->pass_over))
		return n;
	return total + c->pass_n;
}

int ap_collector__read_sums(struct ap_collector *c)
{
	int n;

	do
		n = ap_collector__poll(c, 0);
	while (n > 0);
	if (n < 0 && n != -EINTR)
		return n;
	c->sums_due = 1;
	n = ap_collector__poll(c, 0);
	c->sums_due = 0;
	return n;
}

void ap_collector__stop(struct ap_collector *c)
{
	int i;

	c->stopped = 1;
	c->skel->bss->ap_stopped = 1;
	for (i = 0; i < c->nr; i++)
		if (c->enabled[i] && c->ops[i]->stop &&
		    c->status[i].state != AP_SENSOR_UNAVAILABLE)
			c->ops[i]->stop(c);
}

/*
 * The records the ring holds between the consumer's and the producer's
 * positions (bpf_ringbuf's layout: a consumer page, a producer page, the
 * data mapped twice; each record an 8-byte header, its length with the
 * busy and discard bits, padded to 8), read through a mapping of our own:
 * libbpf's is private to it.
 */
static uint64_t ring_unread(struct ap_collector *c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t size = bpf_map__max_entries(c->skel->maps.events);
	size_t len = 2 * page + 2 * size;
	uint64_t cons, prod, n = 0;
	const uint8_t *data;
	void *m;

	m = mmap(NULL, len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(c->skel->maps.events), 0);
	if (m == MAP_FAILED)
		return 0;
	cons = __atomic_load_n((uint64_t *)m, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n((uint64_t *)((char *)m + page),
			       __ATOMIC_ACQUIRE);
	data = (const uint8_t *)m + 2 * page;
	while (cons < prod) {
		uint32_t hdr = __atomic_load_n((const uint32_t *)
					       (data + (cons & (size - 1))),
					       __ATOMIC_ACQUIRE);

		/* one still being written ends the walk */
		if (hdr & BPF_RINGBUF_BUSY_BIT) {
			n++;
			break;
		}
		if (!(hdr & BPF_RINGBUF_DISCARD_BIT))
			n++;
		hdr &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		cons += (hdr + BPF_RINGBUF_HDR_SZ + 7) & ~7ull;
	}
	munmap(m, len);
	return n;
}

uint64_t ap_collector__unread(struct ap_collector *c)
{
	return ring_unread(c);
}

int ap_collector__drain(struct ap_collector *c, uint64_t until_ns)
{
	int n;

	c->drain_until = until_ns;
	do
		n = ap_collector__poll(c, 0);
	while (n > 0 && !aborted(c) && mono_ns() < until_ns);
	c->win.unread = ring_unread(c);
	return n < 0 && n != -EINTR ? n : 0;
}

void ap_collector__set_abort(struct ap_collector *c,
			     const volatile sig_atomic_t *flag)
{
	c->abort = flag;
}

int ap_collector__finish(struct ap_collector *c)
{
	int i, n, total = 0;

	for (i = 0; i < c->nr; i++) {
		if (aborted(c))
			break;
		if (!c->enabled[i] || !c->ops[i]->finish ||
		    c->status[i].state == AP_SENSOR_UNAVAILABLE)
			continue;
		n = c->ops[i]->finish(c);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

void ap_collector__counters(struct ap_collector *c, uint64_t *out)
{
	int fd = bpf_map__fd(c->skel->maps.stats);
	__u64 *vals;
	__u32 k;
	int cpu;

	memset(out, 0, AP_STAT_NR * sizeof(*out));
	vals = calloc(c->ncpus, sizeof(*vals));
	if (!vals)
		return;
	for (k = 0; k < AP_STAT_NR; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (cpu = 0; cpu < c->ncpus; cpu++)
			out[k] += vals[cpu];
	}
	free(vals);
	/* left in the ring at the end: lost as those the ring had no room for */
	out[AP_STAT_RB_DROP] += c->win.unread;
}

void ap_collector__losses(struct ap_collector *c, ap_loss_fn fn, void *ctx)
{
	int fd = bpf_map__fd(c->skel->maps.ap_loss_procs);
	struct ap_loss_key k, next, *prev = NULL;
	struct ap_loss v, *per_cpu;
	uint64_t n[AP_LOSS_NR];
	char comm[AP_COMM_LEN + 1];
	__u32 zero = 0;
	int cpu, i, any;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;	/* cannot happen: nothing deletes */
		any = 0;
		for (i = 0; i < AP_LOSS_NR; i++)
			any |= (n[i] = v.n[i]) != 0;
		if (!any)
			continue;
		memcpy(comm, v.comm, AP_COMM_LEN);
		comm[AP_COMM_LEN] = '\0';
		fn(ctx, k.tgid, k.start_ns, comm, 0, n);
	}
	per_cpu = calloc(c->ncpus, sizeof(*per_cpu));
	if (!per_cpu)
		return;
	memset(n, 0, sizeof(n));
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.ap_loss_over),
				&zero, per_cpu))
		memset(per_cpu, 0, c->ncpus * sizeof(*per_cpu));
	/* the records left in the ring are nobody's in particular */
	n[AP_STAT_RB_DROP] = c->win.unread;
	any = n[AP_STAT_RB_DROP] != 0;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		for (i = 0; i < AP_LOSS_NR; i++)
			any |= (n[i] += per_cpu[cpu].n[i]) != 0;
	if (any)
		fn(ctx, 0, 0, "", 1, n);
	free(per_cpu);
}

size_t ap_collector__sensors(const struct ap_collector *c,
			     const struct ap_sensor **out)
{
	*out = c->status;
	return c->nr;
}

void ap_collector__unwind_stats(const struct ap_collector *c,
				struct ap_unwind_stats *st)
{
	ap_unwind__stats(c->unwind, st);
}

/* the kernel memory map m may take at most: an array's whole, a hash
 * map's elements with the kernel's header of each (struct htab_elem) */
static uint64_t map_bytes(const struct bpf_map *m, int ncpus)
{
	uint64_t n = bpf_map__max_entries(m);
	uint64_t k = (bpf_map__key_size(m) + 7) & ~7u;
	uint64_t v = (bpf_map__value_size(m) + 7) & ~7u;

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_ARRAY:
		return n * v;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return n * v * (uint64_t)ncpus;
	default:
		return n * (k + v + 48);
	}
}

/* what the unwinder's maps may take of kernel memory, all together */
static uint64_t unwind_kmem(const struct ap_collector *c)
{
	const struct bpf_map *maps[] = {
		c->skel->maps.ap_uw_rows, c->skel->maps.ap_uw_procs,
		c->skel->maps.ap_uw_maps, c->skel->maps.ap_uw_files,
		c->skel->maps.ap_uw_learnt, c->skel->maps.ap_uw_scratch,
	};
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		sum += map_bytes(maps[i], c->ncpus);
	return sum;
}

void ap_collector__unwind_info(const struct ap_collector *c,
			       const uint64_t *counters,
			       struct ap_unwind_info *out)
{
	static const struct {
		uint32_t uwc, stat;
	} from_bpf[] = {
		{ AP_UWC_STACKS, AP_STAT_UW_STACKS },
		{ AP_UWC_COMPLETE, AP_STAT_UW_COMPLETE },
		{ AP_UWC_TRUNCATED, AP_STAT_UW_TRUNCATED },
		{ AP_UWC_FP_FRAMES, AP_STAT_UW_FP_FRAMES },
		{ AP_UWC_NO_PROC, AP_STAT_UW_NO_PROC },
		{ AP_UWC_BAD_RULE, AP_STAT_UW_BAD_RULE },
		{ AP_UWC_FAULT, AP_STAT_UW_FAULT },
		{ AP_UWC_OUTSIDE, AP_STAT_UW_OUTSIDE },
		{ AP_UWC_VMA, AP_STAT_UW_VMA },
	};
	struct ap_unwind_stats st;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (c->opts.call_graph != AP_CALL_GRAPH_CFI) {
		out->method = AP_UNWIND_FP;
		out->max_stack = c->opts.max_stack &&
				 c->opts.max_stack < AP_MAX_FP_USTACK ?
				 c->opts.max_stack : AP_MAX_FP_USTACK;
		return;
	}
	out->method = AP_UNWIND_CFI;
	out->max_stack = c->opts.max_stack ? c->opts.max_stack : AP_MAX_USTACK;
	for (i = 0; i < sizeof(from_bpf) / sizeof(from_bpf[0]); i++)
		out->c[from_bpf[i].uwc] = counters[from_bpf[i].stat];
	ap_unwind__stats(c->unwind, &st);
	out->c[AP_UWC_TABLES] = st.tables;
	out->c[AP_UWC_ROWS] = st.rows;
	out->c[AP_UWC_NO_CFI] = st.no_cfi;
	out->c[AP_UWC_BUILD_NS] = st.build_ns;
	out->c[AP_UWC_NO_ROOM] = st.no_room;
	out->c[AP_UWC_DEBUG_FILES] = st.debug_files;
	out->c[AP_UWC_KMEM] = unwind_kmem(c);
}

uint32_t ap_collector__events(const struct ap_collector *c)
{
	return c->opts.events;
}

uint32_t ap_collector__freq(const struct ap_collector *c)
{
	return c->opts.freq;
}

void ap_collector__close(struct ap_collector *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		if (c->ops[i]->close)
			c->ops[i]->close(c);
	ring_buffer__free(c->rb);
	unwind_close(c);
	ap_kmaps__close(c->kmaps);
	aperture_bpf__destroy(c->skel);
	free(c);
}
