// SPDX-License-Identifier: GPL-2.0
/* aperture record: sample the targets into a record file. */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aperture.h"
#include "cli.h"
#include "codec.h"
#include "bidcache.h"
#include "collector.h"
#include "escape.h"
#include "format.h"
#include "gpu_libs.h"
#include "procfs.h"
#include "recorder.h"
#include "symbolizer.h"
#include "unwind.h"
#include "writer.h"

#define DEFAULT_FREQ	999
#define MAX_PIDS	1024
#define FLUSH_NS	(500 * 1000 * 1000ull)
#define ALIVE_NS	(100 * 1000 * 1000ull)
/* how long a command we started has to exit after SIGTERM */
#define TERM_GRACE_MS	2000

struct record_opts {
	pid_t pids[MAX_PIDS];
	int nr_pids;
	int system_wide;
	uint32_t freq;
	uint32_t events;
	const char *output;
	double duration;		/* seconds; 0: until the end */
	int quiet;			/* -q: errors only */
	int verbose;			/* -v */
	char **cmd;			/* -- CMD ARGS */
	char cmd_path[4096];		/* cmd[0] found in PATH */
	const char *buildid_dir;	/* NULL: from the environment */
	int no_buildid_cache;
	struct ap_collect_opts collect;
	/* --user: the command runs as this user */
	const char *user;
	uid_t uid;
	gid_t gid;
	char home[256], shell[256];
	/* -t, -C, -u, -G: filters in BPF (ap_collect_opts) */
	uint32_t tids[AP_MAX_TIDS];
	int nr_tids;
	uint64_t cpu_mask[AP_MAX_CPUS / 64];
	char filters[512];		/* for the header's target line */
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
	{ "freq", 'F', "HZ", 0, "CPU sampling frequency (default: 999)", 2 },
	{ "syscall-stacks", OPT_SYSCALL_STACKS, NULL, 0, "syscall: record the user stack at entry (costly)", 2 },
	{ "cuda-lib", OPT_CUDA_LIB, "PATH", 0, "gpu: also probe this CUDA runtime or driver library", 2 },
	{ "mem-density", OPT_MEM_DENSITY, "LEVEL", 0, "mem: sampling density low, default or high", 2 },
	{ "count", 'c', "PERIOD", 0, "Sample every PERIOD events instead of -F HZ (cycles, page-faults, ...; mem: every PERIOD operations, overriding --mem-density)", 2 },
	{ "min-block", OPT_MIN_BLOCK, "USECS", 0, "sched: ignore off-CPU periods shorter than USECS (default: 1)", 2 },
	{ "call-graph", OPT_CALL_GRAPH, "cfi|fp", 0, "How user stacks are unwound: cfi (default: from each file's CFI, in the kernel) or fp (frame pointers)", 2 },
	{ "max-stack", OPT_MAX_STACK, "N", 0, "At most N user frames per stack (default and limit: 256; fp: 127)", 2 },
	{ "max-inflight", OPT_MAX_INFLIGHT, "N", 0, "syscall: at most N calls in flight at once, all threads together (default: as many as the machine can have threads); calls beyond are lost, counted by process", 2 },
	{ "mmap-pages", 'm', "PAGES", 0, "The ring buffer's size: pages (a power of two) or a size with B, K, M or G, as perf's -m (default: 1 MiB per CPU, 8 to 16 MiB; system-wide 16 MiB)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "Write to FILE (default: aperture.data; an existing one is kept as FILE.old); - for standard output", 3 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 3 },
	{ "quiet", 'q', NULL, 0, "No sensor notes, no summary line, no word on the command's status", 3 },
	{ "verbose", 'v', NULL, 0, "Also print libbpf's messages (as APERTURE_DEBUG=1) and, at the end, what the targets' mappings cost the recorder and its memory", 3 },
	{ NULL, 'g', NULL, 0, "Accepted for perf users: stacks are always recorded", 2 },
	{ "buildid-dir", OPT_BUILDID_DIR, "DIR", 0, "Keep files only the targets reach (another mount namespace, deleted) in this build-id cache (default: $APERTURE_BUILDID_DIR, else $XDG_CACHE_HOME/aperture/build-id or ~/.cache/aperture/build-id)", 3 },
	{ "no-buildid-cache", OPT_NO_BUILDID_CACHE, NULL, 0, "Keep no files in the build-id cache", 3 },
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
	"A sensor the machine cannot run is named on standard error with the "
	"reason, and the others go on."
"\v"
	"Examples:\n"
	"  aperture record -F 999 -- ./prog args\n"
	"  aperture record -p 1234,1240 -d 10\n"
	"  aperture record -a -d 5 -o system.data\n";

/* the thread group of thread tid, from /proc/TID/status; 0 if none */
static pid_t tgid_of(uint32_t tid)
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

static void add_filter_note(struct record_opts *o, const char *fmt,
			    const char *arg)
{
	size_t off = strlen(o->filters);

	snprintf(o->filters + off, sizeof(o->filters) - off, fmt, arg);
}

/* -t TID,..: the threads, and their processes as targets */
static void parse_tids(struct argp_state *state, struct record_opts *o,
		       const char *arg)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int i;

	if (!dup)
		ap_cli_usage_error(state, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;
		pid_t tgid;

		if (ap_parse_u64(tok, 1, INT32_MAX, &v))
			ap_cli_usage_error(state, "invalid thread id '%s'", tok);
		if (o->nr_tids == AP_MAX_TIDS)
			ap_cli_usage_error(state, "at most %d threads",
					   AP_MAX_TIDS);
		tgid = tgid_of((uint32_t)v);
		if (!tgid)
			ap_cli_usage_error(state, "no such thread: %s", tok);
		o->tids[o->nr_tids++] = (uint32_t)v;
		for (i = 0; i < o->nr_pids && o->pids[i] != tgid; i++)
			;
		if (i == o->nr_pids) {
			if (o->nr_pids == MAX_PIDS)
				ap_cli_usage_error(state, "at most %d processes",
						   MAX_PIDS);
			o->pids[o->nr_pids++] = tgid;
		}
	}
	free(dup);
	add_filter_note(o, ", threads %s", arg);
}

/* -C 0,2-3 into o->cpu_mask: CPUs that exist */
static void parse_cpus(struct argp_state *state, struct record_opts *o,
		       const char *arg)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	char *dup = strdup(arg), *tok, *save = NULL;

