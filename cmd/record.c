// SPDX-License-Identifier: GPL-2.0
/* aperture record: sample the targets into a record file. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aperture.h"
#include "cli.h"
#include "format/format.h"
#include "gpu/libs.h"
#include "record/bidcache.h"
#include "record/collector.h"
#include "record/recorder.h"
#include "record/recording.h"
#include "record/spool.h"
#include "record/targets.h"
#include "record/workload.h"
#include "symbols/symbolizer.h"
#include "tracepoint/codec.h"
#include "util/labels.h"
#include "util/num.h"

#define DEFAULT_FREQ	999
/* after the recording, the build-id copies still queued get this long */
#define BIDCACHE_FINISH_NS	(5 * 1000000000ull)
/* what the ring holds at the end is read for this long at most: with -d
 * the recording must end soon after its window (within a second, under
 * any load), and without it a Ctrl-C must not wait for ever either */
#define DRAIN_WINDOW_NS	(250 * 1000 * 1000ull)
#define DRAIN_NS	(5 * 1000 * 1000 * 1000ull)
/* --push: the window when --switch-output gives none */
#define PUSH_WINDOW_NS	(10 * 1000 * 1000 * 1000ull)
/* at the end, the pushes still going get this long */
#define PUSH_FINISH_NS	(5 * 1000 * 1000 * 1000ull)
#define PUSH_SPOOL_SIZE	(256ull << 20)

struct record_opts {
	struct ap_cli_targets t;	/* -p, -a, -e, -F */
	const char *output;
	double duration;		/* seconds; 0: until the end */
	int quiet;			/* -q: errors only */
	int verbose;			/* -v */
	char **cmd;			/* -- CMD ARGS */
	int cmd_times;			/* -p PID -- CMD: it only sets the
					 * duration, as perf's */
	char cmd_path[4096];		/* cmd[0] found in PATH */
	const char *buildid_dir;	/* NULL: from the environment */
	int no_buildid_cache;
	struct ap_bidcache_limits bid_limits;
	struct ap_collect_opts collect;
	struct ap_workload_user user;	/* --user: the command runs as */
	/* -t, -C, -u, -G: filters in BPF (ap_collect_opts) */
	uint32_t tids[AP_MAX_TIDS];
	int nr_tids;
	uint64_t cpu_mask[AP_MAX_CPUS / 64];
	char filters[512];		/* for the header's target line */
	char cupti_lib[PATH_MAX];	/* -e gpu -- CMD */
	/* the tracepoints of the last -e: what --filter applies to */
	int tp_from, tp_to;
	/* --switch-output, --switch-max-files, --push* */
	int switch_output;
	struct ap_switch sw;
	uint32_t switch_max_files;
	struct ap_push_child push;
	uint64_t push_spool_size;
	char labels[AP_LABELS_MAX];	/* --label's, for the header */
};

enum {
	OPT_SYSCALL_STACKS = 0x100,
	OPT_CUDA_LIB,
	OPT_MEM_DENSITY,
	OPT_MIN_BLOCK,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_MAX_INFLIGHT,
	OPT_MMAP_PAGES,
	OPT_USER,
	OPT_BUILDID_DIR,
	OPT_NO_BUILDID_CACHE,
	OPT_BUILDID_MAX_FILE,
	OPT_BUILDID_MAX_TOTAL,
	OPT_BUILDID_MIN_FREE,
	OPT_FILTER,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_PUSH,
	OPT_PUSH_TOKEN_FILE,
	OPT_PUSH_CA_FILE,
	OPT_PUSH_SPOOL_SIZE,
	OPT_LABEL,
};

