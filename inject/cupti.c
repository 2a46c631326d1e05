// SPDX-License-Identifier: GPL-2.0
/*
 * libaperture-cupti.so: loaded into a CUDA program through
 * CUDA_INJECTION64_PATH (the CUDA driver dlopens it at cuInit and calls
 * InitializeInjection), it turns CUPTI activity records into USDT probes
 * that aperture's BPF side attaches to (bpf/gpu.bpf.c, ABI in bpf/gpu.h):
 *
 *  - kernels (the concurrent kind: the serialized one would change the
 *    program's timing), memory copies, memsets and synchronisations:
 *    aperture:activity, one per record when CUPTI hands a buffer back;
 *  - launch calls: aperture:launch with CUPTI's correlation id, inside the
 *    call on the launching thread, where the BPF side joins it to the
 *    launch it is recording (and its stack).
 *
 * Why USDT: nothing to configure in the target (no socket, no file, no
 * thread of ours), the cost is a NOP while no one listens, the kernel
 * reads the records in the target's own thread while they are valid, and
 * aperture keeps one transport (the BPF ring buffer, its ordering and its
 * drop accounting) for every event.  parca-agent's GPU support works the
 * same way.
 *
 * Times: converted to CLOCK_MONOTONIC with lib/gpu/clock.c, re-synchronised
 * each time a buffer comes back.  At exit the last buffers are flushed
 * (atexit, registered after CUDA's own handlers, so it runs before them).
 * Nothing here ever stops the program: a CUPTI error is one line on
 * stderr, and the program runs on without device times.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>
#include <sys/sdt.h>

#include "gpu.h"
#include "gpu/clock.h"

#define BUF_SIZE	(64 * 1024)
#define BUF_ALIGN	8
/* how often CUPTI hands back buffers that are not full, ms */
#define FLUSH_PERIOD_MS	200

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ap_gpu_clock clk;
static CUpti_SubscriberHandle subscriber;
static int started;

static void say(const char *what, CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		s = "unknown error";
	fprintf(stderr, "aperture-cupti: %s: %s (%d); no GPU device times\n",
		what, s, (int)r);
}

static uint64_t gpu_now(void *ctx)
{
	uint64_t ts = 0;

	(void)ctx;
	cuptiGetTimestamp(&ts);
	return ts;
}

