// SPDX-License-Identifier: GPL-2.0
#include "gpu/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "format/format.h"
#include "gpu.h"
#include "record/recorder.h"
#include "format/reader.h"
#include "report/evdump.h"
#include "symbols/demangle.h"

_Static_assert(AP_GPU_RUNTIME == AP_GPU_API_RUNTIME &&
	       AP_GPU_DRIVER == AP_GPU_API_DRIVER &&
	       AP_GPU_RUNTIME_EXC == AP_GPU_API_RUNTIME_EXC &&
	       AP_GPU_DRIVER_EX == AP_GPU_API_DRIVER_EX,
	       "file and BPF api numbers");
_Static_assert(AP_GPU_NAME_MAX == AP_GPU_NAME_LEN, "name length");
_Static_assert(AP_REC_GPU_MAPPED == AP_EV_GPU_MAPPED, "record type");
_Static_assert(AP_REC_GPU_DEV == AP_EV_GPU_DEV, "record type");
_Static_assert(AP_GPU_KERNEL == AP_GPU_DEV_KERNEL &&
	       AP_GPU_MEMCPY == AP_GPU_DEV_MEMCPY &&
	       AP_GPU_MEMSET == AP_GPU_DEV_MEMSET &&
	       AP_GPU_SYNC == AP_GPU_DEV_SYNC &&
	       AP_GPU_DROPPED == AP_GPU_DEV_DROPPED, "device kinds");
_Static_assert(AP_GPU_DEV_NAME_MAX == AP_GPU_DEV_NAME_LEN, "name length");

/* what launches and device records both carry: a kernel's shape */
static void put_shape(struct ap_buf *b, const uint32_t grid[3],
		      const uint32_t block[3])
{
	int i;

	for (i = 0; i < 3; i++)
		ap_buf__u32(b, grid[i]);
	for (i = 0; i < 3; i++)
		ap_buf__u32(b, block[i]);
}

static void get_shape(struct ap_cur *c, uint32_t grid[3], uint32_t block[3])
{
	int i;

	for (i = 0; i < 3; i++)
		grid[i] = ap_cur__u32(c);
	for (i = 0; i < 3; i++)
		block[i] = ap_cur__u32(c);
}

void ap_gpu_launch__encode(const struct ap_gpu_launch *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_GPU, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u64(b, e->kernel);
	ap_buf__u32(b, e->api);
	put_shape(b, e->grid, e->block);
	ap_buf__u64(b, e->shared_mem);
	ap_buf__u64(b, e->stream);
	ap_buf__u64(b, e->launch_ns);
	ap_buf__u64(b, e->device_ns);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, (uint32_t)e->result);
	ap_buf__strn(b, e->name, sizeof(e->name));
	ap_buf__u32(b, e->corr[0]);
	ap_buf__u32(b, e->corr[1]);
	ap_frame__end(b, mark);
}

int ap_gpu_launch__decode(const void *p, size_t len, struct ap_gpu_launch *e)
{
	struct ap_cur c;

	memset(e, 0, sizeof(*e));
	ap_cur__init(&c, p, len);
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->kernel = ap_cur__u64(&c);
	e->api = ap_cur__u32(&c);
	get_shape(&c, e->grid, e->block);
	e->shared_mem = ap_cur__u64(&c);
	e->stream = ap_cur__u64(&c);
	e->launch_ns = ap_cur__u64(&c);
	e->device_ns = ap_cur__u64(&c);
	e->stack_id = ap_cur__u32(&c);
	e->cpu = ap_cur__u32(&c);
	e->result = (int32_t)ap_cur__u32(&c);
	ap_cur__str(&c, e->name, sizeof(e->name));
	/* minor 2 */
	if (!c.err && ap_cur__left(&c) >= 8) {
		e->corr[0] = ap_cur__u32(&c);
		e->corr[1] = ap_cur__u32(&c);
	}
	return c.err;
}

void ap_gpu_dev__encode(const struct ap_gpu_dev *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_GPU_DEV, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->kind);
	ap_buf__u32(b, e->corr);
	ap_buf__u64(b, e->duration_ns);
	ap_buf__u32(b, e->device);
	ap_buf__u32(b, e->context);
	ap_buf__u32(b, e->stream);
	ap_buf__u32(b, e->sub);
	ap_buf__u64(b, e->bytes);
	put_shape(b, e->grid, e->block);
	ap_buf__u32(b, e->static_smem);
	ap_buf__u32(b, e->dynamic_smem);
	ap_buf__strn(b, e->name, sizeof(e->name));
	ap_frame__end(b, mark);
}