	if (!dup)
		ap_cli_usage_error(state, "out of memory");
	if (ncpus > AP_MAX_CPUS)
		ncpus = AP_MAX_CPUS;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long lo, hi;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (ap_parse_u64(tok, 0, UINT32_MAX, &lo) ||
		    (dash && ap_parse_u64(dash + 1, 0, UINT32_MAX, &hi)))
			ap_cli_usage_error(state,
					   "bad CPU list '%s': give CPUs and ranges, as 0,2-3",
					   arg);
		if (!dash)
			hi = lo;
		if (hi < lo || hi >= (unsigned long long)ncpus)
			ap_cli_usage_error(state,
					   "bad CPU list '%s': this machine has CPUs 0 to %ld",
					   arg, ncpus - 1);
		for (; lo <= hi; lo++)
			o->cpu_mask[lo / 64] |= 1ull << (lo % 64);
	}
	free(dup);
	o->collect.cpu_mask = o->cpu_mask;
	add_filter_note(o, ", CPUs %s", arg);
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

/* -G: a cgroup v2 directory, absolute or under the mount: its id (as
 * bpf_get_current_cgroup_id gives it) and its depth below the root */
static void parse_cgroup(struct argp_state *state, struct record_opts *o,
			 const char *arg)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	char mnt[4096], path[8192], real[PATH_MAX], realmnt[PATH_MAX];
	const char *p;
	uint32_t level = 0;
	int mount_id;

	if (cgroup2_mount(mnt, sizeof(mnt)))
		ap_cli_usage_error(state,
				   "--cgroup: no cgroup v2 hierarchy is mounted (cgroup2 in /proc/self/mounts)");
	if (arg[0] == '/' && !strncmp(arg, mnt, strlen(mnt)))
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%s/%s", mnt,
			 arg + (arg[0] == '/'));
	if (!realpath(path, real) || !realpath(mnt, realmnt))
		ap_cli_usage_error(state, "no such cgroup: '%s' (%s: %s)", arg,
				   path, strerror(errno));
	if (strncmp(real, realmnt, strlen(realmnt)) ||
	    (real[strlen(realmnt)] && real[strlen(realmnt)] != '/'))
		ap_cli_usage_error(state,
				   "'%s' is not in the cgroup v2 hierarchy at %s",
				   arg, mnt);
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, real, &h.fh, &mount_id, 0) ||
	    h.fh.handle_bytes != sizeof(h.id))
		ap_cli_usage_error(state, "cgroup '%s': no cgroup id: %s",
				   arg, strerror(errno));
	memcpy(&o->collect.cgroup_id, h.fh.f_handle, sizeof(uint64_t));
	for (p = real + strlen(realmnt); *p; p++)
		if (*p == '/' && p[1])
			level++;
	o->collect.cgroup_level = level;
	add_filter_note(o, ", cgroup %s", real + strlen(realmnt));
	if (!level)
		add_filter_note(o, "%s", "/");
}

