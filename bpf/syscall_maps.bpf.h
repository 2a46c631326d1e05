/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall sensor's in-flight table, shared by bpf/syscall.bpf.c, which
 * fills it, and bpf/task.bpf.c, which frees a thread's entry when the
 * thread exits.  __weak with one definition: the linker keeps a single
 * instance, as for the maps of common.bpf.h.
 */
#ifndef APERTURE_SYSCALL_MAPS_BPF_H
#define APERTURE_SYSCALL_MAPS_BPF_H

#include "syscall.h"

/* tid -> entry (ts 0: no call in flight); sized by user space to the
 * threads the machine can have (1 entry when the sensor is off) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SC_INFLIGHT_MAX);
	__type(key, __u32);
	__type(value, struct ap_sc_start);
} ap_sc_inflight SEC(".maps") __weak;

#endif /* APERTURE_SYSCALL_MAPS_BPF_H */