int ap_gpu_dev__decode(const void *p, size_t len, struct ap_gpu_dev *e)
{
	struct ap_cur c;

	memset(e, 0, sizeof(*e));
	ap_cur__init(&c, p, len);
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->kind = ap_cur__u32(&c);
	e->corr = ap_cur__u32(&c);
	e->duration_ns = ap_cur__u64(&c);
	e->device = ap_cur__u32(&c);
	e->context = ap_cur__u32(&c);
	e->stream = ap_cur__u32(&c);
	e->sub = ap_cur__u32(&c);
	e->bytes = ap_cur__u64(&c);
	get_shape(&c, e->grid, e->block);
	e->static_smem = ap_cur__u32(&c);
	e->dynamic_smem = ap_cur__u32(&c);
	ap_cur__str(&c, e->name, sizeof(e->name));
	return c.err;
}

const char *ap_gpu_copy_name(uint32_t kind)
{
	/* CUpti_ActivityMemcpyKind */
	static const char *const names[] = {
		"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
		"DtoA", "DtoD", "HtoH", "PtoP",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *ap_gpu_sync_name(uint32_t type)
{
	/* CUpti_ActivitySynchronizationType */
	static const char *const names[] = {
		"unknown", "event", "stream-wait-event", "stream", "context",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] :
	       "unknown";
}

const char *ap_gpu_dev_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[AP_GPU_KERNEL] = "kernel",
		[AP_GPU_MEMCPY] = "memcpy",
		[AP_GPU_MEMSET] = "memset",
		[AP_GPU_SYNC] = "sync",
		[AP_GPU_DROPPED] = "dropped",
	};

	return kind && kind < sizeof(names) / sizeof(names[0]) ?
	       names[kind] : "unknown";
}

const char *ap_gpu_api_name(uint32_t api)
{
	static const char *const names[] = {
		[AP_GPU_RUNTIME] = "runtime",
		[AP_GPU_DRIVER] = "driver",
		[AP_GPU_RUNTIME_EXC] = "runtime-exc",
		[AP_GPU_DRIVER_EX] = "driver-ex",
	};

	return api < sizeof(names) / sizeof(names[0]) ? names[api] : "unknown";
}

int ap_rec_gpu(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_gpu *e = data;
	const struct ap_gpu_call *c = &e->call;
	struct ap_gpu_launch l;
	int err;

	if (!ap_stacks__whole(e, size, offsetof(struct ap_ev_gpu, st)))
		return 0;
	err = ap_recorder__touch_ev(r, &c->hdr, c->comm, NULL);
	if (err)
		return err;
	memset(&l, 0, sizeof(l));
	l.ts = c->hdr.ts;
	l.pid = c->hdr.pid;
	l.tid = c->hdr.tid;
	l.cpu = c->hdr.cpu;
	l.kernel = c->kernel;
	l.api = c->api;
	memcpy(l.grid, c->grid, sizeof(l.grid));
	memcpy(l.block, c->block, sizeof(l.block));
	l.shared_mem = c->shared_mem;
	l.stream = c->stream;
	l.launch_ns = c->launch_ns;
	l.result = c->result;
	l.corr[0] = c->corr[0];
	l.corr[1] = c->corr[1];
	/* the device side comes in its own records (AP_TAG_GPU_DEV),
	 * joined by correlation id in the report */
	l.device_ns = 0;
	memcpy(l.name, c->name, sizeof(l.name));
	l.name[sizeof(l.name) - 1] = '\0';
	l.stack_id = ap_recorder__stack(r, c->hdr.pid, &e->st);
	ap_gpu_launch__encode(&l, ap_recorder__buf(r));
	return 0;
}

int ap_rec_gpu_mapped(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_gpu_mapped *e = data;

	if (size < sizeof(*e))
		return 0;
	/* a target that is already gone: nothing left to read */
	ap_recorder__rescan(r, e->hdr.pid);
	return 0;
}

int ap_rec_gpu_dev(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_gpu_dev *e = data;
	const struct ap_cupti_act *a = &e->act;
	struct ap_gpu_dev d;
	int err;

	if (size < sizeof(*e))
		return 0;
	err = ap_recorder__touch_ev(r, &e->hdr, e->comm, NULL);
	if (err)
		return err;
	memset(&d, 0, sizeof(d));
	d.ts = a->start;
	d.pid = e->hdr.pid;
	d.tid = e->hdr.tid;
	d.kind = a->kind;
	d.corr = a->corr;
	d.duration_ns = a->duration;
	d.device = a->device;
	d.context = a->context;
	d.stream = a->stream;
	d.sub = a->sub;
	d.bytes = a->bytes;
	memcpy(d.grid, a->grid, sizeof(d.grid));
	memcpy(d.block, a->block, sizeof(d.block));
	d.static_smem = a->static_smem;
	d.dynamic_smem = a->dynamic_smem;
	memcpy(d.name, e->name, sizeof(d.name));
	d.name[sizeof(d.name) - 1] = '\0';
	ap_gpu_dev__encode(&d, ap_recorder__buf(r));
	return 0;
}

