// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling: AP_TAG_SCHED frames byte for byte and round trip, short and
 * long payloads, CPU mask text; the recorder handler from BPF records; the
 * sched view's thread totals (newest snapshot, exited threads summed),
 * folded off-CPU lines in microseconds, JSON and the wall-clock scale of
 * the CPU view.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aperture.h"
#include "sched/codec.h"
#include "format/format.h"
#include "format/reader.h"
#include "record/recorder.h"
#include "sched.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

static struct ap_sched_iv sample_iv(void)
{
	struct ap_sched_iv iv = {
		.ts = 0x1122334455667788ull, .pid = 10, .tid = 11, .cpu = 1,
		.state = AP_SCHED_ST_BLOCKED, .off_ns = 30000000,
		.wakeup_ns = 12345, .stack_id = 7, .out_cpu = 0,
		.waker_pid = 99, .waker_tid = 100,
		.flags = AP_SCHED_IV_NO_WAKEUP, .prev_state = 1,
		.start_ticks = 13,
	};
	return iv;
}

static struct ap_sched_thr sample_thr(void)
{
	struct ap_sched_thr t = {
		.ts = 5000, .pid = 10, .tid = 11, .cpu = 1,
		.flags = AP_SCHED_THR_EXITED, .on_ns = 1, .blocked_ns = 2,
		.runnable_ns = 3, .vol = 4, .invol = 5, .wakeups = 6,
		.wakeup_total_ns = 7, .wakeup_max_ns = 8, .migrations = 9,
		.short_nr = 10, .short_ns = 11,
		.cpus = { 0x5, 0, 0, 1ull << 63 }, .start_ticks = 12,
	};
	return t;
}

START_TEST(test_iv_bytes)
{
	struct ap_sched_iv iv = sample_iv();
	struct ap_sched_ev e;
	struct ap_buf b;
	const uint8_t *p;

	ap_buf__init(&b);
	ap_sched_iv__encode(&iv, &b);
	ck_assert_int_eq(b.len, 8 + 76);
	ck_assert_uint_eq(ap_get_le32(b.data), AP_TAG_SCHED);
	ck_assert_uint_eq(ap_get_le32(b.data + 4), 76);
	p = b.data + 8;
	ck_assert_uint_eq(ap_get_le32(p), AP_SCHED_IV);
	ck_assert_uint_eq(ap_get_le64(p + 4), iv.ts);
	ck_assert_uint_eq(ap_get_le32(p + 12), 10);	/* pid */
	ck_assert_uint_eq(ap_get_le32(p + 16), 11);	/* tid */
	ck_assert_uint_eq(ap_get_le64(p + 28), 30000000);	/* off_ns */
	ck_assert_uint_eq(ap_get_le32(p + 44), 7);	/* stack_id */
	ck_assert_uint_eq(ap_get_le32(p + 64), 1);	/* prev_state */
	ck_assert_uint_eq(ap_get_le64(p + 68), 13);	/* start_ticks */
	ck_assert_int_eq(ap_sched__decode(p, 76, &e), 0);
	ck_assert_uint_eq(e.kind, AP_SCHED_IV);
	ck_assert_mem_eq(&e.iv, &iv, sizeof(iv));
	/* 1.5: no start time */
	ck_assert_int_eq(ap_sched__decode(p, 68, &e), 0);
	ck_assert_uint_eq(e.iv.start_ticks, 0);
	ck_assert_uint_eq(e.iv.prev_state, 1);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_thr_round_trip)
{
	struct ap_sched_thr t = sample_thr();
	struct ap_sched_ev e;
	struct ap_buf b;

	ap_buf__init(&b);
	ap_sched_thr__encode(&t, &b);
	ck_assert_uint_eq(ap_get_le32(b.data + 4), b.len - 8);
	ck_assert_int_eq(ap_sched__decode(b.data + 8, b.len - 8, &e), 0);
	ck_assert_uint_eq(e.kind, AP_SCHED_THR);
	ck_assert_mem_eq(&e.thr, &t, sizeof(t));
	ap_buf__free(&b);
}
END_TEST

