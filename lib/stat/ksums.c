// SPDX-License-Identifier: GPL-2.0
#include "stat/ksums.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "record/collector.h"
#include "syscall.h"
#include "syscall/syscalls.h"

/* the busiest syscalls the aligned block shows under the total */
#define TOP_SC		10

int ap_stat_ksums__add(struct ap_stat_ksums *k, const char *name)
{
	if (strcmp(name, "syscall"))
		return 0;
	k->events |= AP_EVMASK(AP_TAG_SYSCALL);
	return 1;
}

static struct ap_stat_sc *sc_get(struct ap_stat_ksums *k, uint32_t id)
{
	if (id >= 4096)		/* no architecture numbers that high */
		return NULL;
	if (id >= k->nr_sc) {
		uint32_t nr = id + 64;
		struct ap_stat_sc *v = realloc(k->sc, nr * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + k->nr_sc, 0, (nr - k->nr_sc) * sizeof(*v));
		k->sc = v;
		k->nr_sc = nr;
	}
	return &k->sc[id];
}

/* the totals records, and the per-call ones of calls whose entry did
 * not fit the totals table (bpf/syscall.h); in flight at the end: not
 * finished, not counted, as strace -c */
static int on_event(void *ctx, const void *data, size_t size)
{
	const struct ap_ev_hdr *h = data;
	struct ap_stat_ksums *k = ctx;
	struct ap_stat_sc *sc;
	uint32_t i;

	if (size < sizeof(*h))
		return 0;
	if (h->type == AP_EV_SYSCALL_SUM &&
	    size >= sizeof(struct ap_ev_syscall_sum)) {
		const struct ap_ev_syscall_sum *e = data;

		sc = sc_get(k, e->id);
		if (!sc)
			goto nomem;
		sc->calls += e->sum.calls;
		sc->ns += e->sum.total_ns;
		for (i = 0; i < e->nr_errs && i < AP_SC_SUM_ERRS; i++)
			sc->errors += e->errs[i].count;
	} else if (h->type == AP_EV_SYSCALL &&
		   size >= sizeof(struct ap_ev_syscall)) {
		const struct ap_ev_syscall *e = data;

		if (e->flags & AP_SC_INFLIGHT)
			return 0;
		sc = sc_get(k, e->id);
		if (!sc)
			goto nomem;
		sc->calls++;
		sc->ns += e->duration_ns;
		if (!(e->flags & AP_SC_NORETURN) && ap_syscall__errno(e->ret))
			sc->errors++;
	}
	return 0;
nomem:
	k->err = -ENOMEM;
	return -ENOMEM;
}

static void note(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "aperture: %s\n", msg);
}

int ap_stat_ksums__open(struct ap_stat_ksums *k, pid_t cmd,
			const pid_t *pids, int nr_pids, int system_wide,
			char *err, size_t len)
{
	/* totals only: no syscall:calls, no stacks */
	struct ap_collect_opts o = {
		.events = k->events,
		.system_wide = system_wide,
	};
	const struct ap_sensor *s;
	size_t i, n;
	int e;

	k->err = 0;
	e = ap_collector__open(&k->col, &o, on_event, note, k, err, len);
	if (e)
		return e;
	if (cmd > 0)
		e = ap_collector__add_target(k->col, cmd);
	for (i = 0; !e && i < (size_t)nr_pids; i++)
		e = ap_collector__add_target(k->col, pids[i]);
	if (e) {
		snprintf(err, len, "adding the targets: %s", strerror(-e));
		goto fail;
	}
	e = ap_collector__start(k->col, err, len);
	if (e)
		goto fail;
	n = ap_collector__sensors(k->col, &s);
	for (i = 0; i < n; i++)
		if (s[i].state == AP_SENSOR_UNAVAILABLE) {
			snprintf(err, len, "%s: unavailable: %s", s[i].name,
				 s[i].reason);
			e = -ENODEV;
			goto fail;
		}
	return 0;
fail:
	ap_collector__close(k->col);
	k->col = NULL;
	return e;
}

int ap_stat_ksums__poll(struct ap_stat_ksums *k)
{
	int e;

	if (!k->col)
		return 0;
	do
		e = ap_collector__poll(k->col, 0);
	while (e > 0);
	if (e == -EINTR)
		e = 0;
	return k->err ? k->err : e;
}

int ap_stat_ksums__close(struct ap_stat_ksums *k)
{
	int e;

	if (!k->col)
		return 0;
	ap_collector__stop(k->col);
	e = ap_stat_ksums__poll(k);
	if (!e) {
		e = ap_collector__finish(k->col);
		e = e < 0 ? e : k->err;
	}
	ap_collector__close(k->col);
	k->col = NULL;
	return e;
}

void ap_stat_ksums__free(struct ap_stat_ksums *k)
{
	free(k->sc);
	k->sc = NULL;
	k->nr_sc = 0;
}

/* syscall numbers by calls, most first; the number breaks ties */
static const struct ap_stat_ksums *sort_k;

static int by_calls(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t cx = sort_k->sc[x].calls, cy = sort_k->sc[y].calls;

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* "254.8 us", "3.45 ms", "1.20 s" */
static void time_str(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

static void print_row(const struct ap_stat_fmt *f, const char *name,
		      double calls, double errors, double ns)
{
	char val[64], t[32];

	if (f->sep) {
		fprintf(f->out, "%.0f%s%s%s%s%.0f%serrors%s%.0f%sns\n", calls,
			f->sep, f->sep, name, f->sep, errors, f->sep, f->sep,
			ns, f->sep);
		return;
	}
	ap_stat_group(val, sizeof(val), calls, 0);
	time_str(t, sizeof(t), ns);
	fprintf(f->out, "%18s      %-32s #  %.0f errors, %s in calls\n", val,
		name, errors, t);
}

void ap_stat_ksums__print(const struct ap_stat_fmt *f,
			  const struct ap_stat_ksums *k, unsigned int runs,
			  int after_counters)
{
	double n = runs ? runs : 1, calls = 0, errors = 0, ns = 0;
	uint32_t *ids, i, nr = 0;
	char name[48], sc[32];

	if (!(k->events & AP_EVMASK(AP_TAG_SYSCALL)))
		return;
	ids = malloc((k->nr_sc ? k->nr_sc : 1) * sizeof(*ids));
	if (!ids)
		return;
	for (i = 0; i < k->nr_sc; i++) {
		if (!k->sc[i].calls)
			continue;
		ids[nr++] = i;
		calls += (double)k->sc[i].calls;
		errors += (double)k->sc[i].errors;
		ns += (double)k->sc[i].ns;
	}
	sort_k = k;
	qsort(ids, nr, sizeof(*ids), by_calls);
	if (!f->sep && after_counters)
		fputc('\n', f->out);
	print_row(f, "syscalls:total", calls / n, errors / n, ns / n);
	for (i = 0; i < nr && (f->sep || i < TOP_SC); i++) {
		const struct ap_stat_sc *s = &k->sc[ids[i]];

		snprintf(name, sizeof(name), "syscalls:%s",
			 ap_syscall__name(ids[i], sc, sizeof(sc)));
		print_row(f, name, (double)s->calls / n,
			  (double)s->errors / n, (double)s->ns / n);
	}
	free(ids);
}
