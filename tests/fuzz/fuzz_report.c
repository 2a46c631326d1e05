// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the record file reader and every report view, in
 * one of the output formats (table, folded, JSON: the input's length
 * picks), on one input.  The input is written to a memfd and
 * read through /proc/self/fd, as report reads a file.  Built by
 * `make fuzz` with clang's -fsanitize=fuzzer,address,undefined; the seed
 * corpus in tests/fuzz/corpus is real recordings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

#define MAX_VIEWS	16

static const char *const view_names[] = {
	"cpu", "syscall", "lock", "gpu", "mem", "sched", "io",
};
#define NR_NAMES (sizeof(view_names) / sizeof(view_names[0]))

static void quiet(void *ctx, const char *msg)
{
}

static void run(const char *path, int format, FILE *out)
{
	struct ap_symbolizer_opts so = { .warn = quiet, .no_srcline = 1 };
	const struct ap_view_ops *ops[MAX_VIEWS];
	struct ap_report_opts o = { .format = format };
	void *views[MAX_VIEWS];
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_reader *rd;
	struct ap_frame f;
	char errbuf[256];
	size_t i, n = 0;
	int err;

	rd = ap_reader__open(path, &err, errbuf, sizeof(errbuf));
	if (!rd)
		return;
	ap_reader__set_warn(rd, quiet, NULL);
	o.keys[0] = AP_KEY_COMM;
	o.keys[1] = AP_KEY_DSO;
	o.keys[2] = AP_KEY_SYM;
	o.nr_keys = 3;
	o.freq = ap_reader__header(rd)->freq;
	o.hist = format == AP_FMT_TABLE;
	o.per_thread = format == AP_FMT_JSON;
	sym = ap_symbolizer__new(&so);
	s = sym ? ap_session__new(sym) : NULL;
	if (!s)
		goto out;
	ap_session__escape_names(s, format != AP_FMT_JSON);
	for (i = 0; i < NR_NAMES; i++) {
		ops[n] = ap_view__find(view_names[i]);
		if (!ops[n])
			continue;
		views[n] = ops[n]->new(&o, s);
		if (views[n])
			n++;
	}
	while (ap_reader__next(rd, &f) > 0) {
		if (ap_session__feed(s, &f) != 1)
			continue;
		for (i = 0; i < n; i++)
			if (ap_view__wants(ops[i], f.tag))
				ops[i]->event(views[i], &f);
	}
	for (i = 0; i < n; i++) {
		ops[i]->print(views[i], out);
		if (ops[i]->decay) {	/* top's path */
			ops[i]->decay(views[i], 1, 2);
			ops[i]->print(views[i], out);
		}
		ops[i]->free(views[i]);
	}
out:
	ap_session__free(s);
	ap_symbolizer__free(sym);
	ap_reader__close(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	char path[64];
	int fd, format;

	if (!out)
		out = fopen("/dev/null", "w");
	fd = memfd_create("aperture-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		/* one format a run, from the input: three times the runs */
		format = size % 3;
		run(path, format, out);
	}
	close(fd);
	return 0;
}