/* every cut of a payload is rejected (but one without the start time of
 * 1.7: an older file); a longer one is read */
START_TEST(test_short_and_long)
{
	struct ap_sched_iv iv = sample_iv();
	struct ap_sched_thr t = sample_thr();
	struct ap_sched_ev e;
	struct ap_buf b;
	uint8_t *copy;
	size_t n, len;
	int which;

	for (which = 0; which < 2; which++) {
		ap_buf__init(&b);
		if (which)
			ap_sched_thr__encode(&t, &b);
		else
			ap_sched_iv__encode(&iv, &b);
		len = b.len - 8;
		for (n = 0; n < len; n++) {
			if (n == len - 8) {
				ck_assert_int_eq(ap_sched__decode(b.data + 8,
								  n, &e), 0);
				if (which)
					ck_assert_uint_eq(e.thr.short_ns, 11);
				else
					ck_assert_uint_eq(e.iv.prev_state, 1);
				continue;
			}
			ck_assert_int_eq(ap_sched__decode(b.data + 8, n, &e),
					 -EBADMSG);
		}
		copy = calloc(1, len + 16);
		memcpy(copy, b.data + 8, len);
		ck_assert_int_eq(ap_sched__decode(copy, len + 16, &e), 0);
		if (which)
			ck_assert_mem_eq(&e.thr, &t, sizeof(t));
		else
			ck_assert_mem_eq(&e.iv, &iv, sizeof(iv));
		free(copy);
		ap_buf__free(&b);
	}
}
END_TEST

START_TEST(test_unknown_kind_and_wide_mask)
{
	uint8_t p[256];
	struct ap_sched_ev e;
	struct ap_sched_thr t = sample_thr();
	struct ap_buf b;
	size_t len;

	memset(p, 0, sizeof(p));
	ap_put_le32(p, 77);
	ck_assert_int_eq(ap_sched__decode(p, sizeof(p), &e), -ENOMSG);

	/* a mask of 6 words from a bigger machine: CPU 300 is beyond ours */
	t.flags = 0;
	ap_buf__init(&b);
	ap_sched_thr__encode(&t, &b);
	len = b.len - 8 - 8;	/* up to the end of the mask */
	memcpy(p, b.data + 8, len);
	ap_put_le32(p + len - 4 * 8 - 4, 6);
	memset(p + len, 0, 16);
	ap_put_le64(p + len, 1ull << (300 - 4 * 64));
	ap_put_le64(p + len + 16, 12);
	ck_assert_int_eq(ap_sched__decode(p, len + 24, &e), 0);
	ck_assert_uint_eq(e.thr.cpus[0], 0x5);
	ck_assert(e.thr.flags & AP_SCHED_THR_CPU_OVER);
	ck_assert_uint_eq(e.thr.start_ticks, 12);
	ck_assert_int_eq(ap_sched__decode(p, len + 8, &e), -EBADMSG);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_cpu_text)
{
	uint64_t m[AP_SCHED_MASK_WORDS] = { 0xb, 0, 0, 0 };
	char buf[64];

	ap_sched_cpus__format(m, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-1,3");
	ck_assert_int_eq(ap_sched_cpus__count(m), 3);
	m[1] = 1;		/* CPU 64 */
	m[0] = 1ull << 63;	/* CPU 63: a run across the word */
	ap_sched_cpus__format(m, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "63-64,+");
	memset(m, 0, sizeof(m));
	ap_sched_cpus__format(m, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
}
END_TEST

/* the recorder: BPF records in, frames out */
struct sink {
	struct ap_buf b;
};

static int to_buf(void *ctx, const void *frames, size_t len)
{
	struct sink *s = ctx;

	ap_buf__put(&s->b, frames, len);
	return 0;
}

/* the first frame with tag in s->b, decoded; -ENOENT if none */
static int find_sched(struct sink *s, int nth, struct ap_sched_ev *e)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= s->b.len) {
		uint32_t tag = ap_get_le32(s->b.data + off);
		uint32_t len = ap_get_le32(s->b.data + off + 4);

		if (tag == AP_TAG_SCHED && nth-- == 0)
			return ap_sched__decode(s->b.data + off + 8, len, e);
		off += AP_FRAME_HDR_LEN + len;
	}
	return -ENOENT;
}

