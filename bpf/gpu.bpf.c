// SPDX-License-Identifier: GPL-2.0
/*
 * GPU kernel launches: uprobes on the CUDA launch entry points (runtime
 * cudaLaunchKernel and cudaLaunchKernelExC in libcudart, driver
 * cuLaunchKernel and cuLaunchKernelEx in libcuda) and one uretprobe shared
 * by all four.  The entry probe stages the launch (arguments, comm) in a
 * per-thread in-flight table; the return probe adds the time spent in the
 * call, its result and the user stack, and sends it.  This is host-side
 * launch time: the kernel's execution on the device is not seen from
 * here.
 *
 * The runtime calls into the driver to launch: a launch call made while
 * the same thread is already inside one is the same launch and is not
 * recorded twice (depth counts the nesting).
 *
 * The device side comes from libaperture-cupti.so's USDT probes (see
 * bpf/gpu.h): aperture:launch puts CUPTI's correlation ids into the launch
 * in flight on the same thread, aperture:activity sends each completed
 * kernel, copy, memset or synchronisation as its own record; user space
 * joins the two by (pid, correlation id).
 *
 * Also here: cuModuleGetFunction, to name the driver API's CUfunction
 * handles, and the mmap tracepoints that tell user space a target mapped
 * new code (a dlopen), so that it can look for CUDA libraries to probe.
 */
#include "common.bpf.h"
#include <bpf/usdt.bpf.h>
#include "gpu.h"

#define PROT_EXEC	0x4

/* libbpf 1.1's bpf_tracing.h stops at the 5th argument; x86-64 passes the
 * 6th in r9 */
#if defined(__TARGET_ARCH_x86) && !defined(PT_REGS_PARM6)
#define PT_REGS_PARM6(x) (((struct pt_regs *)(x))->r9)
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_GPU_INFLIGHT);
	__type(key, __u32);			/* tid */
	__type(value, struct ap_gpu_call);
} gpu_inflight SEC(".maps");

/* CUfunction handle -> kernel name, from cuModuleGetFunction */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, char[AP_GPU_NAME_LEN]);
} gpu_names SEC(".maps");

struct getfunc_args {
	__u64 hfunc;		/* CUfunction * */
	__u64 name;		/* const char * */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_GPU_INFLIGHT);
	__type(key, __u32);			/* tid */
	__type(value, struct getfunc_args);
} gpu_getfunc SEC(".maps");

/* threads inside an mmap(PROT_EXEC) of a file */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_GPU_INFLIGHT);
	__type(key, __u32);
	__type(value, __u8);
} gpu_mmap_tids SEC(".maps");

/* [0] launches sent, so that user space knows one of its probes works;
 * [1] device records sent */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} gpu_sent SEC(".maps");

/* x86-64 SysV: the 7th and later integer arguments are on the stack,
 * above the return address */
static __always_inline __u64 stack_arg(struct pt_regs *ctx, int slot)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v),
			    (void *)(PT_REGS_SP(ctx) + 8 * (slot + 1)));
	return v;
}

/* starts c for a new launch; 0 when not recorded (nested, not a target) */
static __always_inline int launch_begin(struct ap_gpu_call *c, __u32 api)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct ap_gpu_call *in;

	if (!ap_is_target(id >> 32))
		return 0;
	in = bpf_map_lookup_elem(&gpu_inflight, &tid);
	if (in) {
		in->depth++;
		return 0;
	}
	__builtin_memset(c, 0, sizeof(*c));
	ap_fill_hdr(&c->hdr, AP_EV_GPU);
	c->api = api;
	bpf_get_current_comm(c->comm, sizeof(c->comm));
	return 1;
}

/*
 * Keeps c until the return.  No stack is taken here: at the entry the
 * callee has not set up its frame, and a frame pointer walk skips the
 * caller; at the return the walk is right and goes straight into the
 * record.
 */
static __always_inline int launch_stage(struct pt_regs *ctx,
					struct ap_gpu_call *c)
{
	__u32 tid = c->hdr.tid;

	if (c->api == AP_GPU_API_DRIVER || c->api == AP_GPU_API_DRIVER_EX) {
		char *name = bpf_map_lookup_elem(&gpu_names, &c->kernel);

		if (name)
			bpf_probe_read_kernel(c->name, sizeof(c->name), name);
	}
	c->entry_ip = PT_REGS_IP(ctx);
	if (bpf_map_update_elem(&gpu_inflight, &tid, c, BPF_NOEXIST))
		ap_count(AP_STAT_GPU_TABLE_FULL);
	return 0;
}

/* cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
 *	dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream):
 * each 12-byte dim3 travels by value in two registers (x | y << 32, z) */
