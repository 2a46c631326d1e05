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

/* the current thread's PyThreadState, or 0 */
static __always_inline __u64 ap_py_tstate(const struct ap_py_proc *pp)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
	__u64 interp, ts;
	int i;

	interp = ap_py_ptr(pp->runtime + pp->interp_head);
	if (!interp)
		return 0;
	ts = ap_py_ptr(interp + pp->threads_head);
	for (i = 0; i < AP_PY_THREADS && ts; i++) {
		if (ap_py_ptr(ts + pp->ts_thread_id) == fsbase)
			return ts;
		ts = ap_py_ptr(ts + pp->ts_next);
	}
	return 0;
}

/*
 * The Python frames of the current thread into ips[0 .. 2 *
 * AP_MAX_PYSTACK), innermost first, two words each (AP_PY_RAW, then
 * AP_PY_CHECK); returns how many frames.
 */
static __always_inline __u32 ap_py_stack(__u64 *ips)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	const struct ap_py_proc *pp = bpf_map_lookup_elem(&ap_py_procs, &pid);
	__u64 ts, frame, prev, code, instr, v, qual, file;
	__u32 first;
	__u8 entry;
	__u32 n = 0;
	int i;

	if (!pp)
		return 0;
	ts = ap_py_tstate(pp);
	if (!ts)
		return 0;
	if (pp->ts_cframe == AP_PY_NONE)
		frame = ap_py_ptr(ts + pp->cf_frame);
	else
		frame = ap_py_ptr(ap_py_ptr(ts + pp->ts_cframe) +
				  pp->cf_frame);
	/* sampled as an evaluator call begins: its own frame first */
	if (frame && pp->entry_owner &&
	    ap_py_u8(frame + pp->fr_entry) == AP_PY_OWNED_BY_CSTACK)
		frame = ap_py_ptr(frame + pp->fr_previous);
	for (i = 0; i < AP_MAX_PYSTACK; i++) {
		if (!frame)
			break;
		code = ap_py_ptr(frame + pp->fr_code);
		instr = ap_py_ptr(frame + pp->fr_instr);
		prev = ap_py_ptr(frame + pp->fr_previous);
		if (pp->entry_owner) {
			/* the evaluator's own frame below: this is the
			 * first frame that call ran, and is skipped */
			entry = prev && ap_py_u8(prev + pp->fr_entry) ==
					AP_PY_OWNED_BY_CSTACK;
			if (entry)
				prev = ap_py_ptr(prev + pp->fr_previous);
		} else {
			entry = ap_py_u8(frame + pp->fr_entry);
		}
		if (!code || (code & 15) || (code >> 47))
			break;
		/* prev_instr is one unit before the first instruction
		 * until the frame runs one */
		v = (instr - (code + pp->co_code)) / 2;
		if (instr < code + pp->co_code)
			v = 0;
		if (v > AP_PY_RAW_INSTR_MAX)
			v = AP_PY_RAW_INSTR_MAX;
		qual = ap_py_ptr(code + pp->co_qualname);
		file = ap_py_ptr(code + pp->co_filename);
		first = 0;
		bpf_probe_read_user(&first, sizeof(first),
				    (void *)(code + pp->co_firstlineno));
		ips[2 * i] = AP_PY_RAW_TAG | (entry ? AP_PY_RAW_ENTRY : 0) |
			     v << AP_PY_RAW_INSTR_SHIFT | code >> 4;
		ips[2 * i + 1] = AP_PY_CHECK(qual, file, first);
		n = i + 1;
		frame = prev;
	}
	return n;
}

#endif /* APERTURE_PYTHON_BPF_H */