START_TEST(test_recorder_handler)
{
	struct sink sk;
	struct ap_recorder *r;
	struct ap_ev_sched_off *off = calloc(1, sizeof(*off));
	struct ap_ev_sched_thread th;
	struct ap_sched_ev e;
	uint32_t me = getpid();

	ap_buf__init(&sk.b);
	r = ap_recorder__new(to_buf, &sk);
	ck_assert_ptr_nonnull(r);
	off->hdr.type = AP_EV_SCHED;
	off->hdr.pid = me;
	off->hdr.tid = me;
	off->hdr.cpu = 1;
	off->hdr.ts = 1000;
	off->kind = AP_SCHED_EV_OFF;
	off->state = AP_SCHED_PREEMPTED;
	off->off_ns = 5000;
	off->out_cpu = 0;
	off->flags = AP_SCHED_F_OPEN;
	strcpy(off->comm, "me");
	/* packed: the user frames right after the kernel one, the record
	 * cut after them */
	off->st.kstack_sz = 8;
	off->st.ips[0] = 0xffffffff81000010ull;
	off->st.ustack_sz = 16;
	off->st.ips[1] = (uintptr_t)test_recorder_handler;
	off->st.ips[2] = (uintptr_t)find_sched;
	ck_assert_int_eq(ap_recorder__event(r, off, AP_SCHED_OFF_HDR_SIZE + 24),
			 0);
	/* a record cut short of its frames is ignored, not read past */
	ck_assert_int_eq(ap_recorder__event(r, off, AP_SCHED_OFF_HDR_SIZE + 16),
			 0);

	memset(&th, 0, sizeof(th));
	th.hdr.type = AP_EV_SCHED;
	th.hdr.pid = me;
	th.hdr.tid = me;
	th.hdr.ts = 2000;
	th.kind = AP_SCHED_EV_THREAD;
	th.t.pid = me;
	th.t.flags = AP_SCHED_T_ON | AP_SCHED_T_EXITED;
	th.t.on_ns = 42;
	th.t.vol = 3;
	th.t.cpus[0] = 2;
	ck_assert_int_eq(ap_recorder__event(r, &th, sizeof(th)), 0);
	ck_assert_int_eq(ap_recorder__flush(r), 0);

	ck_assert_int_eq(find_sched(&sk, 0, &e), 0);
	ck_assert_uint_eq(e.kind, AP_SCHED_IV);
	ck_assert_uint_eq(e.iv.pid, me);
	ck_assert_uint_eq(e.iv.state, AP_SCHED_ST_PREEMPTED);
	ck_assert_uint_eq(e.iv.off_ns, 5000);
	ck_assert_uint_eq(e.iv.flags, AP_SCHED_IV_OPEN);
	ck_assert_uint_ne(e.iv.stack_id, 0);
	/* the stack table entry has the frames in their places */
	{
		size_t off2 = 0;
		int seen = 0;

		while (off2 + AP_FRAME_HDR_LEN <= sk.b.len) {
			uint32_t tag = ap_get_le32(sk.b.data + off2);
			uint32_t len = ap_get_le32(sk.b.data + off2 + 4);
			uint64_t ips[8];
			struct ap_stack s;

			if (tag == AP_TAG_STACK) {
				ck_assert_int_eq(ap_stack__decode_ips(sk.b.data + off2 + 8,
								      len, &s, ips, 8), 0);
				ck_assert_uint_eq(s.nr_kernel, 1);
				ck_assert_uint_eq(s.nr_user, 2);
				ck_assert_uint_eq(ips[1], (uintptr_t)test_recorder_handler);
				seen++;
			}
			off2 += AP_FRAME_HDR_LEN + len;
		}
		ck_assert_int_eq(seen, 1);
	}
	ck_assert_int_eq(find_sched(&sk, 1, &e), 0);
	ck_assert_uint_eq(e.kind, AP_SCHED_THR);
	/* kernel-side bookkeeping bits do not reach the file */
	ck_assert_uint_eq(e.thr.flags, AP_SCHED_THR_EXITED);
	ck_assert_uint_eq(e.thr.on_ns, 42);
	ck_assert_uint_eq(e.thr.vol, 3);
	ck_assert_uint_eq(e.thr.cpus[0], 2);
	ck_assert_int_eq(find_sched(&sk, 2, &e), -ENOENT);
	ap_recorder__free(r);
	ap_buf__free(&sk.b);
	free(off);
}
END_TEST

