// SPDX-License-Identifier: GPL-2.0
#include "record/perf_decode.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/perf_event.h>

#include "format/buf.h"
#include "format/format.h"
#include "mem.h"

int ap_perf_ring__read(const uint8_t *data, uint64_t size, uint64_t *tail,
		       uint64_t head, void *buf, size_t buflen)
{
	uint64_t avail = head - *tail, off, first;
	uint8_t hdr[sizeof(struct perf_event_header)];
	uint16_t len;
	size_t i;

	if (!avail)
		return 0;
	if (avail < sizeof(hdr) || avail > size)
		goto bad;
	/* the header itself can straddle the end of the ring */
	for (i = 0; i < sizeof(hdr); i++)
		hdr[i] = data[(*tail + i) & (size - 1)];
	len = ap_get_le16(hdr + 6);
	if (len < sizeof(hdr) || len > avail || len > buflen)
		goto bad;
	off = *tail & (size - 1);
	first = size - off < len ? size - off : len;
	memcpy(buf, data + off, first);
	memcpy((uint8_t *)buf + first, data, len - first);
	*tail += len;
	return len;
bad:
	*tail = head;
	return -EBADMSG;
}

int ap_perf_lost__parse(const void *rec, size_t size, uint64_t *lost)
{
	const uint8_t *p = rec;
	uint32_t type;

	if (size < sizeof(struct perf_event_header))
		return -EBADMSG;
	type = ap_get_le32(p);
	p += sizeof(struct perf_event_header);
	size -= sizeof(struct perf_event_header);
	switch (type) {
	case PERF_RECORD_LOST:		/* u64 id, u64 lost */
		if (size < 16)
			return -EBADMSG;
		*lost = ap_get_le64(p + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:	/* u64 lost */
		if (size < 8)
			return -EBADMSG;
		*lost = ap_get_le64(p);
		return 0;
	}
	return -EINVAL;
}

int ap_ibs_op__parse(const uint8_t *raw, uint32_t size, struct ap_ibs_op *op)
{
	uint64_t regs[7] = { 0 };
	int i, n;

	memset(op, 0, sizeof(*op));
	if (!raw || size < 4 + 5 * 8)
		return -EBADMSG;
	op->caps = ap_get_le32(raw);
	n = (size - 4) / 8;
	op->nr_regs = n;
	for (i = 0; i < n && i < 7; i++)
		regs[i] = ap_get_le64(raw + 4 + 8 * i);
	op->ctl = regs[0];
	op->rip = regs[1];
	op->data = regs[2];
	op->data2 = regs[3];
	op->data3 = regs[4];
	op->dc_lin_addr = regs[5];
	op->dc_phys_addr = regs[6];
	return 0;
}

/* where a load that missed the L1 was served from, by IbsOpData2 */
static void miss_source(const struct ap_ibs_op *op, union perf_mem_data_src *d)
{
	int remote = !!(op->data2 & AP_IBS_RMT_NODE);

	d->mem_lvl = PERF_MEM_LVL_HIT;
	d->mem_remote = remote;
	switch (AP_IBS_DATA_SRC(op->data2)) {
	case 0:
		/* no source reported: an L2 hit unless the L2 missed too */
		if (op->data3 & AP_IBS_L2_MISS) {
			d->mem_lvl = PERF_MEM_LVL_NA;
			d->mem_lvl_num = PERF_MEM_LVLNUM_NA;
		} else {
			d->mem_lvl |= PERF_MEM_LVL_L2;
			d->mem_lvl_num = PERF_MEM_LVLNUM_L2;
		}
		break;
	case 1:		/* local L3 or another L1/L2 in the CCX */
		d->mem_lvl |= PERF_MEM_LVL_L3;
		d->mem_lvl_num = PERF_MEM_LVLNUM_L3;
		break;
	case 2:		/* another CCX's cache, same node */
	case 5:		/* another CCX's cache, another node */
		d->mem_lvl |= remote ? PERF_MEM_LVL_REM_CCE1 : PERF_MEM_LVL_L3;
		d->mem_lvl_num = PERF_MEM_LVLNUM_ANY_CACHE;
		d->mem_remote = remote || AP_IBS_DATA_SRC(op->data2) == 5;
		break;
	case 3:		/* DRAM */
	case 12:	/* peer agent memory */
		d->mem_lvl |= remote ? PERF_MEM_LVL_REM_RAM1 :
			      PERF_MEM_LVL_LOC_RAM;
		d->mem_lvl_num = PERF_MEM_LVLNUM_RAM;
		break;
	case 6:		/* long-latency DIMM */
		d->mem_lvl_num = PERF_MEM_LVLNUM_PMEM;
		break;
	case 7:		/* MMIO, config space, PCI, APIC */
		d->mem_lvl |= PERF_MEM_LVL_IO;
		d->mem_lvl_num = PERF_MEM_LVLNUM_IO;
		break;
	case 8:		/* extension memory */
		d->mem_lvl_num = PERF_MEM_LVLNUM_CXL;
		break;
	default:
		d->mem_lvl = PERF_MEM_LVL_NA;
		d->mem_lvl_num = PERF_MEM_LVLNUM_NA;
	}
}

void ap_ibs_op__decode(const struct ap_ibs_op *op, struct ap_ev_mem *e)
{
	union perf_mem_data_src d = { .val = 0 };
	uint64_t d3 = op->data3;

	d.mem_snoop = PERF_MEM_SNOOP_NA;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	d.mem_lock = (d3 & AP_IBS_DC_LOCKED_OP) ? PERF_MEM_LOCK_LOCKED :
		     PERF_MEM_LOCK_NA;
	d.mem_lvl = PERF_MEM_LVL_NA;
	d.mem_lvl_num = PERF_MEM_LVLNUM_NA;
	if (d3 & AP_IBS_LD_OP) {
		e->access = AP_MEM_ACC_LOAD;
		d.mem_op = PERF_MEM_OP_LOAD;
		if (d3 & AP_IBS_DC_MISS) {
			miss_source(op, &d);
		} else {
			d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
			d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		}
	} else if (d3 & AP_IBS_ST_OP) {
		/* IBS gives no data source for stores */
		e->access = AP_MEM_ACC_STORE;
		d.mem_op = PERF_MEM_OP_STORE;
	} else {
		/* not a memory op: a sample of the op stream nonetheless */
		e->access = AP_MEM_ACC_UNKNOWN;
		d.mem_op = PERF_MEM_OP_NA;
	}
	if (d3 & (AP_IBS_LD_OP | AP_IBS_ST_OP)) {
		d.mem_dtlb = (d3 & AP_IBS_DC_L2TLB_MISS) ?
			     PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS :
			     (d3 & AP_IBS_DC_L1TLB_MISS) ?
			     PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT :
			     PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	}
	e->flags |= (d3 & AP_IBS_DC_MISS ? AP_MEM_F_DC_MISS : 0) |
		    (d3 & AP_IBS_L2_MISS ? AP_MEM_F_L2_MISS : 0) |
		    (d3 & AP_IBS_DC_L1TLB_MISS ? AP_MEM_F_TLB_MISS : 0) |
		    (d3 & AP_IBS_DC_L2TLB_MISS ? AP_MEM_F_L2TLB_MISS : 0) |
		    (d3 & AP_IBS_DC_LOCKED_OP ? AP_MEM_F_LOCKED : 0);
	e->width = AP_IBS_OP_MEM_WIDTH(d3) ? 1u << (AP_IBS_OP_MEM_WIDTH(d3) - 1)
					   : 0;
	e->latency = (d3 & AP_IBS_DC_MISS) ? AP_IBS_DC_MISS_LAT(d3) : 0;
	e->data_src = d.val;
	if (!(e->flags & AP_MEM_F_ADDR) && op->nr_regs >= 6 &&
	    (d3 & AP_IBS_DC_LIN_ADDR_VALID)) {
		e->addr = op->dc_lin_addr;
		e->flags |= AP_MEM_F_ADDR;
	}
}

const char *ap_mem_data_src__level(uint64_t data_src)
{
	static const char *const lvlnum[16] = {
		[PERF_MEM_LVLNUM_L1] = "L1",
		[PERF_MEM_LVLNUM_L2] = "L2",
		[PERF_MEM_LVLNUM_L3] = "L3",
		[PERF_MEM_LVLNUM_L4] = "L4",
		[PERF_MEM_LVLNUM_CXL] = "CXL",
		[PERF_MEM_LVLNUM_IO] = "I/O",
		[PERF_MEM_LVLNUM_ANY_CACHE] = "peer cache",
		[PERF_MEM_LVLNUM_LFB] = "LFB",
		[PERF_MEM_LVLNUM_RAM] = "RAM",
		[PERF_MEM_LVLNUM_PMEM] = "PMEM",
	};
	static const char *const remote[16] = {
		[PERF_MEM_LVLNUM_ANY_CACHE] = "remote cache",
		[PERF_MEM_LVLNUM_RAM] = "remote RAM",
		[PERF_MEM_LVLNUM_PMEM] = "remote PMEM",
		[PERF_MEM_LVLNUM_CXL] = "remote CXL",
	};
	union perf_mem_data_src d = { .val = data_src };

	if (!data_src)
		return "-";
	if (d.mem_lvl_num && d.mem_lvl_num != PERF_MEM_LVLNUM_NA) {
		if (d.mem_remote && remote[d.mem_lvl_num])
			return remote[d.mem_lvl_num];
		if (lvlnum[d.mem_lvl_num])
			return lvlnum[d.mem_lvl_num];
	}
	/* the older encoding, from kernels or CPUs without mem_lvl_num */
	if (d.mem_lvl & PERF_MEM_LVL_L1)
		return "L1";
	if (d.mem_lvl & PERF_MEM_LVL_L2)
		return "L2";
	if (d.mem_lvl & PERF_MEM_LVL_L3)
		return "L3";
	if (d.mem_lvl & PERF_MEM_LVL_LFB)
		return "LFB";
	if (d.mem_lvl & PERF_MEM_LVL_LOC_RAM)
		return "RAM";
	if (d.mem_lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		return "remote RAM";
	if (d.mem_lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return "remote cache";
	if (d.mem_lvl & PERF_MEM_LVL_IO)
		return "I/O";
	if (d.mem_lvl & PERF_MEM_LVL_UNC)
		return "uncached";
	return "-";
}

static uint64_t ibs_round(uint64_t p)
{
	p = (p + 15) & ~15ull;
	if (p < AP_IBS_MIN_PERIOD)
		p = AP_IBS_MIN_PERIOD;
	if (p > AP_IBS_MAX_PERIOD)
		p = AP_IBS_MAX_PERIOD;
	return p;
}

uint64_t ap_mem_period(uint32_t source, int density, uint64_t user)
{
	/* low, default, high: IBS in dispatched ops, faults in faults */
	static const uint64_t ibs[3] = { 0x80000, 0x20000, 0x8000 };
	static const uint64_t fault[3] = { 256, 64, 16 };

	if (density < 0 || density > 2)
		density = 1;
	if (source == AP_MEM_SRC_IBS_OP)
		return ibs_round(user ? user : ibs[density]);
	if (user)
		return user > AP_FAULT_MAX_PERIOD ? AP_FAULT_MAX_PERIOD : user;
	return fault[density];
}

uint64_t ap_mem_period_max(uint32_t source)
{
	return source == AP_MEM_SRC_PAGE_FAULT ? AP_FAULT_MAX_PERIOD :
						 AP_IBS_MAX_PERIOD;
}

uint64_t ap_mem_period_after_loss(uint32_t source, uint64_t period)
{
	uint64_t max = source == AP_MEM_SRC_IBS_OP ? AP_IBS_MAX_PERIOD :
		       AP_FAULT_MAX_PERIOD;

	if (period >= max)
		return period;
	period = period * 2 > max ? max : period * 2;
	return source == AP_MEM_SRC_IBS_OP ? ibs_round(period) : period;
}

/* the sample_id trailer of TID | TIME: u32 pid, u32 tid, u64 time */
#define SB_ID_LEN	16

int ap_perf_sb__parse(const void *rec, size_t size, struct ap_perf_sb *sb,
		      struct ap_mmap *m)
{
	const uint8_t *p = rec;
	struct perf_event_header hdr;
	struct ap_cur c;
	const uint8_t *name;
	size_t body, n;

	memset(sb, 0, sizeof(*sb));
	if (size < sizeof(hdr) + SB_ID_LEN)
		return -EBADMSG;
	hdr.type = ap_get_le32(p);
	hdr.misc = ap_get_le16(p + 4);
	hdr.size = ap_get_le16(p + 6);
	if (hdr.size != size)
		return -EBADMSG;
	sb->time = ap_get_le64(p + size - 8);
	body = size - sizeof(hdr) - SB_ID_LEN;
	ap_cur__init(&c, p + sizeof(hdr), body);
	switch (hdr.type) {
	case PERF_RECORD_MMAP2:
		sb->kind = AP_PERF_SB_MMAP;
		sb->pid = ap_cur__u32(&c);
		sb->tid = ap_cur__u32(&c);
		memset(m, 0, sizeof(*m) - sizeof(m->path));
		m->pid = sb->pid;
		m->ts = sb->time;
		m->start = ap_cur__u64(&c);
		m->end = m->start + ap_cur__u64(&c);
		m->pgoff = ap_cur__u64(&c);
		/*
		 * Device and inode, whatever misc says: aperture never asks
		 * for build-ids (kmaps.c), and while another program's event
		 * does, the kernel leaves PERF_RECORD_MISC_MMAP_BUILD_ID set
		 * on records of events that did not ask, with the device
		 * and inode in the place of a build-id (perf 6.1 read them
		 * as one and aborted)
		 */
		ap_cur__u32(&c);		/* maj */
		ap_cur__u32(&c);		/* min */
		m->inode = ap_cur__u64(&c);
		ap_cur__u64(&c);		/* ino_generation */
		m->prot = ap_cur__u32(&c);
		ap_cur__u32(&c);		/* flags */
		n = ap_cur__left(&c);
		name = ap_cur__bytes(&c, n);
		if (c.err || m->end < m->start || !name)
			return -EBADMSG;
		n = strnlen((const char *)name, n);
		if (n >= sizeof(m->path))
			n = sizeof(m->path) - 1;
		memcpy(m->path, name, n);
		m->path[n] = '\0';
		/* /proc/PID/maps shows anonymous memory without a name */
		if (!strcmp(m->path, "//anon"))
			m->path[0] = '\0';
		return 0;
	case PERF_RECORD_COMM:
		sb->pid = ap_cur__u32(&c);
		sb->tid = ap_cur__u32(&c);
		n = ap_cur__left(&c);
		name = ap_cur__bytes(&c, n);
		if (c.err || !name)
			return -EBADMSG;
		if (!(hdr.misc & PERF_RECORD_MISC_COMM_EXEC))
			return -ENOENT;
		sb->kind = AP_PERF_SB_EXEC;
		n = strnlen((const char *)name, n);
		if (n >= sizeof(sb->comm))
			n = sizeof(sb->comm) - 1;
		memcpy(sb->comm, name, n);
		return 0;
	case PERF_RECORD_FORK:
		sb->pid = ap_cur__u32(&c);
		sb->ppid = ap_cur__u32(&c);
		sb->tid = ap_cur__u32(&c);
		ap_cur__u32(&c);		/* ptid */
		if (c.err)
			return -EBADMSG;
		/* a new thread of a known process changes no mapping */
		if (sb->pid == sb->ppid)
			return -ENOENT;
		sb->kind = AP_PERF_SB_FORK;
		return 0;
	default:
		return -ENOENT;
	}
}
