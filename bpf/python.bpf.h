/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Python frames of the current thread, as the continuous profilers
 * take them: user space finds a CPython interpreter in a target and puts
 * where its runtime state is, with the offsets of its version, in
 * ap_py_procs (lib/python/detect.c); here the walk goes from _PyRuntime
 * to the interpreter's thread states, picks the one whose thread_id
 * (pthread_self(), the thread's fs base on x86-64) is the current
 * thread's, and follows its frames, innermost first.  Only the code
 * object's address and the instruction index leave the kernel (one u64 a
 * frame); user space reads names, files and lines from the target.
 *
 * Every read is of the target's memory, which it may be changing: a read
 * that faults ends the walk, and the loops are bounded.
 */
#ifndef APERTURE_PYTHON_BPF_H
#define APERTURE_PYTHON_BPF_H

#include "base.bpf.h"

/* tgid -> its interpreter */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_PY_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ap_py_proc);
} ap_py_procs SEC(".maps") __weak;

struct ap_py_seen_key {
	__u32 pid;
	__u32 pad;
	__u64 code;
	__u64 check;
};

/* the code objects met lately: each sent once as AP_EV_PYCODE */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, AP_PY_SEEN);
	__type(key, struct ap_py_seen_key);
	__type(value, __u8);
} ap_py_seen SEC(".maps") __weak;

/* a code object met: record is told the first time (events and
 * ap_count are common.bpf.h's, which includes this file) */
static __always_inline void ap_py_meet(__u32 pid, __u64 code, __u64 check)
{
	struct ap_py_seen_key k = { .pid = pid, .code = code, .check = check };
	struct ap_ev_pycode ev = {};
	__u8 one = 1;

	if (bpf_map_lookup_elem(&ap_py_seen, &k))
		return;
	bpf_map_update_elem(&ap_py_seen, &k, &one, BPF_ANY);
	ap_fill_hdr(&ev.hdr, AP_EV_PYCODE);
	ev.code = code;
	ev.check = check;
	/* the reader woken now, not at its next 100 ms round: a process
	 * that exits sooner (a short script) takes its names with it.
	 * Each code object is met once, so the wake-ups are few */
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		ap_count(AP_STAT_RB_DROP);
}

static __always_inline __u64 ap_py_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

static __always_inline __u8 ap_py_u8(__u64 addr)
{
	__u8 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* the thread-state search: one bpf_loop step a thread state */
struct ap_py_ts_find {
	__u64 fsbase;
	__u64 ts;		/* the next to look at; the found one at the end */
	__u64 thread_id;	/* offsets in a thread state */
	__u64 next;
	__u32 found;
	__u32 pad;
};

static long ap_py_ts_step(__u32 i, void *ctx)
{
	struct ap_py_ts_find *f = ctx;

	if (!f->ts)
		return 1;
	if (ap_py_ptr(f->ts + f->thread_id) == f->fsbase) {
		f->found = 1;
		return 1;
	}
	f->ts = ap_py_ptr(f->ts + f->next);
	return 0;
}

/* the current thread's PyThreadState, or 0 */
static __always_inline __u64 ap_py_tstate(const struct ap_py_proc *pp)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ap_py_ts_find f = {
		.fsbase = BPF_CORE_READ(task, thread.fsbase),
		.thread_id = pp->ts_thread_id,
		.next = pp->ts_next,
	};
	__u64 interp;

	interp = ap_py_ptr(pp->runtime + pp->interp_head);
	if (!interp)
		return 0;
	f.ts = ap_py_ptr(interp + pp->threads_head);
	bpf_loop(AP_PY_THREADS, ap_py_ts_step, &f, 0);
	return f.found ? f.ts : 0;
}

/* the frames of a walk: bpf_loop's callback cannot write the record */
struct ap_py_buf {
	__u64 w[2 * AP_MAX_PYSTACK];
};

/* one a walk in flight on the CPU (ap_slot_take) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_NEST_SLOTS);
	__type(key, __u32);
	__type(value, struct ap_py_buf);
} ap_py_scratch SEC(".maps") __weak;

/* the walk's state, on the caller's stack: the offsets copied, so that
 * the step holds no pointer into a map */
struct ap_py_walk {
	struct ap_py_proc pp;
	__u64 frame;
	__u32 pid;
	__u32 n;
	__u32 slot;
	__u32 pad;
};