#define AP_CGROUP2_DEFAULT	"/sys/fs/cgroup"

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Targets:", 1 },
	{ "pid", 'p', "PID[,PID..]", 0, "Record these processes, all their threads and the processes they fork", 1 },
	{ "all-cpus", 'a', NULL, 0, "Record system-wide", 1 },
	{ "user", OPT_USER, "USER", 0, "Run CMD as USER (name or uid), with that user's groups, HOME, USER, LOGNAME and SHELL", 1 },
	{ "tid", 't', "TID[,TID..]", 0, "Record only these threads (of running processes)", 1 },
	{ "cpu", 'C', "CPUS", 0, "Record only on these CPUs: 0,2-3 (alone: system-wide on them)", 1 },
	{ "uid", 'u', "USER", 0, "Record only the threads of USER, name or uid (alone: system-wide)", 1 },
	{ "cgroup", 'G', "CGROUP", 0, "Record only the threads in this cgroup v2 or below it: a path, or a name under the cgroup2 mount (alone: system-wide)", 1 },
	{ NULL, 0, NULL, 0, "What to record:", 2 },
	{ "events", 'e', "LIST", 0, "Comma-separated events to record (default: cpu)", 2 },
	{ "filter", OPT_FILTER, "EXPR", 0, "Keep only the events of the tracepoints of the -e before it that pass EXPR, as perf's --filter: FIELD OP VALUE (==, !=, <, <=, >, >=, &; strings ==, != and ~ a glob), with &&, ||, ! and ( ); applied by aperture as it records (not in the kernel)", 2 },
	{ "freq", 'F', "HZ", 0, "CPU sampling frequency, or max (default: 999)", 2 },
	{ "syscall-stacks", OPT_SYSCALL_STACKS, NULL, 0, "syscall: record the user stack at entry (costly)", 2 },
	{ "cuda-lib", OPT_CUDA_LIB, "PATH", 0, "gpu: also probe this CUDA runtime or driver library", 2 },
	{ "mem-density", OPT_MEM_DENSITY, "LEVEL", 0, "mem: sampling density low, default or high", 2 },
	{ "count", 'c', "PERIOD", 0, "Sample every PERIOD events instead of -F HZ (cycles, page-faults, ...; mem: every PERIOD operations, overriding --mem-density)", 2 },
	{ "min-block", OPT_MIN_BLOCK, "USECS", 0, "sched: ignore off-CPU periods shorter than USECS (default: 1)", 2 },
	{ "call-graph", OPT_CALL_GRAPH, "cfi|fp", 0, "How user stacks are unwound: cfi (default: from each file's CFI, in the kernel; perf's dwarf[,SIZE] is taken for it) or fp (frame pointers)", 2 },
	{ "max-stack", OPT_MAX_STACK, "N", 0, "At most N user frames per stack (default and limit: 256; fp: 127)", 2 },
	{ "max-inflight", OPT_MAX_INFLIGHT, "N", 0, "syscall: at most N calls in flight at once, all threads together (default: as many as the machine can have threads); calls beyond are lost, counted by process", 2 },
	{ "mmap-pages", 'm', "PAGES", 0, "The ring buffer's size: pages (a power of two) or a size with B, K, M or G, as perf's -m (default: 1 MiB per CPU, 8 to 16 MiB; system-wide 16 MiB)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "Write to FILE (default: aperture.data; an existing one is kept as FILE.old); - for standard output", 3 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 3 },
	{ "label", OPT_LABEL, "NAME=VALUE", 0, "A label of the recording (repeatable, 16 at most), in the file's header: report's pprof puts it on every sample, push on every series", 3 },
	{ "quiet", 'q', NULL, 0, "No sensor notes, no summary line, no word on the command's status", 3 },
	{ "verbose", 'v', NULL, 0, "Also print libbpf's messages (as APERTURE_DEBUG=1) and, at the end, what the targets' mappings cost the recorder and its memory", 3 },
	{ "switch-output", OPT_SWITCH_OUTPUT, "SPEC", OPTION_ARG_OPTIONAL, "Cut the recording into back-to-back windows, each a whole file OUTPUT.<YYYYmmddHHMMSScc>, as perf: SPEC a time (500ms, 10s, 1m, 1h), a size (100M) or signal (the default: at each SIGUSR2, which every SPEC takes)", 3 },
	{ "switch-max-files", OPT_SWITCH_MAX_FILES, "N", 0, "Keep at most N window files, the oldest removed", 3 },
	{ "push", OPT_PUSH, "URL", 0, "Send each finished window with 'aperture push --to URL' (implies --switch-output=10s) and remove it once sent; a window not sent yet is tried again, 1 s doubling to 60 s", 3 },
	{ "push-token-file", OPT_PUSH_TOKEN_FILE, "FILE", 0, "--push: the bearer token, from FILE", 3 },
	{ "push-ca-file", OPT_PUSH_CA_FILE, "FILE", 0, "--push: the server's CA certificates, from FILE", 3 },
	{ "push-spool-size", OPT_PUSH_SPOOL_SIZE, "SIZE", 0, "--push: at most SIZE of windows not sent yet, the oldest removed and counted lost (default: 256M)", 3 },
	{ NULL, 'g', NULL, 0, "Accepted for perf users: stacks are always recorded", 2 },
	{ "buildid-dir", OPT_BUILDID_DIR, "DIR", 0, "Keep files only the targets reach (another mount namespace, deleted) in this build-id cache (default: $APERTURE_BUILDID_DIR, else $XDG_CACHE_HOME/aperture/build-id or ~/.cache/aperture/build-id)", 3 },
	{ "no-buildid-cache", OPT_NO_BUILDID_CACHE, NULL, 0, "Keep no files in the build-id cache", 3 },
	{ "buildid-max-file", OPT_BUILDID_MAX_FILE, "SIZE", 0, "Keep no file bigger than SIZE (bytes, or with K, M, G, T; default: 256M)", 3 },
	{ "buildid-max-total", OPT_BUILDID_MAX_TOTAL, "SIZE", 0, "Copy at most SIZE into the cache in this recording (default: 1G)", 3 },
	{ "buildid-min-free", OPT_BUILDID_MIN_FREE, "SIZE", 0, "Leave at least SIZE free on the cache's filesystem (default: 1G)", 3 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Sample the CPU stacks (and other events) of a command, of running "
	"processes or of the whole system into a record file.\n\n"
	"Recording ends on Ctrl-C, SIGTERM, after --duration, or when every "
	"target has exited; the file is always finished.\n\n"
	"Events (-e, comma-separated; default cpu):\n"
	"  cpu           stacks sampled at -F Hz (cycles, else cpu-clock)\n"
	"  cycles, instructions, cpu-clock, page-faults, context-switches\n"
	"                stacks sampled on that event, as perf: at -F Hz or\n"
	"                every -c PERIOD; :u user mode only, :k kernel only;\n"
	"                a hardware event without a PMU falls back to\n"
	"                cpu-clock, said so ('aperture list' shows which)\n"
	"  syscall       every call: counts, errors, latency (summed in BPF)\n"
	"  syscall:calls + a record per call: exact percentiles\n"
	"  lock          futex waits, kernel lock contention\n"
	"  lock:pthread  + pthread mutex wait and hold time (uprobes)\n"
	"  gpu           CUDA kernel launches (uprobes) and, for -- CMD or a\n"
	"                program run by 'aperture gpu-env', their device\n"
	"                times (CUPTI)\n"
	"  mem           memory accesses: AMD IBS, else page faults\n"
	"  sched         on/off-CPU time, switches, off-CPU stacks\n"
	"  io            bytes per file, pipe and socket (summed in BPF)\n"
	"  io:calls      + a record per call\n"
	"  CAT:NAME      a tracepoint (sched:sched_switch; a glob names\n"
	"                several): counts, fields and stacks; --filter\n"
	"                keeps those that pass ('aperture list tracepoint')\n"
	"A sensor the machine cannot run is named on standard error with the "
	"reason, and the others go on."
"\v"
	"Examples:\n"
	"  aperture record -F 999 -- ./prog args\n"
	"  aperture record -p 1234,1240 -d 10\n"
	"  aperture record -a -d 5 -o system.data\n"
	"  aperture record -e syscalls:sys_enter_openat -- ./prog\n";

/* --filter: for each tracepoint of the last -e, checked against its
 * fields now, so that a typo is one line here and not a failed record */
static void set_filter(struct argp_state *state, struct record_opts *o,
		       const char *expr)
{
	char err[512];
	int i;

	if (o->tp_from == o->tp_to)
		ap_cli_usage_error(state,
				   "--filter '%s': give it after the -e of a tracepoint, as perf: -e sched:sched_switch --filter 'prev_pid == 1'",
				   expr);
	if (strlen(expr) >= AP_TP_FILTER_MAX)
		ap_cli_usage_error(state, "--filter: longer than %d bytes",
				   AP_TP_FILTER_MAX - 1);
	if (ap_tp_filter__check(expr, (const char *const *)
				&o->collect.tracepoints[o->tp_from],
				o->tp_to - o->tp_from, err, sizeof(err)))
		ap_cli_usage_error(state, "%s", err);
	for (i = o->tp_from; i < o->tp_to; i++)
		o->collect.tp_filters[i] = expr;
}

static void add_filter_note(struct record_opts *o, const char *fmt,
			    const char *arg)
{
	size_t off = strlen(o->filters);

	snprintf(o->filters + off, sizeof(o->filters) - off, fmt, arg);
}

/* -t, -C: what lib/record/targets.c says is wrong, a usage error */
static void parse_tids(struct argp_state *state, struct record_opts *o,
		       const char *arg)
{
	char err[256];

	if (ap_targets__parse_tids(arg, o->tids, &o->nr_tids, o->t.pids,
				   &o->t.nr_pids, AP_CLI_MAX_PIDS, err,
				   sizeof(err)))
		ap_cli_usage_error(state, "%s", err);
	add_filter_note(o, ", threads %s", arg);
}

static void parse_cpus(struct argp_state *state, struct record_opts *o,
		       const char *arg)
{
	char err[256];

	if (ap_targets__parse_cpus(arg, o->cpu_mask, err, sizeof(err)))
		ap_cli_usage_error(state, "%s", err);
	o->collect.cpu_mask = o->cpu_mask;
	add_filter_note(o, ", CPUs %s", arg);
}

/* -G: a cgroup v2 directory, absolute or under the mount: its id (as
 * bpf_get_current_cgroup_id gives it) and its depth below the root */
static void parse_cgroup(struct argp_state *state, struct record_opts *o,
			 const char *arg)
{
	struct ap_cgroup cg;
	char err[PATH_MAX + 256];

	if (ap_cgroup__resolve(arg, &cg, err, sizeof(err)))
		ap_cli_usage_error(state, "%s", err);
	o->collect.cgroup_id = cg.id;
	o->collect.cgroup_level = cg.level;
	add_filter_note(o, ", cgroup %s", cg.name);
}

/* -u, --user: a name or a uid, into u */
static void find_user(struct argp_state *state, const char *arg,
		      struct ap_workload_user *u)
{
	int err = ap_workload_user__find(arg, u);

	if (err == -ENOMEM)
		ap_cli_usage_error(state, "out of memory");
	if (err)
		ap_cli_usage_error(state, "no such user: '%s'", arg);
}

/* --buildid-*: a size, up to an exbibyte */
static void parse_size(struct argp_state *state, const char *opt,
		       const char *arg, uint64_t *bytes)
{
	if (ap_parse_size(arg, 0, 1ull << 60, bytes))
		ap_cli_usage_error(state,
				   "bad %s '%s': give bytes, or a size with K, M, G or T",
				   opt, arg);
}

/* --switch-output[=SPEC]: as perf, a time (s, m, h, d; ms as well), a
 * size (B, K, M, G) or signal; none: signal */
static void parse_switch(struct argp_state *state, struct record_opts *o,
			 const char *arg)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "ms", 1000000ull }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull },
		{ "d", 86400000000000ull },
	};
	size_t n = arg ? strlen(arg) : 0, i, u;
	unsigned long long v;
	char num[32];

	o->switch_output = 1;
	if (!arg || !strcmp(arg, "signal"))
		return;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		u = strlen(units[i].unit);
		if (n <= u || n - u >= sizeof(num) ||
		    strcmp(arg + n - u, units[i].unit))
			continue;
		memcpy(num, arg, n - u);
		num[n - u] = '\0';
		/* 10ms at least: a window is a file, its state written anew */
		if (ap_parse_u64(num, 1, UINT64_MAX / units[i].ns, &v) ||
		    v * units[i].ns < 10000000ull)
			break;
		o->sw.every_ns = v * units[i].ns;
		return;
	}
	if (i == sizeof(units) / sizeof(units[0]) &&
	    !ap_parse_size(arg, 1, 1ull << 50, &o->sw.size))
		return;
	ap_cli_usage_error(state,
			   "bad --switch-output '%s': give a time of 10ms or more (500ms, 10s, 1m, 1h), a size (100M) or signal",
			   arg);
}