/* -m: pages (a power of two), or a size with B, K, M or G, as perf's;
 * a BPF ring is a power of two of pages */
static int parse_ring(const char *arg, uint64_t *bytes)
{
	unsigned long long n, page = (unsigned long long)sysconf(_SC_PAGESIZE);
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || end == arg || *arg == '-')
		return -EINVAL;
	switch (*end) {
	case '\0':
		if (n > (1ull << 30) / page)
			return -EINVAL;
		n *= page;
		break;
	case 'G': case 'g': n <<= 10;	/* fall through */
	case 'M': case 'm': n <<= 10;	/* fall through */
	case 'K': case 'k': n <<= 10;	/* fall through */
	case 'B': case 'b':
		if (end[1] || n > (1ull << 30))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (n < 64 * 1024 || n > (1ull << 30) || (n & (n - 1)) || n % page)
		return -EINVAL;
	*bytes = n;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	unsigned long long v;
	char *end;

	switch (key) {
	case 'p':
		ap_cli_add_pids(state, arg, o->pids, &o->nr_pids, MAX_PIDS);
		break;
	case 'a':
		o->system_wide = 1;
		break;
	case 't':
		parse_tids(state, o, arg);
		break;
	case 'C':
		parse_cpus(state, o, arg);
		break;
	case 'u': {
		struct passwd *pw = getpwnam(arg);

		if (!pw && !ap_parse_u64(arg, 0, UINT32_MAX - 1, &v))
			pw = getpwuid((uid_t)v);
		if (!pw)
			ap_cli_usage_error(state, "no such user: '%s'", arg);
		o->collect.filter_uid = 1;
		o->collect.uid = pw->pw_uid;
		add_filter_note(o, ", user %s", pw->pw_name);
		break;
	}
	case 'G':
		parse_cgroup(state, o, arg);
		break;
	case 'e':
		ap_cli_parse_events(state, arg, &o->events, &o->collect);
		break;
	case 'F':
		o->freq = ap_cli_parse_freq(state, arg);
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
		if (!strcmp(arg, "cfi") || !strcmp(arg, "dwarf"))
			o->collect.call_graph = AP_CALL_GRAPH_CFI;
		else if (!strcmp(arg, "fp"))
			o->collect.call_graph = AP_CALL_GRAPH_FP;
		else
			ap_cli_usage_error(state,
					   "bad --call-graph '%s': give cfi or fp",
					   arg);
		break;
	case 'm':
		if (parse_ring(arg, &o->collect.ring_bytes))
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
	case OPT_USER: {
		struct passwd *pw = getpwnam(arg);

		if (!pw && !ap_parse_u64(arg, 0, UINT32_MAX - 1, &v))
			pw = getpwuid((uid_t)v);
		if (!pw)
			ap_cli_usage_error(state, "no such user: '%s'", arg);
		o->user = strdup(pw->pw_name);
		if (!o->user)
			ap_cli_usage_error(state, "out of memory");
		o->uid = pw->pw_uid;
		o->gid = pw->pw_gid;
		snprintf(o->home, sizeof(o->home), "%s", pw->pw_dir);
		snprintf(o->shell, sizeof(o->shell), "%s",
			 pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
		break;
	}
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
	case ARGP_KEY_ARG:
		/* everything from the first non-option on is the command */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (o->nr_pids && o->cmd)
			ap_cli_usage_error(state,
					   "give either -p PID (or -t TID) or a command, not both");
		if (o->nr_pids && o->system_wide)
			ap_cli_usage_error(state,
					   "give either -p PID (or -t TID) or -a, not both");
		/* as perf: -C, -u and -G alone filter the whole system */
		if (!o->nr_pids && !o->cmd &&
		    (o->collect.cpu_mask || o->collect.filter_uid ||
		     o->collect.cgroup_id))
			o->system_wide = 1;
		o->collect.tids = o->tids;
		o->collect.nr_tids = o->nr_tids;
		if (!o->nr_pids && !o->system_wide && !o->cmd)
			ap_cli_usage_error(state,
					   "nothing to record: give -p PID, -a or -- CMD ARGS");
		if (o->user && !o->cmd)
			ap_cli_usage_error(state,
					   "--user is for the command: give -- CMD ARGS");
		if (o->user && geteuid() != 0 && o->uid != geteuid())
			ap_cli_usage_error(state,
					   "--user %s needs root", o->user);
		break;
	default:
		return ap_cli_key(key, arg, state);
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int64_t mono_to_real(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll +
	       ((int64_t)r.tv_nsec - m.tv_nsec);
}

/* keep the previous recording as FILE.old, as perf does; lstat and
 * rename, which act on a link itself, never on what it points to */
static int keep_old(const char *path)
{
	char old[4096 + 8];
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (rename(path, old)) {
		ap_err("keeping '%s' as '%s': %s", path, old, strerror(errno));
		return -errno;
	}
	return 0;
}

/* SUDO_UID and SUDO_GID, when set: the owner of a file this run created */
static int give_to_sudo_user(struct ap_writer *w)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long long uid, gid;

	if (!u || !*u || geteuid() != 0)
		return 0;
	if (ap_parse_u64(u, 0, UINT32_MAX - 1, &uid))
		return -EINVAL;
	if (!g || !*g || ap_parse_u64(g, 0, UINT32_MAX - 1, &gid))
		gid = (unsigned long long)-1;
	return ap_writer__chown(w, (uid_t)uid, (gid_t)gid);
}

/*
 * The PATH search execvp would do, done here: the launcher's failed
 * execve calls would otherwise be recorded as the command's, and a
 * command that does not exist is known before anything is created.
 */
static int find_command(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *p;
	int err = -ENOENT;
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		if (stat(path, &st))
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(path, X_OK) ? -errno : 0;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/bin:/usr/bin";
	for (p = dirs; ; p += strcspn(p, ":") + 1) {
		int n = (int)strcspn(p, ":");

		snprintf(path, len, "%.*s%s%s", n, n ? p : ".", "/", name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (!access(path, X_OK))
				return 0;
			err = -EACCES;
		}
		if (!p[n])
			break;
	}
	return err;
}

/*
 * -e gpu -- CMD: the CUDA driver loads CUDA_INJECTION64_PATH into the
 * command at cuInit; libaperture-cupti.so there reports the kernels'
 * device times.  A value already set (another tool) is left alone.
 */
static void cupti_setup(struct record_opts *o)
{
	const char *cur = getenv("CUDA_INJECTION64_PATH");
	static char lib[PATH_MAX];

	if (cur && *cur) {
		const char *base = strrchr(cur, '/');

		if (!strcmp(base ? base + 1 : cur, AP_CUPTI_LIB))
			o->collect.cupti_lib = cur;
		else
			ap_warn("gpu: CUDA_INJECTION64_PATH is already %s: kept, so no GPU device times", cur);
		return;
	}
	if (ap_cupti_lib_self(lib, sizeof(lib))) {
		ap_warn("gpu: %s not found (beside aperture or in %s): recording host-side launches only; it is built where the CUDA toolkit's CUPTI is installed",
			AP_CUPTI_LIB, APERTURE_LIBDIR);
		return;
	}
	if (setenv("CUDA_INJECTION64_PATH", lib, 1)) {
		ap_warn("gpu: setting CUDA_INJECTION64_PATH: %s", strerror(errno));
		return;
	}
	o->collect.cupti_lib = lib;
}

/*
 * The workload: forked now, held on a pipe until the probes are attached,
 * then exec'd.  Exec failure comes back through a close-on-exec pipe.
 */
struct workload {
	pid_t pid;
	int go_fd;
	int err_fd;
	int status;
	int exited;
};

/* in the child, before exec: become o->user, groups and all, so that the
 * command does not run as root under sudo */
static int become_user(const struct record_opts *o)
{
	if (initgroups(o->user, o->gid) || setgid(o->gid) ||
	    setuid(o->uid))
		return -errno;
	/* setuid(2) from root drops every capability; check it held */
	if (o->uid != 0 && setuid(0) == 0)
		return -EPERM;
	if (setenv("HOME", o->home, 1) || setenv("USER", o->user, 1) ||
	    setenv("LOGNAME", o->user, 1) || setenv("SHELL", o->shell, 1))
		return -errno;
	return 0;
}

static int workload_fork(struct workload *w, const char *path, char **cmd,
			 const struct record_opts *o)
{
	int go[2], errp[2];
	char ready;

	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		/* a name of its own until exec, as perf's "perf-exec",
		 * set before the parent reads it for the snapshot */
		prctl(PR_SET_NAME, "aperture-exec", 0, 0, 0);
		if (write(errp[1], "r", 1) != 1)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		e = o->user ? -become_user(o) : 0;
		if (!e) {
			/* -o -: standard output carries the record stream */
			if (to_stdout(o) &&
			    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
				_exit(127);
			execv(path, cmd);
			e = errno;
		}
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	w->go_fd = go[1];
	w->err_fd = errp[0];
	w->exited = 0;
	/* the child has its name */
	if (read(w->err_fd, &ready, 1) != 1)
		return -ECHILD;
	return 0;
}

/* 0 when the command runs, -errno when exec failed */
static int workload_start(struct workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	n = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	return n == sizeof(e) ? -e : 0;
}

/*
 * The recording ended first (-d, a signal): the command we started ends
 * with it, SIGTERM then SIGKILL, so that nothing runs on unobserved.
 */
static void workload_stop(struct workload *w)
{
	int ms;

	if (w->pid <= 0 || w->exited)
		return;
	kill(w->pid, SIGTERM);
	for (ms = 0; ms < TERM_GRACE_MS; ms += 10) {
		if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
			w->exited = 1;
			return;
		}
		usleep(10000);
	}
	kill(w->pid, SIGKILL);
	waitpid(w->pid, &w->status, 0);
	w->exited = 1;
}

/* the shell's convention: the status, or 128 + the signal */
/* -v: what the recorder holds at the end, and its memory at most */
static void print_memory(const struct ap_kallsyms *ksyms)
{
	struct mallinfo2 mi = mallinfo2();
	long rss = -1, hwm = -1;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &rss);
		sscanf(line, "VmHWM: %ld", &hwm);
	}
	if (f)
		fclose(f);
	fprintf(stderr,
		"aperture: memory: %zu kB of heap in use, %zu kB of kernel symbols (%zu), RSS %ld kB, at most %ld kB\n",
		(mi.uordblks + mi.hblkhd) / 1024,
		ap_kallsyms__bytes(ksyms) / 1024, ap_kallsyms__count(ksyms),
		rss, hwm);
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

struct record {
	struct record_opts *o;
	struct ap_writer *w;
	struct ap_recorder *rec;
	struct ap_collector *col;
	/* frames from before the file exists: it is created once the
	 * command has started, so that a failed exec leaves no trace */
	struct ap_buf early;
	int write_err;
};

static int sink_to_writer(void *ctx, const void *frames, size_t len)
{
	struct record *r = ctx;
	int err;

	if (r->write_err)
		return 0;	/* counted once, reported at the end */
	if (!r->w) {
		ap_buf__put(&r->early, frames, len);
		return 0;
	}
	err = ap_writer__append(r->w, frames, len);
	if (err)
		r->write_err = err;
	return 0;
}

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

	return ap_recorder__event(r->rec, data, size);
}

