/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cpu kind's side of the record file: the recorder's handler of a
 * BPF sample (bpf/aperture.h struct ap_ev_cpu) into an AP_TAG_CPU frame
 * (ap_cpu_sample in format/format.h: the tag is the file's first), and
 * that frame as a generic record for script and the timeline.
 */
#ifndef APERTURE_CPU_CODEC_H
#define APERTURE_CPU_CODEC_H

#include <stddef.h>

struct ap_recorder;
struct ap_evdec;
struct ap_evrec;
struct ap_frame;

int ap_rec_cpu(struct ap_recorder *r, const void *data, size_t size);
int ap_cpu__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r);

#endif /* APERTURE_CPU_CODEC_H */