static uint32_t parse_max_files(struct argp_state *state, const char *arg)
{
	unsigned long long v;

	if (ap_parse_u64(arg, 1, 1u << 20, &v))
		ap_cli_usage_error(state, "bad --switch-max-files '%s': give 1 to %u files",
				   arg, 1u << 20);
	return (uint32_t)v;
}

/* at the end of the options: --push implies windows; a window file is
 * no stream */
static void check_switch(struct argp_state *state, struct record_opts *o)
{
	if ((o->push.token_file || o->push.ca_file || o->push_spool_size) &&
	    !o->push.url)
		ap_cli_usage_error(state,
				   "--push-token-file, --push-ca-file and --push-spool-size go with --push URL");
	if (o->push.url && !o->switch_output) {
		o->switch_output = 1;
		o->sw.every_ns = PUSH_WINDOW_NS;
	}
	if (o->switch_max_files && !o->switch_output)
		ap_cli_usage_error(state,
				   "--switch-max-files goes with --switch-output or --push");
	if (o->switch_output && !strcmp(o->output, "-"))
		ap_cli_usage_error(state,
				   "--switch-output writes files: not with -o -");
	if (o->push.url && !o->push_spool_size)
		o->push_spool_size = PUSH_SPOOL_SIZE;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	unsigned long long v;
	char *end;

	switch (key) {
	case 't':
		parse_tids(state, o, arg);
		break;
	case 'C':
		parse_cpus(state, o, arg);
		break;
	case 'u': {
		struct ap_workload_user u;

		find_user(state, arg, &u);
		o->collect.filter_uid = 1;
		o->collect.uid = u.uid;
		add_filter_note(o, ", user %s", u.name);
		break;
	}
	case 'G':
		parse_cgroup(state, o, arg);
		break;
	case OPT_SYSCALL_STACKS:
		o->collect.syscall_stacks = 1;
		break;
	case OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		break;
	case OPT_NO_BUILDID_CACHE:
		o->no_buildid_cache = 1;
		break;
	case OPT_BUILDID_MAX_FILE:
		parse_size(state, "--buildid-max-file", arg,
			   &o->bid_limits.max_file);
		break;
	case OPT_BUILDID_MAX_TOTAL:
		parse_size(state, "--buildid-max-total", arg,
			   &o->bid_limits.max_total);
		break;
	case OPT_BUILDID_MIN_FREE:
		parse_size(state, "--buildid-min-free", arg,
			   &o->bid_limits.min_free);
		break;
	case OPT_CUDA_LIB:
		if (access(arg, R_OK))
			ap_cli_usage_error(state, "cannot read CUDA library '%s': %s",
					   arg, strerror(errno));
		o->collect.cuda_lib = arg;
		break;
	case OPT_MEM_DENSITY:
		if (!strcmp(arg, "low"))
			o->collect.mem_density = 0;
		else if (!strcmp(arg, "default"))
			o->collect.mem_density = 1;
		else if (!strcmp(arg, "high"))
			o->collect.mem_density = 2;
		else
			ap_cli_usage_error(state,
					   "bad density '%s': give low, default or high",
					   arg);
		break;
	case 'c':
		if (ap_parse_u64(arg, 1, 1ull << 40, &v))
			ap_cli_usage_error(state, "bad period '%s': give a count >= 1",
					   arg);
		o->collect.mem_period = v;
		o->collect.cpu_period = v;
		break;
	case OPT_MIN_BLOCK:
		if (ap_parse_u64(arg, 0, 1ull << 40, &v))
			ap_cli_usage_error(state, "bad --min-block '%s': give microseconds",
					   arg);
		o->collect.min_block_ns = v * 1000;
		break;
	case OPT_CALL_GRAPH:
		/* perf's dwarf[,SIZE]: the same stacks, from CFI, with no
		 * stack copied out, so no size to give */
		if (!strcmp(arg, "cfi") || !strcmp(arg, "dwarf") ||
		    (!strncmp(arg, "dwarf,", 6) &&
		     !ap_parse_u64(arg + 6, 8, 65528, &v)))
			o->collect.call_graph = AP_CALL_GRAPH_CFI;
		else if (!strcmp(arg, "fp"))
			o->collect.call_graph = AP_CALL_GRAPH_FP;
		else
			ap_cli_usage_error(state,
					   "bad --call-graph '%s': give cfi (or perf's dwarf[,SIZE]) or fp",
					   arg);
		break;
	case 'm':
		/* a BPF ring is a power of two of pages */
		if (ap_parse_pow2_size(arg, sysconf(_SC_PAGESIZE), 64 * 1024,
				       1ull << 30, &o->collect.ring_bytes))
			ap_cli_usage_error(state,
					   "bad --mmap-pages '%s': give a power of two of pages, or a size (64K to 1G, a power of two: 4M)",
					   arg);
		break;
	case OPT_MAX_STACK:
		if (ap_parse_u64(arg, 1, AP_MAX_USTACK, &v))
			ap_cli_usage_error(state,
					   "bad --max-stack '%s': give 1 to %d frames",
					   arg, AP_MAX_USTACK);
		o->collect.max_stack = (uint32_t)v;
		break;
	case OPT_MAX_INFLIGHT:
		if (ap_parse_u64(arg, 1, 1u << 22, &v))
			ap_cli_usage_error(state,
					   "bad --max-inflight '%s': give 1 to %u calls",
					   arg, 1u << 22);
		o->collect.max_inflight = (uint32_t)v;
		break;
	case OPT_USER:
		find_user(state, arg, &o->user);
		break;
	case 'o':
		if (!*arg)
			ap_cli_usage_error(state, "empty output file name");
		if (!strcmp(arg, "-") && isatty(STDOUT_FILENO))
			ap_cli_usage_error(state,
					   "-o -: standard output is a terminal; pipe it or redirect it");
		o->output = arg;
		break;
	case 'g':
		/* perf's -g: here every sample has its stack already */
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 'v':
		o->verbose = 1;
		setenv("APERTURE_DEBUG", "1", 1);
		break;
	case 'd':
		errno = 0;
		o->duration = strtod(arg, &end);
		if (errno || *end || end == arg || !(o->duration > 0))
			ap_cli_usage_error(state,
					   "bad duration '%s': give seconds > 0",
					   arg);
		break;
	case 'e':
		o->tp_from = o->collect.nr_tracepoints;
		ap_cli_collect_key(key, arg, state, &o->t, &o->collect);
		o->tp_to = o->collect.nr_tracepoints;
		break;
	case OPT_LABEL: {
		char why[256];

		if (ap_label__append(o->labels, sizeof(o->labels), arg, why,
				     sizeof(why)))
			ap_cli_usage_error(state, "bad --label: %s", why);
		break;
	}
	case OPT_FILTER:
		set_filter(state, o, arg);
		break;
	case OPT_SWITCH_OUTPUT:
		parse_switch(state, o, arg);
		break;
	case OPT_SWITCH_MAX_FILES:
		o->switch_max_files = parse_max_files(state, arg);
		break;
	case OPT_PUSH:
		if (!*arg)
			ap_cli_usage_error(state, "--push: empty URL");
		o->push.url = arg;
		break;
	case OPT_PUSH_TOKEN_FILE:
	case OPT_PUSH_CA_FILE:
		if (access(arg, R_OK))
			ap_cli_usage_error(state, "cannot read '%s': %s", arg,
					   strerror(errno));
		*(key == OPT_PUSH_CA_FILE ? &o->push.ca_file :
					    &o->push.token_file) = arg;
		break;
	case OPT_PUSH_SPOOL_SIZE:
		parse_size(state, "--push-spool-size", arg,
			   &o->push_spool_size);
		break;
	case ARGP_KEY_ARG:
		ap_cli_take_command(state, &o->cmd);
		break;
	case ARGP_KEY_END:
		/* perf record -p PID -- sleep 5: the command is the clock */
		o->cmd_times = o->t.nr_pids && o->cmd;
		if (o->t.nr_pids && o->t.system_wide)
			ap_cli_usage_error(state,
					   "give either -p PID (or -t TID) or -a, not both");
		/* as perf: -C, -u and -G alone filter the whole system */
		if (!o->t.nr_pids && !o->cmd &&
		    (o->collect.cpu_mask || o->collect.filter_uid ||
		     o->collect.cgroup_id))
			o->t.system_wide = 1;
		o->collect.tids = o->tids;
		o->collect.nr_tids = o->nr_tids;
		if (!o->t.nr_pids && !o->t.system_wide && !o->cmd)
			ap_cli_usage_error(state,
					   "nothing to record: give -p PID, -a or -- CMD ARGS");
		if (o->user.name && !o->cmd)
			ap_cli_usage_error(state,
					   "--user is for the command: give -- CMD ARGS");
		if (o->user.name && geteuid() != 0 && o->user.uid != geteuid())
			ap_cli_usage_error(state,
					   "--user %s needs root", o->user.name);
		check_switch(state, o);
		break;
	default:
		return ap_cli_collect_key(key, arg, state, &o->t, &o->collect);
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, "[-- CMD ARGS..]", doc,
};

/* -o -: the stream goes to standard output */
static int to_stdout(const struct record_opts *o)
{
	return !strcmp(o->output, "-");
}

static volatile sig_atomic_t stop_signal;
/* a second signal: stop draining, finish the file with what is there */
static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	if (stop_signal)
		stop_now = 1;
	stop_signal = sig;
}