/* the view over crafted frames */
struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_buf b;
};

static void quiet(void *ctx, const char *msg)
{
}

static void add_iv(struct ap_buf *b, uint32_t tid, uint32_t state,
		   uint64_t ns, uint32_t stack)
{
	struct ap_sched_iv iv = {
		.ts = 100, .pid = 10, .tid = tid, .state = state,
		.off_ns = ns, .stack_id = stack,
	};

	ap_sched_iv__encode(&iv, b);
}

static void add_thr(struct ap_buf *b, uint32_t tid, uint64_t ts,
		    uint32_t flags, uint64_t on, uint64_t blocked,
		    uint64_t vol, uint64_t cpus)
{
	struct ap_sched_thr t = {
		.ts = ts, .pid = 10, .tid = tid, .flags = flags, .on_ns = on,
		.blocked_ns = blocked, .runnable_ns = 1000, .vol = vol,
		.invol = 1, .cpus = { cpus },
	};

	ap_sched_thr__encode(&t, b);
}

static void setup_fixture(struct fixture *fx)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_comm c1 = { .ts = 1, .pid = 10, .tid = 10 };
	struct ap_comm c2 = { .ts = 1, .pid = 10, .tid = 11 };
	struct ap_ksym k1 = { .addr = 0xffffffff81000000ull, .size = 0x100 };
	struct ap_ksym k2 = { .addr = 0xffffffff81001000ull, .size = 0x100 };
	uint64_t st1[] = { 0xffffffff81001010ull, 0xffffffff81000020ull };
	struct ap_stack s1 = { .id = 1, .nr_kernel = 2, .ips = st1 };

	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ap_buf__init(&fx->b);
	strcpy(t.comm, "prog");
	strcpy(c1.comm, "prog");
	strcpy(c2.comm, "worker");
	strcpy(k1.name, "do_nanosleep");
	strcpy(k2.name, "schedule");
	ap_task__encode(&t, &fx->b);
	ap_comm__encode(&c1, &fx->b);
	ap_comm__encode(&c2, &fx->b);
	ap_ksym__encode(&k1, &fx->b);
	ap_ksym__encode(&k2, &fx->b);
	ap_stack__encode(&s1, &fx->b);
	/* intervals: 3 x 30 ms blocked in stack 1, 2 ms preempted */
	add_iv(&fx->b, 10, AP_SCHED_ST_BLOCKED, 30000000, 1);
	add_iv(&fx->b, 10, AP_SCHED_ST_BLOCKED, 30000000, 1);
	add_iv(&fx->b, 10, AP_SCHED_ST_BLOCKED, 30000000, 1);
	add_iv(&fx->b, 11, AP_SCHED_ST_PREEMPTED, 2000000, 0);
	/* tid 10: two snapshots, the newer counts even if written first */
	add_thr(&fx->b, 10, 300, 0, 9000, 90000000, 3, 0x1);
	add_thr(&fx->b, 10, 200, 0, 1, 1, 1, 0x1);
	/* tid 11: a thread that exited, then its tid reused by another;
	 * a snapshot from before the exit written after it is ignored */
	add_thr(&fx->b, 11, 250, AP_SCHED_THR_EXITED, 500, 0, 2, 0x2);
	add_thr(&fx->b, 11, 240, 0, 400, 0, 1, 0x2);
	add_thr(&fx->b, 11, 400, 0, 700, 0, 5, 0x4);
}