/*
 * " ARG" quoted as a shell would need it, so that the command line can be
 * pasted back and stays on one line of the report's header: 'a b',
 * $'a\nb' for control characters.  Returns the new length.
 */
static size_t append_quoted(char *buf, size_t len, size_t off,
			    const char *arg)
{
	const char *p;
	int ctl = 0, plain = *arg != 0;

	for (p = arg; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			ctl = 1;
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-./:=,+@%^", *p) &&
		    (unsigned char)*p < 0x80)
			plain = 0;
	}
#define PUT(...) (off += off < len ? (size_t)snprintf(buf + off, len - off, __VA_ARGS__) : 0)
	PUT(" ");
	if (plain) {
		PUT("%s", arg);
	} else if (!ctl) {
		PUT("'");
		for (p = arg; *p; p++)
			*p == '\'' ? PUT("'\\''") : PUT("%c", *p);
		PUT("'");
	} else {
		PUT("$'");
		for (p = arg; *p; p++) {
			unsigned char c = *p;

			if (c == '\n')
				PUT("\\n");
			else if (c == '\t')
				PUT("\\t");
			else if (c < 0x20 || c == 0x7f)
				PUT("\\x%02x", c);
			else if (c == '\'' || c == '\\')
				PUT("\\%c", c);
			else
				PUT("%c", c);
		}
		PUT("'");
	}