/* --switch-output: SIGUSR2 ends the window */
static volatile sig_atomic_t switch_now;

static void on_switch(int sig)
{
	(void)sig;
	switch_now = 1;
}

struct record {
	struct record_opts *o;
	struct ap_recording file;
};

static void note(void *ctx, const char *msg)
{
	const struct record *r = ctx;

	if (!r->o->quiet)
		fprintf(stderr, "aperture: %s\n", msg);
}

/* the collector has one context for events and notes: the record */
static int on_event(void *ctx, const void *data, size_t size)
{
	struct record *r = ctx;

	return ap_recording__event(&r->file, data, size);
}

/* what the options leave to be worked out before the collector opens:
 * the command's path, the collector's options, CUPTI; 0, else the exit
 * status */
static int prepare(struct record_opts *o)
{
	char warn[PATH_MAX + 256];
	int e;

	if (!o->t.events)
		o->t.events = AP_EVMASK(AP_TAG_CPU);
	if (o->cmd) {
		e = ap_workload__find(o->cmd[0], o->cmd_path,
				      sizeof(o->cmd_path));
		if (e) {
			ap_err("cannot run '%s': %s", o->cmd[0],
			       e == -ENOENT && !strchr(o->cmd[0], '/') ?
			       "command not found" : strerror(-e));
			return 127;
		}
	}
	o->collect.events = o->t.events;
	if (o->collect.syscall_stacks &&
	    !(o->t.events & AP_EVMASK(AP_TAG_SYSCALL)))
		ap_warn("--syscall-stacks has no effect without -e syscall");
	o->collect.system_wide = o->t.system_wide;
	o->collect.freq = o->t.freq;
	o->collect.cmd = o->cmd_times ? NULL : o->cmd;
	if (o->collect.cmd && (o->t.events & AP_EVMASK(AP_TAG_GPU))) {
		o->collect.cupti_lib = ap_cupti_inject(o->cupti_lib,
						       sizeof(o->cupti_lib),
						       warn, sizeof(warn));
		if (!o->collect.cupti_lib)
			ap_warn("%s", warn);
	}
	return ap_cli_pids_alive(&o->t) ? 0 : 1;
}