static long ap_py_step(__u32 i, void *ctx)
{
	struct ap_py_walk *s = ctx;
	const struct ap_py_proc *pp = &s->pp;
	__u64 frame = s->frame, code, instr, v, qual, file, prev;
	struct ap_py_buf *b;
	__u32 slot = s->slot, first = 0, idx;
	__u8 entry;

	b = bpf_map_lookup_elem(&ap_py_scratch, &slot);
	if (!b || !frame || i >= AP_MAX_PYSTACK)
		return 1;
	code = ap_py_ptr(frame + pp->fr_code);
	instr = ap_py_ptr(frame + pp->fr_instr);
	prev = ap_py_ptr(frame + pp->fr_previous);
	if (pp->fr_object) {
		entry = 1;
	} else if (pp->entry_owner) {
		/* the evaluator's own frame below: this is the first frame
		 * that call ran, and that frame is skipped */
		entry = prev && ap_py_u8(prev + pp->fr_entry) ==
				AP_PY_OWNED_BY_CSTACK;
		if (entry)
			prev = ap_py_ptr(prev + pp->fr_previous);
	} else {
		entry = ap_py_u8(frame + pp->fr_entry);
	}
	if (!code || (code & 15) || (code >> 47))
		return 1;
	/* prev_instr is one unit before the first instruction until the
	 * frame runs one, f_lasti -1 (its low half: f_lineno above) */
	if (pp->fr_object)
		v = (__s32)instr < 0 ? 0 : (__u32)instr;
	else
		v = instr < code + pp->co_code ? 0 :
		    (instr - (code + pp->co_code)) / 2;
	if (v > AP_PY_RAW_INSTR_MAX)
		v = AP_PY_RAW_INSTR_MAX;
	qual = ap_py_ptr(code + pp->co_qualname);
	file = ap_py_ptr(code + pp->co_filename);
	bpf_probe_read_user(&first, sizeof(first),
			    (void *)(code + pp->co_firstlineno));
	idx = 2 * i;
	asm volatile("" : "+r"(idx));
	idx &= 2 * AP_MAX_PYSTACK - 2;
	b->w[idx] = AP_PY_RAW_TAG | (entry ? AP_PY_RAW_ENTRY : 0) |
		    v << AP_PY_RAW_INSTR_SHIFT | code >> 4;
	b->w[idx + 1] = AP_PY_CHECK(qual, file, first);
	ap_py_meet(s->pid, code, b->w[idx + 1]);
	s->n = i + 1;
	s->frame = prev;
	return 0;
}

/* where a walk's frames go: two words a frame */
struct ap_py_frames {
	__u64 w[2 * AP_MAX_PYSTACK];
};

/*
 * The Python frames of the current thread into out, innermost first, two
 * words each (AP_PY_RAW, then AP_PY_CHECK); returns how many frames.
 * A global function, which the verifier checks once on its own: inline,
 * every way out of the thread-state search was another state to walk the
 * rest of the program from (142,000 instructions for the CPU sample, 0.8
 * s of start-up, against 2,600 without it).  Defined where AP_PY_IMPL is
 * (bpf/sched.bpf.c).
 */
__u32 ap_py_stack(struct ap_py_frames *out);

#ifdef AP_PY_IMPL
__noinline __u32 ap_py_stack(struct ap_py_frames *out)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	const struct ap_py_proc *pp;
	struct ap_py_walk s = {};
	struct ap_py_buf *b;
	__u64 ts, frame;
	long sz;

	if (!out)
		return 0;
	pp = bpf_map_lookup_elem(&ap_py_procs, &pid);
	if (!pp)
		return 0;
	s.pp = *pp;
	ts = ap_py_tstate(&s.pp);
	if (!ts)
		return 0;
	if (s.pp.ts_cframe == AP_PY_NONE)
		frame = ap_py_ptr(ts + s.pp.cf_frame);
	else
		frame = ap_py_ptr(ap_py_ptr(ts + s.pp.ts_cframe) +
				  s.pp.cf_frame);
	/* sampled as an evaluator call begins: its own frame first */
	if (frame && s.pp.entry_owner &&
	    ap_py_u8(frame + s.pp.fr_entry) == AP_PY_OWNED_BY_CSTACK)
		frame = ap_py_ptr(frame + s.pp.fr_previous);
	if (!frame)
		return 0;
	s.frame = frame;
	s.pid = pid;
	s.slot = ap_slot_take(AP_POOL_PY);
	if (s.slot >= AP_NEST_SLOTS)
		return 0;
	b = bpf_map_lookup_elem(&ap_py_scratch, &s.slot);
	if (b) {
		bpf_loop(AP_MAX_PYSTACK, ap_py_step, &s, 0);
		sz = (long)s.n * 16;
		if (sz > (long)sizeof(out->w))
			sz = sizeof(out->w);
		if (sz <= 0 || bpf_probe_read_kernel(out->w, sz, b->w))
			s.n = 0;
	}
	ap_slot_give(AP_POOL_PY, s.slot);
	return b ? s.n : 0;
}
#endif /* AP_PY_IMPL */

#endif /* APERTURE_PYTHON_BPF_H */