#undef PUT
	return off < len ? off : len;
}

static void build_header(struct ap_header *h, const struct record_opts *o,
			 int argc, char **argv, uint32_t available)
{
	struct utsname u;
	size_t off = 0;
	int i;

	ap_header__init(h);
	h->start_mono_ns = mono_ns();
	h->mono_to_real_ns = mono_to_real();
	h->freq = o->freq;
	h->events_requested = o->events;
	h->events_available = available;
	h->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!uname(&u)) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	}
	snprintf(h->cmdline, sizeof(h->cmdline), "aperture record");
	off = strlen(h->cmdline);
	for (i = 1; i < argc && off < sizeof(h->cmdline); i++)
		off = append_quoted(h->cmdline, sizeof(h->cmdline), off,
				    argv[i]);
	if (o->system_wide) {
		snprintf(h->target, sizeof(h->target), "system-wide");
	} else if (o->cmd) {
		snprintf(h->target, sizeof(h->target), "command %s", o->cmd[0]);
	} else {
		off = snprintf(h->target, sizeof(h->target), "pid");
		for (i = 0; i < o->nr_pids && off < sizeof(h->target); i++)
			off += snprintf(h->target + off,
					sizeof(h->target) - off, "%s%d",
					i ? "," : " ", o->pids[i]);
	}
	/* -t, -C, -u, -G */
	off = strlen(h->target);
	for (i = 0; o->filters[i] && off + 1 < sizeof(h->target); i++)
		h->target[off++] = o->filters[i];
	h->target[off] = '\0';
}