/* the header, once the sensors have started: which of them run */
static void build_header(const struct record_opts *o, struct record *r,
			 int argc, char **argv, struct ap_header *hdr)
{
	struct ap_record_header_opts ho = {
		.argc = argc,
		.argv = argv,
		/* the rate the cpu sensor runs at, lowered to the kernel's
		 * limits */
		.freq = ap_collector__freq(r->file.col),
		.events = o->t.events,
		.available = ap_recording__available(&r->file, o->t.events),
		.system_wide = o->t.system_wide,
		.cmd = o->cmd && !o->cmd_times ? o->cmd[0] : NULL,
		.pids = o->t.pids,
		.nr_pids = o->t.nr_pids,
		.filters = o->filters,
		.labels = o->labels,
		.start_ns = ap_collector__window(r->file.col)->start_ns,
	};

	ap_record_header__build(hdr, &ho);
}

/* a size as the options take it: 256M */
static const char *size_str(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "BKMGT";
	int u = 0;

	while (u < 4 && v && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
	return buf;
}

/* what the build-id cache did not keep, and why; -v: what it kept */
static void print_bidcache(struct ap_bidcache *c,
			   const struct ap_bidcache_limits *lim, int verbose)
{
	struct ap_bidcache_counts n;
	char sz[32];
	uint64_t left;

	ap_bidcache__counts(c, &n);
	left = n.too_big + n.over_total + n.no_space + n.unfinished +
	       n.failed;
	if (verbose || left)
		fprintf(stderr, "aperture: build-id cache: %" PRIu64 " file%s kept (%" PRIu64 " bytes), %" PRIu64 " not",
			n.kept, n.kept == 1 ? "" : "s", n.kept_bytes, left);
	if (!verbose && !left)
		return;
	if (n.too_big)
		fprintf(stderr, "; %" PRIu64 " over --buildid-max-file %s",
			n.too_big, size_str(lim->max_file, sz, sizeof(sz)));
	if (n.over_total)
		fprintf(stderr, "; %" PRIu64 " past --buildid-max-total %s",
			n.over_total, size_str(lim->max_total, sz, sizeof(sz)));
	if (n.no_space)
		fprintf(stderr, "; %" PRIu64 " for --buildid-min-free %s",
			n.no_space, size_str(lim->min_free, sz, sizeof(sz)));
	if (n.unfinished)
		fprintf(stderr, "; %" PRIu64 " not copied in time",
			n.unfinished);
	if (n.failed)
		fprintf(stderr, "; %" PRIu64 " failed", n.failed);
	fprintf(stderr, "%s\n", left ?
		": reports symbolize those only where the file is still found" :
		"");
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	nanosleep(&ts, NULL);
}

/* --switch-output, --push: the spool of finished windows and SIGUSR2;
 * 0 or -ENOMEM (said) */
static int start_switch(struct record_opts *o, struct ap_recording *file,
			struct ap_spool **spool)
{
	struct ap_spool_opts so = {
		.max_files = o->switch_max_files,
		.max_bytes = o->push.url ? o->push_spool_size : 0,
		.ops = o->push.url ? &ap_push_child_ops : NULL,
		.ctx = &o->push,
	};
	struct sigaction sa;

	*spool = ap_spool__new(&so);
	o->sw.spool = *spool;
	o->sw.spool_push = o->push.url != NULL;
	o->sw.signal = &switch_now;
	o->sw.quiet = o->quiet;
	if (!*spool || ap_recording__set_switch(file, &o->sw)) {
		ap_err("out of memory");
		return -ENOMEM;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_switch;
	sigaction(SIGUSR2, &sa, NULL);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.t.freq = DEFAULT_FREQ,
		.output = "aperture.data",
		.collect.mem_density = 1,
		.collect.min_block_ns = 1000,
		.bid_limits = {
			.max_file = AP_BIDCACHE_MAX_FILE,
			.max_total = AP_BIDCACHE_MAX_TOTAL,
			.min_free = AP_BIDCACHE_MIN_FREE,
		},
	};
	struct record r = { .o = &o };
	struct ap_workload wl = { .pid = -1 };
	struct ap_recording_until until = { .stop = &stop_signal };
	struct ap_recorder *rec;
	struct ap_kallsyms *ksyms = NULL;
	struct ap_bidcache *bid = NULL;
	struct ap_spool *spool = NULL;
	char bid_dir[AP_PATH_MAX];
	struct ap_header hdr;
	char err[512];
	int i, ret = 1, e, cmd_ended = 0;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS | ARGP_IN_ORDER, NULL, &o);
	e = prepare(&o);
	if (e)
		return e;

	ap_cli_catch_stop(on_signal);
	rec = ap_recorder__new(ap_recording__sink, &r.file);
	ap_recording__init(&r.file, rec);
	if (!rec) {
		ap_err("out of memory");
		return 1;
	}
	ap_recording__mark(&r.file, AP_PHASE_BEGIN);
	if (o.switch_output && start_switch(&o, &r.file, &spool))
		goto out_recorder;
	if (!o.no_buildid_cache &&
	    !ap_bidcache__dir(o.buildid_dir, bid_dir, sizeof(bid_dir))) {
		bid = ap_bidcache__new(bid_dir, &o.bid_limits);
		if (!bid) {
			ap_err("out of memory");
			goto out_recorder;
		}
		ap_recorder__set_buildid_cache(rec, bid);
	}
	e = ap_collector__open(&r.file.col, &o.collect, on_event, note, &r,
			       err, sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out_recorder;
	}
	ap_recording__mark(&r.file, AP_PHASE_LOADED);
	ap_recorder__set_collector(rec, r.file.col);
	ap_collector__set_abort(r.file.col, &stop_now);
	if (o.duration > 0)
		ap_collector__set_window(r.file.col,
					 (uint64_t)(o.duration * 1e9));
	/* after the BPF object is loaded (its programs are named then) and
	 * before anything is attached: a held command would otherwise wait
	 * (and be seen blocked) while the table loads */
	ksyms = ap_kallsyms__load_kernel(&e);
	if (!ksyms)
		ap_warn("kernel symbols unavailable (/proc/kallsyms: %s): kernel frames will show as addresses",
			strerror(-e));
	ap_recorder__set_kallsyms(rec, ksyms);
	ap_recording__mark(&r.file, AP_PHASE_KSYMS);

	if (o.cmd) {
		e = ap_workload__fork(&wl, o.cmd_path, o.cmd,
				      o.user.name ? &o.user : NULL,
				      to_stdout(&o));
		if (e) {
			ap_err("starting '%s': %s%s", o.cmd[0], strerror(-e),
			       e == -EMFILE ?
			       "; the open files limit (ulimit -n) is too low: raise it (ulimit -n 1024)" :
			       "");
			goto out_collector;
		}
		if (!o.cmd_times)
			ap_collector__add_target(r.file.col, wl.pid);
	}
	for (i = 0; i < o.t.nr_pids; i++)
		ap_collector__add_target(r.file.col, o.t.pids[i]);

	e = ap_collector__start(r.file.col, err, sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out_workload;
	}
	/* loading the BPF object (libbpf parses the kernel's BTF: 12 MB)
	 * freed more than the recording ever holds again: give the free
	 * pages back rather than keep them as RSS */
	malloc_trim(0);
	build_header(&o, &r, argc, argv, &hdr);
	if (o.cmd && !o.cmd_times)
		ap_recorder__snapshot(rec, wl.pid);
	for (i = 0; i < o.t.nr_pids; i++)
		ap_recorder__snapshot(rec, o.t.pids[i]);
	ap_recorder__flush(rec);

	if (o.cmd) {
		e = ap_workload__start(&wl);
		if (e) {
			/* nothing is created: the previous file stays */
			ap_err("cannot run '%s': %s", o.cmd[0], strerror(-e));
			waitpid(wl.pid, &wl.status, 0);
			wl.exited = 1;
			r.file.write_err = -ECANCELED;	/* the sink drops */
			ret = 127;
			goto out_collector;
		}
	}
	/* the command runs: drain what it has sent already (into the
	 * early frames) before the file is created, which can take a while
	 * on a busy machine, so that a burst from its first instructions
	 * finds the ring empty */
	if (o.cmd)
		ap_collector__poll(r.file.col, 0);
	if (!to_stdout(&o) && !o.switch_output &&
	    ap_recording__keep_old(o.output, err, sizeof(err))) {
		ap_err("%s", err);
		goto out_workload;
	}
	if (ap_recording__create(&r.file, o.output, &hdr, err, sizeof(err))) {
		ap_err("%s", err);
		goto out_workload;
	}
	/* sudo aperture record: the file is the user's, who reports on it */
	e = to_stdout(&o) ? 0 : ap_recording__give_to_sudo_user(&r.file);
	if (e)
		ap_warn("giving '%s' to SUDO_UID: %s", o.output, strerror(-e));
	ap_recording__begin(&r.file);

	until.duration = o.duration;
	until.cmd = o.cmd ? &wl : NULL;
	until.pids = o.t.pids;
	until.nr_pids = o.t.nr_pids;
	e = ap_recording__loop(&r.file, &until, &cmd_ended);
	if (e)
		ap_err("reading events: %s", strerror(-e));
	e = ap_recording__drain(&r.file, o.duration > 0 ? DRAIN_WINDOW_NS :
						       DRAIN_NS);
	if (e < 0)
		ap_warn("writing the calls still in flight: %s", strerror(-e));
	ret = 0;

	e = ap_recording__close(&r.file, o.cmd && wl.exited ? wl.status : -1);
	if (e) {
		ap_err("writing '%s': %s; the blocks written before are kept",
		       o.output, strerror(-e));
		ret = 1;
	}
	/* stopped first (-d, a signal, a write error): the command would
	 * run on untraced; after the file, so that its calls in flight are
	 * written as they were */
	ap_workload__stop(&wl);
	/* the copies ran beside the recording; the rest get a little time
	 * now, the file finished (out of its duration) and the command
	 * stopped: the copies hold their files open (a second signal cuts
	 * it short) */
	ap_bidcache__finish(bid, BIDCACHE_FINISH_NS, &stop_now);
	/* the last windows' pushes, for a bounded time: a service's stop
	 * must not wait on a server that is down */
	ap_spool__finish(spool, mono_now() + PUSH_FINISH_NS, mono_now,
			 sleep_ns);
	/* the summary line last: scripts read it with tail -1 */
	if (ret == 0 && !o.quiet) {
		print_bidcache(bid, &o.bid_limits, o.verbose);
		ap_recording__print_timing(&r.file, o.verbose, stderr);
		ap_recording__print_summary(&r.file, o.output, stderr);
	}
	if (o.verbose)
		ap_recording__print_costs(&r.file, ksyms, stderr);
	/* like time and strace: `aperture record -- make && ..` */
	if (o.cmd && cmd_ended && ret == 0)
		ret = ap_workload__ended(&wl, o.cmd[0],
					 o.quiet ? NULL : stderr);
	goto out_collector;

out_workload:
	ap_workload__kill(&wl);
out_collector:
	ap_collector__close(r.file.col);
out_recorder:
	ap_kallsyms__free(ksyms);
	ap_recorder__free(rec);
	ap_bidcache__free(bid);
	ap_spool__free(spool);
	ap_recording__free(&r.file);
	return ret;
}
