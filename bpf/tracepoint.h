/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records of the tracepoint sensor (bpf/tracepoint.bpf.c): one generic
 * program attached to each tracepoint of -e CAT:NAME, told apart by the
 * link's BPF cookie (the tracepoint's index in the sensor's list), copies
 * the raw trace record and the stacks.  User space names and decodes the
 * record's fields from tracefs's format file (lib/tracepoint/tpformat.c).
 * Same rules as aperture.h: fixed-size integers and explicit padding.
 */
#ifndef APERTURE_BPF_TRACEPOINT_H
#define APERTURE_BPF_TRACEPOINT_H

#include "aperture.h"

#define AP_EV_TP		7

#define AP_TP_MAX		64	/* tracepoints per recording */
/* the bytes of a trace record copied: its fixed fields and the start of
 * its dynamic ones (__data_loc strings); the rest is cut */
#define AP_TP_DATA_MAX		512

struct ap_ev_tp {
	struct ap_ev_hdr hdr;	/* hdr.type = AP_EV_TP */
	char comm[AP_COMM_LEN];
	__u32 idx;		/* the tracepoint: the link's cookie */
	__u32 size;		/* bytes of data copied */
	__u8 data[AP_TP_DATA_MAX];	/* the raw record, from its
					 * common_type */
	struct ap_stacks st;
};

#endif /* APERTURE_BPF_TRACEPOINT_H */