/* one frame as a generic record for script and the timeline (event.h) */
static int dec_launch(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_gpu_launch e;
	int i;

	if (ap_gpu_launch__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (e.name[0])
		snprintf(r->name, sizeof(r->name), "%s", e.name);
	else
		snprintf(r->name, sizeof(r->name), "kernel 0x%" PRIx64,
			 e.kernel);
	/* named by the sink, which has the symbols */
	if (!e.name[0] && (e.api == AP_GPU_RUNTIME ||
			   e.api == AP_GPU_RUNTIME_EXC))
		r->stub = e.kernel;
	r->ts = e.ts;
	r->dur_ns = e.launch_ns;
	r->slice = 1;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	ap_evrec__field(r, "api", 0, "%s", ap_gpu_api_name(e.api));
	ap_evrec__field(r, "grid", 0, "%u,%u,%u", e.grid[0], e.grid[1], e.grid[2]);
	ap_evrec__field(r, "block", 0, "%u,%u,%u", e.block[0], e.block[1], e.block[2]);
	ap_evrec__field(r, "shared_mem", 1, "%" PRIu64, e.shared_mem);
	ap_evrec__field(r, "stream", 0, "0x%" PRIx64, e.stream);
	ap_evrec__field(r, "launch_ns", 1, "%" PRIu64, e.launch_ns);
	r->corr[0] = e.corr[0];
	r->corr[1] = e.corr[1];
	for (i = 0; i < 2; i++)
		if (e.corr[i])
			ap_evrec__field(r, i ? "corr_driver" : "corr_runtime", 1, "%u",
			      e.corr[i]);
	if (e.device_ns)
		ap_evrec__field(r, "device_ns", 1, "%" PRIu64, e.device_ns);
	if (e.result)
		ap_evrec__field(r, "result", 1, "%d", e.result);
	return 0;
}

/* one record of the device's work (CUPTI), on its device and stream */
static int dec_dev(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_gpu_dev *e = malloc(sizeof(*e));
	char *dm;

	if (!e)
		return -ENOMEM;
	if (ap_gpu_dev__decode(f->payload, f->len, e)) {
		free(e);
		return -EBADMSG;
	}
	switch (e->kind) {
	case AP_GPU_KERNEL:
		/* no name: its launch's, where the sink joins them */
		dm = ap_demangle(e->name);
		snprintf(r->name, sizeof(r->name), "%s", dm ? dm : e->name);
		free(dm);
		break;
	case AP_GPU_MEMCPY:
		snprintf(r->name, sizeof(r->name), "memcpy %s",
			 ap_gpu_copy_name(e->sub));
		break;
	case AP_GPU_SYNC:
		snprintf(r->name, sizeof(r->name), "sync %s",
			 ap_gpu_sync_name(e->sub));
		break;
	case AP_GPU_MEMSET:
		snprintf(r->name, sizeof(r->name), "memset");
		break;
	default:
		/* CUPTI's count of records it dropped: no event */
		free(e);
		return -ENOMSG;
	}
	r->ts = e->ts;
	r->dur_ns = e->duration_ns;
	r->slice = 1;
	r->pid = e->pid;
	r->tid = e->tid;
	r->on_device = (int)e->kind;
	r->device = e->device;
	r->stream = e->stream;
	r->corr[0] = e->corr;
	ap_evrec__field(r, "kind", 0, "%s", ap_gpu_dev_kind_name(e->kind));
	ap_evrec__field(r, "device", 1, "%u", e->device);
	ap_evrec__field(r, "stream", 1, "%u", e->stream);
	ap_evrec__field(r, "correlation", 1, "%u", e->corr);
	ap_evrec__field(r, "duration_ns", 1, "%" PRIu64, e->duration_ns);
	if (e->kind == AP_GPU_KERNEL) {
		ap_evrec__field(r, "grid", 0, "%u,%u,%u", e->grid[0], e->grid[1],
		      e->grid[2]);
		ap_evrec__field(r, "block", 0, "%u,%u,%u", e->block[0], e->block[1],
		      e->block[2]);
		ap_evrec__field(r, "static_smem", 1, "%u", e->static_smem);
		ap_evrec__field(r, "dynamic_smem", 1, "%u", e->dynamic_smem);
	}
	if (e->kind == AP_GPU_MEMCPY || e->kind == AP_GPU_MEMSET)
		ap_evrec__field(r, "bytes", 1, "%" PRIu64, e->bytes);
	free(e);
	return 0;
}

int ap_gpu__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r)
{
	(void)d;
	return f->tag == AP_TAG_GPU_DEV ? dec_dev(f, r) : dec_launch(f, r);
}