static int targets_alive(struct record *r)
{
	int i, alive = 0;

	for (i = 0; i < r->o->nr_pids; i++)
		if (ap_recorder__exit_code(r->rec, r->o->pids[i]) < 0 &&
		    ap_proc_alive(r->o->pids[i]))
			alive++;
	return alive;
}

static void human_size(uint64_t n, char *buf, size_t len)
{
	if (n >= 10 * 1024 * 1024)
		snprintf(buf, len, "%.1f MB", n / (1024.0 * 1024));
	else if (n >= 10 * 1024)
		snprintf(buf, len, "%.1f KB", n / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.freq = DEFAULT_FREQ,
		.output = "aperture.data",
		.collect.mem_density = 1,
		.collect.min_block_ns = 1000,
	};
	struct record r = { .o = &o };
	struct workload wl = { .pid = -1 };
	const struct ap_record_counts *counts;
	struct ap_kallsyms *ksyms = NULL;
	char bid_dir[AP_PATH_MAX];
	const struct ap_sensor *sensors;
	struct ap_summary sum;
	struct ap_header hdr;
	struct sigaction sa;
	uint64_t counters[AP_STAT_NR], start, last_flush, last_alive, deadline = 0;
	uint64_t written = 0;
	uint32_t available = 0;
	char err[512], size[32];
	size_t i, nsens;
	int ret = 1, e, cmd_ended = 0;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS | ARGP_IN_ORDER, NULL, &o);
	if (!o.events)
		o.events = AP_EVMASK(AP_TAG_CPU);
	if (o.cmd) {
		e = find_command(o.cmd[0], o.cmd_path, sizeof(o.cmd_path));
		if (e) {
			ap_err("cannot run '%s': %s", o.cmd[0],
			       e == -ENOENT && !strchr(o.cmd[0], '/') ?
			       "command not found" : strerror(-e));
			return 127;
		}
	}
	o.collect.events = o.events;
	if (o.collect.syscall_stacks && !(o.events & AP_EVMASK(AP_TAG_SYSCALL)))
		ap_warn("--syscall-stacks has no effect without -e syscall");
	o.collect.system_wide = o.system_wide;
	o.collect.freq = o.freq;
	o.collect.cmd = o.cmd;
	if (o.cmd && (o.events & AP_EVMASK(AP_TAG_GPU)))
		cupti_setup(&o);

	for (i = 0; i < (size_t)o.nr_pids; i++) {
		if (!ap_proc_alive(o.pids[i])) {
			ap_err("no such process: %d", o.pids[i]);
			return 1;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	ap_buf__init(&r.early);
	r.rec = ap_recorder__new(sink_to_writer, &r);
	if (!r.rec) {
		ap_err("out of memory");
		return 1;
	}
	if (!o.no_buildid_cache &&
	    !ap_bidcache__dir(o.buildid_dir, bid_dir, sizeof(bid_dir)))
		ap_recorder__set_buildid_dir(r.rec, bid_dir);
	e = ap_collector__open(&r.col, &o.collect, on_event, note, &r, err,
			       sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out_recorder;
	}
	ap_recorder__set_collector(r.rec, r.col);
	ap_collector__set_abort(r.col, &stop_now);
	/* after the BPF object is loaded (its programs are named then) and
	 * before anything is attached: a held command would otherwise wait
	 * (and be seen blocked) while the table loads */
	ksyms = ap_kallsyms__load_kernel(&e);
	if (!ksyms)
		ap_warn("kernel symbols unavailable (/proc/kallsyms: %s): kernel frames will show as addresses",
			strerror(-e));
	ap_recorder__set_kallsyms(r.rec, ksyms);

	if (o.cmd) {
		e = workload_fork(&wl, o.cmd_path, o.cmd, &o);
		if (e) {
			ap_err("starting '%s': %s", o.cmd[0], strerror(-e));
			goto out_collector;
		}
		ap_collector__add_target(r.col, wl.pid);
	}
	for (i = 0; i < (size_t)o.nr_pids; i++)
		ap_collector__add_target(r.col, o.pids[i]);

	e = ap_collector__start(r.col, err, sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out_workload;
	}
	/* loading the BPF object (libbpf parses the kernel's BTF: 12 MB)
	 * freed more than the recording ever holds again: give the free
	 * pages back rather than keep them as RSS */
	malloc_trim(0);
	nsens = ap_collector__sensors(r.col, &sensors);
	for (i = 0; i < nsens; i++)
		if ((o.events & AP_EVMASK(sensors[i].tag)) &&
		    sensors[i].state != AP_SENSOR_UNAVAILABLE)
			available |= AP_EVMASK(sensors[i].tag);


	build_header(&hdr, &o, argc, argv, available);
	if (o.cmd)
		ap_recorder__snapshot(r.rec, wl.pid);
	for (i = 0; i < (size_t)o.nr_pids; i++)
		ap_recorder__snapshot(r.rec, o.pids[i]);
	ap_recorder__flush(r.rec);

	if (o.cmd) {
		e = workload_start(&wl);
		if (e) {
			/* nothing is created: the previous file stays */
			ap_err("cannot run '%s': %s", o.cmd[0], strerror(-e));
			waitpid(wl.pid, &wl.status, 0);
			wl.exited = 1;
			r.write_err = -ECANCELED;	/* the sink drops */
			ret = 127;
			goto out_collector;
		}
	}
	/* the command runs: drain what it has sent already (into r.early)
	 * before the file is created, which can take a while on a busy
	 * machine, so that a burst from its first instructions finds the
	 * ring empty */
	if (o.cmd)
		ap_collector__poll(r.col, 0);
	if (!to_stdout(&o) && keep_old(o.output))
		goto out_workload;
	r.w = ap_writer__create(o.output, &hdr, &e);
	if (!r.w) {
		ap_err("creating '%s': %s", o.output, e == -ELOOP ?
		       "a symbolic link, not followed" : strerror(-e));
		goto out_workload;
	}
	/* sudo aperture record: the file is the user's, who reports on it */
	e = to_stdout(&o) ? 0 : give_to_sudo_user(r.w);
	if (e)
		ap_warn("giving '%s' to SUDO_UID: %s", o.output, strerror(-e));
	if (r.early.err)
		r.write_err = r.early.err;
	else if (r.early.len)
		r.write_err = ap_writer__append(r.w, r.early.data, r.early.len);
	ap_buf__free(&r.early);

	start = last_flush = last_alive = mono_ns();
	if (o.duration > 0)
		deadline = start + (uint64_t)(o.duration * 1e9);

	while (!stop_signal) {
		uint64_t now;

		e = ap_collector__poll(r.col, 100);
		if (e < 0 && e != -EINTR) {
			ap_err("reading events: %s", strerror(-e));
			break;
		}
		now = mono_ns();
		if (now - last_flush >= FLUSH_NS) {
			ap_recorder__flush(r.rec);
			if (!r.write_err)
				r.write_err = ap_writer__flush(r.w);
			last_flush = now;
		}
		if (r.write_err)
			break;
		if (deadline && now >= deadline)
			break;
		if (o.cmd && !wl.exited &&
		    waitpid(wl.pid, &wl.status, WNOHANG) == wl.pid) {
			wl.exited = 1;
			cmd_ended = 1;
			break;
		}
		/* /proc reads at most every 100 ms, not on every wake-up */
		if (o.nr_pids && now - last_alive >= ALIVE_NS) {
			if (!targets_alive(&r))
				break;
			last_alive = now;
		}
	}
	/* nothing new from here on: under overload the sensors would keep
	 * the drain below going for ever; what the ring buffer holds
	 * already belongs to the recording (a second signal cuts it short) */
	ap_collector__stop(r.col);
	while (!stop_now && ap_collector__poll(r.col, 0) > 0)
		;
	/* calls still in flight are written as such, not dropped */
	e = ap_collector__finish(r.col);
	if (e < 0)
		ap_warn("writing the calls still in flight: %s", strerror(-e));
	ret = 0;

	ap_recorder__write_status(r.rec, r.col);
	ap_recorder__flush(r.rec);
	ap_collector__counters(r.col, counters);
	counts = ap_recorder__counts(r.rec);
	memset(&sum, 0, sizeof(sum));
	sum.end_mono_ns = mono_ns();
	sum.samples = counts->samples;
	sum.events = counts->events;
	sum.lost[AP_LOST_RINGBUF] = counters[AP_STAT_RB_DROP];
	sum.lost[AP_LOST_KSTACK] = counters[AP_STAT_KSTACK_ERR];
	sum.lost[AP_LOST_USTACK] = counters[AP_STAT_USTACK_ERR];
	sum.exit_status = -1;
	if (o.cmd && wl.exited)
		sum.exit_status = wl.status;
	written = ap_writer__bytes(r.w);	/* before summary and trailer */
	e = ap_writer__close(r.w, &sum);
	if (r.write_err || e) {
		ap_err("writing '%s': %s; the blocks written before are kept",
		       o.output, strerror(-(r.write_err ? r.write_err : e)));
		ret = 1;
	}
	/* stopped first (-d, a signal, a write error): the command would
	 * run on untraced; after the file, so that its calls in flight are
	 * written as they were */
	workload_stop(&wl);
	if (ret == 0 && !o.quiet) {
		struct stat st;
		uint64_t bytes = stat(o.output, &st) ? 0 : st.st_size;

		if (to_stdout(&o))
			bytes = written;
		human_size(bytes, size, sizeof(size));
		fprintf(stderr,
			"aperture: %" PRIu64 " samples, %" PRIu64 " events, %" PRIu64 " lost",
			counts->samples, counts->events,
			counters[AP_STAT_RB_DROP]);
		if (counters[AP_STAT_KSTACK_ERR] || counters[AP_STAT_USTACK_ERR])
			fprintf(stderr, " (stack errors: %" PRIu64 " kernel, %" PRIu64 " user)",
				counters[AP_STAT_KSTACK_ERR],
				counters[AP_STAT_USTACK_ERR]);
		if (counters[AP_STAT_SCHED_UNSEEN])
			fprintf(stderr, " (%" PRIu64 " context switches the kernel did not report: intervals not measured in full)",
				counters[AP_STAT_SCHED_UNSEEN]);
		if (counts->losers) {
			/* the name is another user's: escaped */
			char comm[4 * AP_COMM_MAX + 1];

			ap_escape(comm, sizeof(comm), counts->loser_comm, 0);
			fprintf(stderr, " (records lost by %" PRIu64 " process%s, most by pid %u %s: %" PRIu64 ")",
				counts->losers, counts->losers > 1 ? "es" : "",
				counts->loser_pid, comm, counts->loser_lost);
		}
		fprintf(stderr, ", %s written to %s\n", size,
			to_stdout(&o) ? "standard output" : o.output);
	}
	if (o.verbose) {
		struct ap_unwind_stats us;

		/* what the targets' mappings cost the recorder: a process
		 * must not make it re-read them for every scan or sample */
		ap_collector__unwind_stats(r.col, &us);
		fprintf(stderr,
			"aperture: recorder: %" PRIu64 " maps scans (at most %" PRIu64 " of one process), %" PRIu64 " mappings written, %" PRIu64 " kernel mapping records lost, %" PRIu64 " build-id reads; unwinder: %" PRIu64 " table builds, %" PRIu64 " mirror updates (at most %" PRIu64 " of one process), %" PRIu64 " mappings beyond the mirror\n",
			counts->map_scans, counts->map_scans_max,
			counts->mmaps, ap_collector__mappings_lost(r.col),
			ap_proc_build_id_reads(), us.builds, us.publishes,
			us.publishes_max, us.maps_full);
		print_memory(ksyms);
	}
	if (o.cmd && cmd_ended && ret == 0) {
		/* like time and strace: `aperture record -- make && ..` */
		ret = exit_code(wl.status);
		if (o.quiet)
			;
		else if (WIFEXITED(wl.status) && WEXITSTATUS(wl.status))
			fprintf(stderr, "aperture: '%s' exited with status %d\n",
				o.cmd[0], WEXITSTATUS(wl.status));
		else if (WIFSIGNALED(wl.status))
			fprintf(stderr, "aperture: '%s' killed by signal %d (%s)\n",
				o.cmd[0], WTERMSIG(wl.status),
				strsignal(WTERMSIG(wl.status)));
	}
	goto out_collector;

out_workload:
	if (wl.pid > 0 && !wl.exited) {
		kill(wl.pid, SIGKILL);
		waitpid(wl.pid, NULL, 0);
	}
out_collector:
	ap_collector__close(r.col);
out_recorder:
	ap_kallsyms__free(ksyms);
	ap_recorder__free(r.rec);
	ap_buf__free(&r.early);
	return ret;
}