SEC("uprobe")
int ap_gpu_runtime(struct pt_regs *ctx)
{
	struct ap_gpu_call call, *e = &call;
	__u64 gxy, bxy;

	if (!launch_begin(e, AP_GPU_API_RUNTIME))
		return 0;
	gxy = PT_REGS_PARM2(ctx);
	bxy = PT_REGS_PARM4(ctx);
	e->kernel = PT_REGS_PARM1(ctx);
	e->grid[0] = (__u32)gxy;
	e->grid[1] = gxy >> 32;
	e->grid[2] = (__u32)PT_REGS_PARM3(ctx);
	e->block[0] = (__u32)bxy;
	e->block[1] = bxy >> 32;
	e->block[2] = (__u32)PT_REGS_PARM5(ctx);
	e->shared_mem = stack_arg(ctx, 0);
	e->stream = stack_arg(ctx, 1);
	return launch_stage(ctx, e);
}

/* cudaLaunchConfig_t and CUlaunchConfig share the leading layout */
struct launch_config {
	__u32 grid[3];
	__u32 block[3];
	__u64 shared_mem;	/* size_t, or unsigned int + padding */
	__u64 stream;
};

static __always_inline void read_config(struct ap_gpu_call *e, __u64 uptr,
					int smem_is_u32)
{
	struct launch_config cfg = {};

	bpf_probe_read_user(&cfg, sizeof(cfg), (void *)uptr);
	e->grid[0] = cfg.grid[0];
	e->grid[1] = cfg.grid[1];
	e->grid[2] = cfg.grid[2];
	e->block[0] = cfg.block[0];
	e->block[1] = cfg.block[1];
	e->block[2] = cfg.block[2];
	e->shared_mem = smem_is_u32 ? (__u32)cfg.shared_mem : cfg.shared_mem;
	e->stream = cfg.stream;
}

/* cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
 *	const void *func, void **args) */
SEC("uprobe")
int ap_gpu_runtime_exc(struct pt_regs *ctx)
{
	struct ap_gpu_call call, *e = &call;

	if (!launch_begin(e, AP_GPU_API_RUNTIME_EXC))
		return 0;
	e->kernel = PT_REGS_PARM2(ctx);
	read_config(e, PT_REGS_PARM1(ctx), 0);
	return launch_stage(ctx, e);
}

/* CUresult cuLaunchKernel(CUfunction f, unsigned gridDimX, gridDimY,
 *	gridDimZ, blockDimX, blockDimY, blockDimZ, unsigned sharedMemBytes,
 *	CUstream hStream, void **kernelParams, void **extra) */
SEC("uprobe")
int ap_gpu_driver(struct pt_regs *ctx)
{
	struct ap_gpu_call call, *e = &call;

	if (!launch_begin(e, AP_GPU_API_DRIVER))
		return 0;
	e->kernel = PT_REGS_PARM1(ctx);
	e->grid[0] = (__u32)PT_REGS_PARM2(ctx);
	e->grid[1] = (__u32)PT_REGS_PARM3(ctx);
	e->grid[2] = (__u32)PT_REGS_PARM4(ctx);
	e->block[0] = (__u32)PT_REGS_PARM5(ctx);
	e->block[1] = (__u32)PT_REGS_PARM6(ctx);
	e->block[2] = (__u32)stack_arg(ctx, 0);
	e->shared_mem = (__u32)stack_arg(ctx, 1);
	e->stream = stack_arg(ctx, 2);
	return launch_stage(ctx, e);
}

/* CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
 *	void **kernelParams, void **extra) */
SEC("uprobe")
int ap_gpu_driver_ex(struct pt_regs *ctx)
{
	struct ap_gpu_call call, *e = &call;

	if (!launch_begin(e, AP_GPU_API_DRIVER_EX))
		return 0;
	e->kernel = PT_REGS_PARM2(ctx);
	read_config(e, PT_REGS_PARM1(ctx), 1);
	return launch_stage(ctx, e);
}

/* the return of any of the four: the launch is complete on the host */
SEC("uretprobe")
int ap_gpu_return(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct ap_gpu_call *c;
	struct ap_ev_gpu *out;
	__u64 *sent, *u;
	long sz;

	c = bpf_map_lookup_elem(&gpu_inflight, &tid);
	if (!c)
		return 0;
	if (c->depth) {
		c->depth--;
		return 0;
	}
	out = ap_reserve_st(sizeof(*out));
	if (out) {
		bpf_probe_read_kernel(&out->call, sizeof(out->call), c);
		out->call.launch_ns = bpf_ktime_get_ns() - c->hdr.ts;
		out->call.result = (__s32)PT_REGS_RC(ctx);
		/* the caller's frames from the return address on, under
		 * the entry point */
		u = out->st.ips;
		u[0] = c->entry_ip;
		out->st.kstack_sz = 0;
		out->st.uflags = 0;
		out->st.py_n = 0;
		sz = ap_user_stack(ctx, &u[1], AP_MAX_USTACK - 1,
				   &out->st.uflags);
		out->st.ustack_sz = sz + sizeof(__u64);
		/* a launch from Python: the function that made it */
		ap_py_stacks(&out->st);
		/* launches come in bursts of thousands */
		ap_submit_st(out);
		sent = bpf_map_lookup_elem(&gpu_sent, &zero);
		if (sent)
			__sync_fetch_and_add(sent, 1);
	}
	bpf_map_delete_elem(&gpu_inflight, &tid);
	return 0;
}

/* CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
 *	const char *name) */
SEC("uprobe")
int ap_gpu_getfunc(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct getfunc_args a;

	if (!ap_is_target(id >> 32))
		return 0;
	a.hfunc = PT_REGS_PARM1(ctx);
	a.name = PT_REGS_PARM3(ctx);
	bpf_map_update_elem(&gpu_getfunc, &tid, &a, BPF_ANY);
	return 0;
}

SEC("uretprobe")
int ap_gpu_getfunc_return(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	char name[AP_GPU_NAME_LEN] = {};
	struct getfunc_args *a;
	__u64 handle = 0;

	a = bpf_map_lookup_elem(&gpu_getfunc, &tid);
	if (!a)
		return 0;
	/* CUDA_SUCCESS is 0; on failure *hfunc is not a handle */
	if (PT_REGS_RC(ctx) == 0 &&
	    !bpf_probe_read_user(&handle, sizeof(handle), (void *)a->hfunc) &&
	    handle &&
	    bpf_probe_read_user_str(name, sizeof(name), (void *)a->name) > 0)
		bpf_map_update_elem(&gpu_names, &handle, name, BPF_ANY);
	bpf_map_delete_elem(&gpu_getfunc, &tid);
	return 0;
}

SEC("tp/syscalls/sys_enter_mmap")
int ap_gpu_mmap_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u8 one = 1;

	if (!(ctx->args[2] & PROT_EXEC) || (int)ctx->args[4] < 0)
		return 0;
	if (!ap_is_target(id >> 32))
		return 0;
	bpf_map_update_elem(&gpu_mmap_tids, &tid, &one, BPF_ANY);
	return 0;
}

SEC("tp/syscalls/sys_exit_mmap")
int ap_gpu_mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct ap_ev_gpu_mapped *e;

	if (!bpf_map_lookup_elem(&gpu_mmap_tids, &tid))
		return 0;
	bpf_map_delete_elem(&gpu_mmap_tids, &tid);
	if (ctx->ret < 0 && ctx->ret > -4096)
		return 0;
	/* the recorder re-reads the mappings when it meets this record
	 * (and the sensor arms what is new); woken now rather than at its
	 * next poll timeout: the target may call into the library at once */
	e = ap_reserve(sizeof(*e));
	if (!e)
		return 0;
	ap_fill_hdr(&e->hdr, AP_EV_GPU_MAPPED);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* aperture:launch (u32 correlation, u32 domain, u32 cbid): inside a
 * launch call, on the launching thread.  The runtime's call and the
 * driver's call under it each have their id; the device record carries
 * one of them, so both are kept. */
SEC("usdt")
int BPF_USDT(ap_gpu_cupti_launch, __u32 corr, __u32 domain, __u32 cbid)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ap_gpu_call *c;
	int slot = domain == AP_CUPTI_DOMAIN_RUNTIME ? 0 : 1;

	c = bpf_map_lookup_elem(&gpu_inflight, &tid);
	if (!c)
		return 0;
	if (slot == 0 && !c->corr[0])
		c->corr[0] = corr;
	else if (slot == 1 && !c->corr[1])
		c->corr[1] = corr;
	return 0;
}

/* aperture:activity (const struct ap_cupti_act *): a completed record */
SEC("usdt")
int BPF_USDT(ap_gpu_cupti_act, void *rec)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_ev_gpu_dev *e;
	__u32 one = 1;
	__u64 *sent;

	if (!ap_is_target(id >> 32))
		return 0;
	e = ap_reserve(sizeof(*e));
	if (!e)
		return 0;
	ap_fill_hdr(&e->hdr, AP_EV_GPU_DEV);
	if (bpf_probe_read_user(&e->act, sizeof(e->act), rec)) {
		bpf_ringbuf_discard(e, 0);
		return 0;
	}
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->name[0] = '\0';
	if (e->act.name)
		bpf_probe_read_user_str(e->name, sizeof(e->name),
					(void *)e->act.name);
	ap_submit(e, sizeof(*e));
	sent = bpf_map_lookup_elem(&gpu_sent, &one);
	if (sent)
		__sync_fetch_and_add(sent, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
