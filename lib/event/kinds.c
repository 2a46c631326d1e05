// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event kinds (event.h).  The order is the order of the
 * file's tags (AP_TAG_CPU 0 .. AP_TAG_IO 6, AP_TAG_TRACEPOINT 8), which is the order -e,
 * `aperture list` and the report print them in.
 */
#include "event/event.h"

#include <stdint.h>
#include <string.h>

#include "aperture.h"
#include "format/format.h"
#include "record/collector.h"
#include "record/sensor.h"
#include "report/view.h"
#include "cpu/codec.h"
#include "gpu/codec.h"
#include "io/codec.h"
#include "lock/codec.h"
#include "mem/codec.h"
#include "sched/codec.h"
#include "syscall/codec.h"
#include "tracepoint/codec.h"
#include "syscall.h"

#define NOT_EVENT	UINT32_MAX

static const struct ap_event_kind kind_cpu = {
	.name = "cpu",
	.title = "CPU",
	.tag = AP_TAG_CPU,
	.sensor = &ap_sensor_cpu,
	.view = &ap_view_cpu,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_CPU, ap_rec_cpu, AP_TAG_CPU },
		{ 0 },
	},
	.decode = ap_cpu__evdec,
	.folded_unit = AP_UNIT_SAMPLES,
	.prof_types = { { "samples", "count" }, { "cpu", "nanoseconds" } },
	.nr_prof_types = 2,
	.trace_track = AP_TRACK_THREAD,
	.table_full_stat = -1,
};

static const struct ap_event_kind kind_lock = {
	.name = "lock",
	.title = "lock wait",
	.tag = AP_TAG_LOCK,
	.sensor = &ap_sensor_lock,
	.view = &ap_view_lock,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_LOCK, ap_rec_lock, AP_TAG_LOCK },
		{ 0 },
	},
	/* the kernel's data symbols, which name kernel locks */
	.rec_prepare = ap_rec_lock__prepare,
	.variants = (const struct ap_event_variant[]){
		{ "lock:pthread", offsetof(struct ap_collect_opts, lock_pthread) },
		{ NULL },
	},
	.decode = ap_lock__evdec,
	.folded_unit = AP_UNIT_NS,
	.prof_types = { { "lock-wait", "nanoseconds" }, { "waits", "count" } },
	.nr_prof_types = 2,
	/* a futex wait ends inside its futex syscall, a kernel lock's or a
	 * pthread hold's does not: neither nested nor apart */
	.trace_track = AP_TRACK_OWN,
	.table_full_stat = AP_STAT_LOCK_TABLE_FULL,
};

static const struct ap_event_kind kind_syscall = {
	.name = "syscall",
	.title = "syscall",
	.tag = AP_TAG_SYSCALL,
	.sensor = &ap_sensor_syscall,
	.view = &ap_view_syscall,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_SYSCALL, ap_rec_syscall, AP_TAG_SYSCALL },
		/* the kernel's sums: counted by the handler, per call */
		{ AP_EV_SYSCALL_SUM, ap_rec_syscall_sum, NOT_EVENT },
		{ 0 },
	},
	.variants = (const struct ap_event_variant[]){
		{ "syscall:calls", offsetof(struct ap_collect_opts, syscall_calls) },
		{ NULL },
	},
	.decode = ap_syscall__evdec,
	.folded_unit = AP_UNIT_NS,
	.prof_types = { { "syscall", "nanoseconds" },
			{ "syscall-calls", "count" } },
	.nr_prof_types = 2,
	.trace_track = AP_TRACK_THREAD,
	.table_full_stat = AP_STAT_SYSCALL_TABLE_FULL,
};

static const struct ap_event_kind kind_gpu = {
	.name = "gpu",
	.title = "GPU",
	.tag = AP_TAG_GPU,
	.more_tags = AP_EVMASK(AP_TAG_GPU_DEV),
	.sensor = &ap_sensor_gpu,
	.view = &ap_view_gpu,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_GPU, ap_rec_gpu, AP_TAG_GPU },
		{ AP_REC_GPU_MAPPED, ap_rec_gpu_mapped, NOT_EVENT },
		{ AP_REC_GPU_DEV, ap_rec_gpu_dev, AP_TAG_GPU_DEV },
		{ 0 },
	},
	.decode = ap_gpu__evdec,
	.folded_unit = AP_UNIT_COUNT,
	.prof_types = { { "launches", "count" },
			{ "launch", "nanoseconds" },
			{ "device", "nanoseconds" } },
	.nr_prof_types = 3,
	.trace_track = AP_TRACK_DEVICE,
	.table_full_stat = AP_STAT_GPU_TABLE_FULL,
};