static uint64_t mono_now(void *ctx)
{
	struct timespec t;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* caller holds lock */
static void resync(void)
{
	struct ap_gpu_sync s;

	ap_gpu_clock__measure(gpu_now, mono_now, NULL, 5, &s);
	ap_gpu_clock__add(&clk, s.gpu, s.mono);
}

static void emit(struct ap_cupti_act *a, uint64_t start, uint64_t end)
{
	a->start = ap_gpu_clock__to_mono(&clk, start);
	a->duration = end > start ? end - start : 0;
	STAP_PROBE1(aperture, activity, a);
}

static void on_record(const CUpti_Activity *rec)
{
	struct ap_cupti_act a;

	memset(&a, 0, sizeof(a));
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)rec;

		a.kind = AP_GPU_DEV_KERNEL;
		a.corr = k->correlationId;
		a.device = k->deviceId;
		a.context = k->contextId;
		a.stream = k->streamId;
		a.grid[0] = k->gridX;
		a.grid[1] = k->gridY;
		a.grid[2] = k->gridZ;
		a.block[0] = k->blockX;
		a.block[1] = k->blockY;
		a.block[2] = k->blockZ;
		a.static_smem = k->staticSharedMemory;
		a.dynamic_smem = k->dynamicSharedMemory;
		a.name = (uintptr_t)k->name;
		emit(&a, k->start, k->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;

		a.kind = AP_GPU_DEV_MEMCPY;
		a.corr = m->correlationId;
		a.device = m->deviceId;
		a.context = m->contextId;
		a.stream = m->streamId;
		a.sub = m->copyKind;
		a.bytes = m->bytes;
		emit(&a, m->start, m->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;

		a.kind = AP_GPU_DEV_MEMSET;
		a.corr = m->correlationId;
		a.device = m->deviceId;
		a.context = m->contextId;
		a.stream = m->streamId;
		a.bytes = m->bytes;
		emit(&a, m->start, m->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const CUpti_ActivitySynchronization2 *s = (const void *)rec;

		a.kind = AP_GPU_DEV_SYNC;
		a.corr = s->correlationId;
		a.context = s->contextId;
		a.stream = s->streamId;
		a.sub = s->type;
		emit(&a, s->start, s->end);
		break;
	}
	default:
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	void *p = NULL;

	if (posix_memalign(&p, BUF_ALIGN, BUF_SIZE))
		p = NULL;
	*buf = p;
	*size = p ? BUF_SIZE : 0;
	*max_records = 0;	/* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)size;
	pthread_mutex_lock(&lock);
	resync();
	while (valid &&
	       cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
		on_record(rec);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
	    CUPTI_SUCCESS && dropped) {
		struct ap_cupti_act a;

		memset(&a, 0, sizeof(a));
		a.kind = AP_GPU_DEV_DROPPED;
		a.stream = stream;
		a.bytes = dropped;
		a.start = mono_now(NULL);
		STAP_PROBE1(aperture, activity, &a);
	}
	pthread_mutex_unlock(&lock);
	free(buf);
}

/* the launch calls: their correlation ids, on the launching thread */
static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain,
			    CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = data;

	(void)userdata;
	if (cb->callbackSite != CUPTI_API_ENTER)
		return;
	STAP_PROBE3(aperture, launch, cb->correlationId, (uint32_t)domain,
		    (uint32_t)cbid);
}

static const CUpti_CallbackId runtime_launches[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
};

static const CUpti_CallbackId driver_launches[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
};

static void at_exit(void)
{
	CUptiResult r;

	/* forced: also the buffers of kernels still in flight */
	r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (r != CUPTI_SUCCESS)
		say("cuptiActivityFlushAll at exit", r);
}

static int start(void)
{
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
		CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_MEMSET,
		CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	};
	CUptiResult r;
	size_t i;

	ap_gpu_clock__init(&clk);
	resync();
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		say("cuptiActivityRegisterCallbacks", r);
		return -1;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		r = cuptiActivityEnable(kinds[i]);
		if (r != CUPTI_SUCCESS) {
			say("cuptiActivityEnable", r);
			return -1;
		}
	}
	/* the correlation ids: only the launch calls, each callback costs */
	r = cuptiSubscribe(&subscriber, on_api, NULL);
	if (r != CUPTI_SUCCESS) {
		say("cuptiSubscribe (launch stacks will not be joined)", r);
	} else {
		for (i = 0; i < sizeof(runtime_launches) /
				sizeof(runtime_launches[0]); i++)
			cuptiEnableCallback(1, subscriber,
					    CUPTI_CB_DOMAIN_RUNTIME_API,
					    runtime_launches[i]);
		for (i = 0; i < sizeof(driver_launches) /
				sizeof(driver_launches[0]); i++)
			cuptiEnableCallback(1, subscriber,
					    CUPTI_CB_DOMAIN_DRIVER_API,
					    driver_launches[i]);
	}
	/* a long-running program's records arrive as it runs, not only
	 * when a buffer fills */
	r = cuptiActivityFlushPeriod(FLUSH_PERIOD_MS);
	if (r != CUPTI_SUCCESS)
		fprintf(stderr, "aperture-cupti: cuptiActivityFlushPeriod: %d; device records arrive as buffers fill\n",
			(int)r);
	atexit(at_exit);
	return 0;
}

/* called by the CUDA driver (cuInit) once per process; 1: success */
EXPORT int InitializeInjection(void)
{
	int ok;

	pthread_mutex_lock(&lock);
	if (!started)
		started = start() ? -1 : 1;
	ok = started > 0;
	pthread_mutex_unlock(&lock);
	return ok;
}
