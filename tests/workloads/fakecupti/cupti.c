// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcupti.so.13: the part of the CUPTI API that
 * libaperture-cupti.so uses, with the real signatures (compiled against
 * the toolkit's cupti.h), over a simulated device.  The stand-in CUDA
 * libraries (fakecuda/) call the fakecupti_* hooks below as the real
 * driver would feed CUPTI: API entry and exit, and the work each call
 * puts on the device, with the run time it is to have.
 *
 * The device: one timeline per stream; a kernel starts when the stream is
 * free (or now) and ends its run time later, on a GPU clock that is
 * CLOCK_MONOTONIC plus FAKECUPTI_CLOCK_OFFSET.  Records go into the
 * buffers the client hands over (bufferRequested) and come back
 * (bufferCompleted) when one is full, on the flush period's thread, and on
 * cuptiActivityFlushAll: never otherwise, so a client that does not flush
 * at exit loses its last buffer.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "fakecupti.h"

#define MAX_ENABLED	64
#define MAX_STREAMS	16
#define MAX_DEPTH	8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc on_request;
static CUpti_BuffersCallbackCompleteFunc on_complete;
static uint32_t kinds_on;			/* 1 << CUpti_ActivityKind */
static struct {
	CUpti_CallbackFunc fn;
	void *userdata;
	int on;
} sub;
static struct {
	uint32_t domain, cbid;
} enabled[MAX_ENABLED];
static int nr_enabled;
static uint8_t *buf;				/* the current buffer */
static size_t buf_size, buf_used;
static size_t dropped;
static uint32_t next_corr;
static struct {
	uintptr_t handle;
	uint64_t tail;				/* when it is free, GPU clock */
} streams[MAX_STREAMS];
static pthread_t flusher;
static uint32_t flush_ms;

static __thread uint32_t corr_stack[MAX_DEPTH];
static __thread int depth;

static uint64_t mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static uint64_t gpu_clock(void)
{
	return mono() + FAKECUPTI_CLOCK_OFFSET;
}

static size_t rec_size(CUpti_ActivityKind kind)
{
	size_t n;

	switch (kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		n = sizeof(CUpti_ActivityKernel10);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		n = sizeof(CUpti_ActivityMemcpy6);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		n = sizeof(CUpti_ActivityMemset4);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		n = sizeof(CUpti_ActivitySynchronization2);
		break;
	default:
		return 0;
	}
	return (n + 7) & ~(size_t)7;
}

/* caller holds lock; the full buffer, to complete outside it */
static uint8_t *take_buffer(size_t *valid, size_t *size)
{
	uint8_t *b = buf;

	*valid = buf_used;
	*size = buf_size;
	buf = NULL;
	buf_size = buf_used = 0;
	return b;
}

static void complete(uint8_t *b, size_t size, size_t valid)
{
	if (b && on_complete)
		on_complete(NULL, 0, b, size, valid);
}

/* room for a record of kind, or NULL (dropped); lock held on entry and
 * exit, dropped in between when a full buffer goes back */
static void *reserve(CUpti_ActivityKind kind)
{
	size_t n = rec_size(kind), valid, size;
	uint8_t *full;
	void *p;

	if (!(kinds_on & (1u << kind)) || !n)
		return NULL;
	if (buf && buf_used + n > buf_size) {
		full = take_buffer(&valid, &size);
		pthread_mutex_unlock(&lock);
		complete(full, size, valid);
		pthread_mutex_lock(&lock);
	}
	if (!buf) {
		size_t max = 0;

		if (on_request)
			on_request(&buf, &buf_size, &max);
		buf_used = 0;
		if (!buf || buf_size < n) {
			buf = NULL;
			dropped++;
			return NULL;
		}
	}
	p = buf + buf_used;
	memset(p, 0, n);
	buf_used += n;
	return p;
}

static uint32_t stream_id(uintptr_t handle, uint64_t **tail)
{
	int i;

	for (i = 0; i < MAX_STREAMS - 1; i++) {
		if (streams[i].handle == handle || !streams[i].tail) {
			streams[i].handle = handle;
			break;
		}
	}
	*tail = &streams[i].tail;
	/* the default stream is 7 on real devices, others count up */
	return 7 + i;
}

/* [start, end) of work that takes ns on the stream */
static uint32_t schedule(uintptr_t stream, uint64_t ns, uint64_t *start,
			 uint64_t *end)
{
	uint64_t *tail, now = gpu_clock();
	uint32_t id = stream_id(stream, &tail);

	*start = *tail > now ? *tail : now;
	*end = *start + ns;
	*tail = *end;
	return id;
}

static uint32_t current_corr(void)
{
	return depth ? corr_stack[depth - 1] : 0;
}

/* hooks for the stand-in CUDA libraries */

uint32_t fakecupti_api(int site, uint32_t domain, uint32_t cbid,
		       const char *func, const char *symbol)
{
	CUpti_CallbackData cb;
	uint32_t corr;
	int i, on = 0;

	pthread_mutex_lock(&lock);
	if (site == CUPTI_API_ENTER) {
		corr = ++next_corr;
		if (depth < MAX_DEPTH)
			corr_stack[depth] = corr;
		depth++;
	} else {
		corr = current_corr();
	}
	for (i = 0; i < nr_enabled; i++)
		if (enabled[i].domain == domain && enabled[i].cbid == cbid)
			on = sub.on;
	pthread_mutex_unlock(&lock);
	if (site != CUPTI_API_ENTER && depth > 0)
		depth--;
	if (!on || !sub.fn)
		return corr;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = site;
	cb.functionName = func;
	cb.symbolName = symbol;
	cb.correlationId = corr;
	sub.fn(sub.userdata, (CUpti_CallbackDomain)domain,
	       (CUpti_CallbackId)cbid, &cb);
	return corr;
}

static const char *keep_name(const char *name)
{
	static struct {
		char *s;
	} names[64];
	int i;

	for (i = 0; i < 64 && names[i].s; i++)
		if (!strcmp(names[i].s, name))
			return names[i].s;
	if (i == 64)
		return "[too many names]";
	names[i].s = strdup(name);
	return names[i].s ? names[i].s : "";
}

void fakecupti_kernel(const char *name, const unsigned int grid[3],
		      const unsigned int block[3], unsigned int smem,
		      uintptr_t stream, uint64_t ns)
{
	CUpti_ActivityKernel10 *k;
	uint64_t start, end;
	uint32_t id;

	pthread_mutex_lock(&lock);
	id = schedule(stream, ns, &start, &end);
	k = reserve(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (k) {
		k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k->start = start;
		k->end = end;
		k->completed = end;
		k->deviceId = 0;
		k->contextId = 1;
		k->streamId = id;
		k->gridX = grid[0];
		k->gridY = grid[1];
		k->gridZ = grid[2];
		k->blockX = block[0];
		k->blockY = block[1];
		k->blockZ = block[2];
		k->dynamicSharedMemory = smem;
		k->correlationId = current_corr();
		k->name = keep_name(name);
	}
	pthread_mutex_unlock(&lock);
}

void fakecupti_memcpy(uint8_t copy_kind, uint64_t bytes, uintptr_t stream,
		      uint64_t ns)
{
	CUpti_ActivityMemcpy6 *m;
	uint64_t start, end;
	uint32_t id;

	pthread_mutex_lock(&lock);
	id = schedule(stream, ns, &start, &end);
	m = reserve(CUPTI_ACTIVITY_KIND_MEMCPY);
	if (m) {
		m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m->copyKind = copy_kind;
		m->bytes = bytes;
		m->start = start;
		m->end = end;
		m->contextId = 1;
		m->streamId = id;
		m->correlationId = current_corr();
	}
	pthread_mutex_unlock(&lock);
}

void fakecupti_memset(uint64_t bytes, uintptr_t stream, uint64_t ns)
{
	CUpti_ActivityMemset4 *m;
	uint64_t start, end;
	uint32_t id;

	pthread_mutex_lock(&lock);
	id = schedule(stream, ns, &start, &end);
	m = reserve(CUPTI_ACTIVITY_KIND_MEMSET);
	if (m) {
		m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
		m->bytes = bytes;
		m->start = start;
		m->end = end;
		m->contextId = 1;
		m->streamId = id;
		m->correlationId = current_corr();
	}
	pthread_mutex_unlock(&lock);
}

/* the host waits until the stream (all of them: context) is free; the
 * stand-in's host does not really wait */
void fakecupti_sync(int type, uintptr_t stream)
{
	CUpti_ActivitySynchronization2 *s;
	uint64_t now = gpu_clock(), until = now, *tail;
	uint32_t id = 0;
	int i;

	pthread_mutex_lock(&lock);
	if (type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE) {
		id = stream_id(stream, &tail);
		until = *tail > now ? *tail : now;
	} else {
		for (i = 0; i < MAX_STREAMS; i++)
			if (streams[i].tail > until)
				until = streams[i].tail;
	}
	s = reserve(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
	if (s) {
		s->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
		s->type = type;
		s->start = now;
		s->end = until;
		s->contextId = 1;
		s->streamId = id;
		s->correlationId = current_corr();
	}
	pthread_mutex_unlock(&lock);
}

/* the CUPTI API */

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result,
					  const char **str)
{
	if (!str)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" :
	       "CUPTI_ERROR (stand-in)";
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*timestamp = gpu_clock();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
				    CUpti_CallbackFunc callback,
				    void *userdata)
{
	if (!subscriber)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	if (sub.on) {
		pthread_mutex_unlock(&lock);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	sub.fn = callback;
	sub.userdata = userdata;
	sub.on = 1;
	*subscriber = (CUpti_SubscriberHandle)&sub;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	pthread_mutex_lock(&lock);
	sub.on = 0;
	nr_enabled = 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable,
					 CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain,
					 CUpti_CallbackId cbid)
{
	int i;

	if (subscriber != (CUpti_SubscriberHandle)&sub)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nr_enabled; i++)
		if (enabled[i].domain == (uint32_t)domain &&
		    enabled[i].cbid == cbid)
			break;
	if (enable && i == nr_enabled && nr_enabled < MAX_ENABLED) {
		enabled[nr_enabled].domain = domain;
		enabled[nr_enabled].cbid = cbid;
		nr_enabled++;
	} else if (!enable && i < nr_enabled) {
		enabled[i] = enabled[--nr_enabled];
	}
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(
	CUpti_BuffersCallbackRequestFunc funcBufferRequested,
	CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
	if (!funcBufferRequested || !funcBufferCompleted)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	on_request = funcBufferRequested;
	on_complete = funcBufferCompleted;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if (!rec_size(kind))
		return CUPTI_ERROR_NOT_COMPATIBLE;
	pthread_mutex_lock(&lock);
	kinds_on |= 1u << kind;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	pthread_mutex_lock(&lock);
	kinds_on &= ~(1u << kind);
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer,
						size_t validBufferSizeBytes,
						CUpti_Activity **record)
{
	size_t off;

	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!*record)
		off = 0;
	else
		off = (uint8_t *)*record - buffer + rec_size((*record)->kind);
	if (off + sizeof(CUpti_Activity) > validBufferSizeBytes)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*record = (CUpti_Activity *)(buffer + off);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context,
						       uint32_t streamId,
						       size_t *n)
{
	if (!n)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	*n = dropped;
	dropped = 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	size_t valid = 0, size = 0;
	uint8_t *b;

	pthread_mutex_lock(&lock);
	b = buf_used ? take_buffer(&valid, &size) : NULL;
	pthread_mutex_unlock(&lock);
	complete(b, size, valid);
	return CUPTI_SUCCESS;
}

static void *flush_loop(void *arg)
{
	(void)arg;
	for (;;) {
		usleep(flush_ms * 1000);
		cuptiActivityFlushAll(0);
	}
	return NULL;
}

CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time)
{
	int start;

	pthread_mutex_lock(&lock);
	start = !flush_ms && time;
	flush_ms = time;
	pthread_mutex_unlock(&lock);
	if (start && !pthread_create(&flusher, NULL, flush_loop, NULL))
		pthread_detach(flusher);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiFinalize(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	return CUPTI_SUCCESS;
}