static const struct ap_event_kind kind_mem = {
	.name = "mem",
	.title = "memory access",
	.tag = AP_TAG_MEM,
	.sensor = &ap_sensor_mem,
	.view = &ap_view_mem,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_MEM, ap_rec_mem, AP_TAG_MEM },
		{ 0 },
	},
	.decode = ap_mem__evdec,
	.folded_unit = AP_UNIT_COUNT,
	.prof_types = { { "accesses", "count" } },
	.nr_prof_types = 1,
	.trace_track = AP_TRACK_THREAD,
	.table_full_stat = -1,
};

static const struct ap_event_kind kind_sched = {
	.name = "sched",
	.title = "off-CPU",
	.tag = AP_TAG_SCHED,
	.sensor = &ap_sensor_sched,
	.view = &ap_view_sched,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_SCHED, ap_rec_sched, AP_TAG_SCHED },
		{ 0 },
	},
	.decode = ap_sched__evdec,
	.folded_unit = AP_UNIT_US,
	.prof_types = { { "off-cpu", "nanoseconds" },
			{ "switches", "count" } },
	.nr_prof_types = 2,
	.trace_track = AP_TRACK_THREAD,
	.table_full_stat = AP_STAT_SCHED_TABLE_FULL,
};

static const struct ap_event_kind kind_io = {
	.name = "io",
	.title = "I/O",
	.tag = AP_TAG_IO,
	.sensor = &ap_sensor_io,
	.view = &ap_view_io,
	.rec = (const struct ap_rec_handler[]){
		{ AP_EV_IO, ap_rec_io, AP_TAG_IO },
		{ 0 },
	},
	.variants = (const struct ap_event_variant[]){
		{ "io:calls", offsetof(struct ap_collect_opts, io_calls) },
		{ NULL },
	},
	.decode = ap_io__evdec,
	.folded_unit = AP_UNIT_BYTES,
	.prof_types = { { "io", "bytes" }, { "io-calls", "count" } },
	.nr_prof_types = 2,
	/* a read's slice and its syscall's are the same call */
	.trace_track = AP_TRACK_OWN,
	.table_full_stat = AP_STAT_IO_TABLE_FULL,
};

/* -e CAT:NAME: any tracepoint, counted, with its stacks */
static const struct ap_event_kind kind_tracepoint = {
	.name = "tracepoint",
	.title = "tracepoint",
	.tag = AP_TAG_TRACEPOINT,
	.sensor = &ap_sensor_tracepoint,
	.view = &ap_view_tracepoint,
	.named_only = 1,
	.rec = (const struct ap_rec_handler[]){
		/* counted by the handler: the filter drops some */
		{ AP_EV_TP, ap_rec_tp, NOT_EVENT },
		{ AP_REC_TP_DESC, ap_rec_tp_desc, NOT_EVENT },
		{ 0 },
	},
	.decode = ap_tracepoint__evdec,
	.folded_unit = AP_UNIT_COUNT,
	.prof_types = { { "tracepoint-hits", "count" } },
	.nr_prof_types = 1,
	.trace_track = AP_TRACK_THREAD,
	.table_full_stat = -1,
};

const struct ap_event_kind *const ap_event_kinds[] = {
	&kind_cpu, &kind_lock, &kind_syscall, &kind_gpu, &kind_mem,
	&kind_sched, &kind_io, &kind_tracepoint,
};
const size_t ap_nr_event_kinds = sizeof(ap_event_kinds) /
				 sizeof(ap_event_kinds[0]);

const struct ap_event_kind *ap_event_kind__find(const char *name)
{
	size_t i;

	for (i = 0; i < ap_nr_event_kinds; i++)
		if (!strcmp(ap_event_kinds[i]->name, name))
			return ap_event_kinds[i];
	return NULL;
}

const struct ap_event_kind *ap_event_kind__of_tag(uint32_t tag)
{
	size_t i;

	for (i = 0; i < ap_nr_event_kinds; i++)
		if (ap_event_kinds[i]->tag == tag ||
		    (tag < 32 && (ap_event_kinds[i]->more_tags &
				  AP_EVMASK(tag))))
			return ap_event_kinds[i];
	return NULL;
}

const char *ap_unit__name(int unit)
{
	static const char *const names[AP_UNIT_NR] = {
		[AP_UNIT_SAMPLES] = "samples",
		[AP_UNIT_NS] = "nanoseconds",
		[AP_UNIT_US] = "microseconds",
		[AP_UNIT_BYTES] = "bytes",
		[AP_UNIT_COUNT] = "count",
	};

	return unit >= 0 && unit < AP_UNIT_NR ? names[unit] : "?";
}