static void teardown_fixture(struct fixture *fx)
{
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

static char *render(struct fixture *fx, const char *name,
		    struct ap_report_opts *o)
{
	const struct ap_view_ops *ops = ap_view__find(name);
	size_t off = 0, len;
	char *out = NULL;
	void *v;
	FILE *f;

	ck_assert_ptr_nonnull(ops);
	v = ops->new(o, fx->s);
	ck_assert_ptr_nonnull(v);
	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame fr;
		int kind;

		fr.tag = ap_get_le32(fx->b.data + off);
		fr.len = ap_get_le32(fx->b.data + off + 4);
		fr.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		kind = ap_session__feed(fx->s, &fr);
		ck_assert_int_ge(kind, 0);
		if (kind == 1 && fr.tag == ops->tag)
			ck_assert_int_eq(ops->event(v, &fr), 0);
		off += AP_FRAME_HDR_LEN + fr.len;
	}
	f = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, f), 0);
	fclose(f);
	ops->free(v);
	return out;
}

START_TEST(test_view_folded)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_FOLDED;
	out = render(&fx, "sched", &o);
	ck_assert_str_eq(out,
			 "prog;[off-cpu];do_nanosleep_[k];schedule_[k] 90000\n"
			 "worker;[runnable];[unknown] 2000\n");
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_table_totals)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	memset(&o, 0, sizeof(o));
	out = render(&fx, "sched", &o);
	ck_assert_ptr_nonnull(strstr(out, "1 processes, 2 threads; 4 off-CPU intervals"));
	/* process row: tid 10 newest (vol 3) + tid 11 exited (2) + reused (5) */
	ck_assert_msg(strstr(out, "\n       10       -  prog               10.20 us   90.00 ms   90.00 ms    3.00 us      10       3      0"),
		      "process row: %s", out);
	ck_assert_msg(strstr(out, "\n               11  worker              1.20 us    2.00 us       0 ns    2.00 us       7       2"),
		      "thread row: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "  0-2\n"));	/* CPUs of all */
	ck_assert_ptr_nonnull(strstr(out, "blocked   prog"));
	ck_assert_ptr_nonnull(strstr(out, "schedule_[k] <- do_nanosleep_[k]"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_json)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_JSON;
	out = render(&fx, "sched", &o);
	/* process: on 9000 + 500 + 700, vol 3 + 2 + 5 */
	ck_assert_msg(strstr(out, "{\"pid\": 10, \"comm\": \"prog\", \"on_cpu_ns\": 10200, \"off_cpu_ns\": 90003000,"),
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"voluntary\": 10,"));
	ck_assert_ptr_nonnull(strstr(out, "\"tid\": 11, \"comm\": \"worker\", \"exited\": false"));
	ck_assert_ptr_nonnull(strstr(out, "\"cpus\": [1, 2]"));
	ck_assert_ptr_nonnull(strstr(out, "\"state\": \"blocked\", \"off_ns\": 90000000, \"count\": 3"));
	free(out);
	/* filters apply to both kinds */
	o.tids[0] = 11;
	o.nr_tids = 1;
	out = render(&fx, "sched", &o);
	ck_assert_ptr_null(strstr(out, "\"tid\": 10"));
	ck_assert_ptr_nonnull(strstr(out, "\"intervals\": 1,"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/*
 * Pid 20 reused: the first process's totals (start 5), the second's task
 * frame (start 9), then the first one's exit totals, written late, and
 * the second's.  Each process keeps its own; a frame that does not say
 * (before 1.7) is of the process pid names then.
 */
START_TEST(test_view_pid_reuse)
{
	struct ap_task t1 = { .ts = 1, .pid = 20, .start_ticks = 5,
			      .kind = AP_TASK_SNAPSHOT };
	struct ap_task t2 = { .ts = 50, .pid = 20, .start_ticks = 9,
			      .kind = AP_TASK_SNAPSHOT };
	struct ap_sched_thr a = { .ts = 10, .pid = 20, .tid = 20,
				  .blocked_ns = 100, .start_ticks = 5 };
	struct ap_sched_thr b = { .ts = 60, .pid = 20, .tid = 20,
				  .blocked_ns = 7000, .start_ticks = 9 };
	struct ap_sched_thr old = { .ts = 70, .pid = 20, .tid = 21,
				    .blocked_ns = 11 };
	struct ap_sched_iv iv = { .ts = 45, .pid = 20, .tid = 20,
				  .off_ns = 50, .start_ticks = 5 };
	struct ap_report_opts o;
	struct fixture fx;
	const char *p1, *p2, *pi;
	char *out;

	setup_fixture(&fx);
	strcpy(t1.comm, "first");
	strcpy(t2.comm, "second");
	ap_task__encode(&t1, &fx.b);
	ap_sched_thr__encode(&a, &fx.b);
	ap_task__encode(&t2, &fx.b);
	a.ts = 40;
	a.blocked_ns = 300;
	a.flags = AP_SCHED_THR_EXITED;
	ap_sched_thr__encode(&a, &fx.b);
	ap_sched_iv__encode(&iv, &fx.b);
	ap_sched_thr__encode(&b, &fx.b);
	ap_sched_thr__encode(&old, &fx.b);
	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_JSON;
	out = render(&fx, "sched", &o);
	ck_assert_msg(strstr(out, "{\"pid\": 20, \"comm\": \"first\", \"on_cpu_ns\": 0, \"off_cpu_ns\": 300, \"blocked_ns\": 300,"),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"pid\": 20, \"comm\": \"second\", \"on_cpu_ns\": 0, \"off_cpu_ns\": 7011, \"blocked_ns\": 7011,"),
		      "%s", out);
	/* the first one's interval, written after the second appeared */
	p1 = strstr(out, "\"comm\": \"first\"");
	p2 = strstr(out, "\"comm\": \"second\"");
	pi = strstr(out, "\"intervals\": 1, \"interval_ns\": 50,");
	ck_assert_msg(p1 && pi && p2 && p1 < pi && pi < p2, "%s", out);
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/* cpu,sched folded: CPU samples in microseconds from the frequency */
START_TEST(test_wall_clock_scale)
{
	struct ap_cpu_sample cs = { .ts = 100, .pid = 10, .tid = 10,
				    .stack_id = 1 };
	struct ap_report_opts o;
	struct fixture fx;
	char *out;
	int i;

	setup_fixture(&fx);
	for (i = 0; i < 4; i++)
		ap_cpu_sample__encode(&cs, &fx.b);
	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_FOLDED;
	o.freq = 1000;
	o.folded_us = 1;
	out = render(&fx, "cpu", &o);
	ck_assert_str_eq(out, "prog;do_nanosleep_[k];schedule_[k] 4000\n");
	free(out);
	o.folded_us = 0;
	out = render(&fx, "cpu", &o);
	ck_assert_str_eq(out, "prog;do_nanosleep_[k];schedule_[k] 4\n");
	free(out);
	teardown_fixture(&fx);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc;

	tc = tcase_create("frames");
	tcase_add_test(tc, test_iv_bytes);
	tcase_add_test(tc, test_thr_round_trip);
	tcase_add_test(tc, test_short_and_long);
	tcase_add_test(tc, test_unknown_kind_and_wide_mask);
	tcase_add_test(tc, test_cpu_text);
	suite_add_tcase(s, tc);
	tc = tcase_create("recorder");
	tcase_add_test(tc, test_recorder_handler);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_test(tc, test_view_folded);
	tcase_add_test(tc, test_view_table_totals);
	tcase_add_test(tc, test_view_json);
	tcase_add_test(tc, test_view_pid_reuse);
	tcase_add_test(tc, test_wall_clock_scale);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sched_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
