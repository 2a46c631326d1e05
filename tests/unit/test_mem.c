// SPDX-License-Identifier: GPL-2.0
/*
 * The mem event without IBS hardware: perf ring records copied across the
 * ring's end, a raw IBS op payload decoded to load/store and data source,
 * the same payload in an AP_EV_MEM record as bpf/mem.bpf.c sends it (cut
 * after its frames) through the recorder, LOST counts, the period policy
 * (density, -c, doubling to a bound), the AP_TAG_MEM frame byte for byte,
 * and the mem view over a recorder fed with samples on this process's own
 * globals (attribution by ELF symbol) and over crafted frames (an exec
 * makes older samples unresolved).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "mem/codec.h"
#include "format/format.h"
#include "mem.h"
#include "record/perf_decode.h"
#include "format/reader.h"
#include "record/recorder.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

/* targets of the attribution test: two globals of known size */
char unit_hot_buffer[4 * 4096] __attribute__((aligned(4096)));
char unit_cold_buffer[4096] __attribute__((aligned(4096)));

/* a growing record made of little-endian fields */
struct rec {
	uint8_t b[4096];
	size_t n;
};

static void put64(struct rec *r, uint64_t v)
{
	ap_put_le64(r->b + r->n, v);
	r->n += 8;
}

static void put32(struct rec *r, uint32_t v)
{
	ap_put_le32(r->b + r->n, v);
	r->n += 4;
}

static void begin(struct rec *r, uint32_t type)
{
	memset(r, 0, sizeof(*r));
	put32(r, type);
	r->n += 4;		/* misc, size: set by finish */
}

static void finish(struct rec *r, uint16_t misc)
{
	ap_put_le16(r->b + 4, misc);
	ap_put_le16(r->b + 6, (uint16_t)r->n);
}

/* IbsOpData3 of a load that missed L1 and L2, served from DRAM, with a
 * valid linear address, 8 bytes wide, 300 cycles of latency */
#define D3_LOAD_DRAM	(AP_IBS_LD_OP | AP_IBS_DC_MISS | AP_IBS_L2_MISS | \
			 AP_IBS_DC_LIN_ADDR_VALID | (4ull << 22) | \
			 (300ull << 32))

/* raw IBS op payload: u32 caps, 7 registers, as the kernel lays it */
static void put_raw_ibs(struct rec *r, uint64_t data2, uint64_t data3,
			uint64_t lin)
{
	put32(r, 0x1ff);		/* caps */
	put64(r, 0x20000);		/* IbsOpCtl */
	put64(r, 0x401234);		/* IbsOpRip */
	put64(r, 0);			/* IbsOpData */
	put64(r, data2);
	put64(r, data3);
	put64(r, lin);			/* IbsDcLinAd */
	put64(r, 0x12345000);		/* IbsDcPhysAd */
}

static void decode_raw(uint64_t data2, uint64_t data3, uint64_t lin,
		       uint64_t addr, struct ap_ev_mem *e)
{
	struct ap_ibs_op op;
	struct rec r;

	memset(&r, 0, sizeof(r));
	put_raw_ibs(&r, data2, data3, lin);
	ck_assert_uint_eq(r.n, 4 + 7 * 8);
	ck_assert_int_eq(ap_ibs_op__parse(r.b, r.n, &op), 0);
	ck_assert_int_eq(op.nr_regs, 7);
	ck_assert_uint_eq(op.rip, 0x401234);
	ck_assert_uint_eq(op.dc_phys_addr, 0x12345000);
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	e->flags = addr ? AP_MEM_F_ADDR : 0;
	ap_ibs_op__decode(&op, e);
}

START_TEST(test_ibs_decode)
{
	struct ap_ev_mem e;
	struct ap_ibs_op op;
	union perf_mem_data_src d;

	/* load from local DRAM; the address came only in IbsDcLinAd */
	decode_raw(3, D3_LOAD_DRAM, 0x7f0000002010ull, 0, &e);
	ck_assert_uint_eq(e.access, AP_MEM_ACC_LOAD);
	ck_assert_uint_eq(e.addr, 0x7f0000002010ull);
	ck_assert(e.flags & AP_MEM_F_ADDR);
	ck_assert(e.flags & AP_MEM_F_DC_MISS);
	ck_assert(e.flags & AP_MEM_F_L2_MISS);
	ck_assert_uint_eq(e.latency, 300);
	ck_assert_uint_eq(e.width, 8);
	d.val = e.data_src;
	ck_assert_uint_eq(d.mem_op, PERF_MEM_OP_LOAD);
	ck_assert_uint_eq(d.mem_lvl_num, PERF_MEM_LVLNUM_RAM);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "RAM");

	/* the same from another node */
	decode_raw(3 | AP_IBS_RMT_NODE, D3_LOAD_DRAM, 0, 0x1000, &e);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "remote RAM");
	ck_assert_uint_eq(e.addr, 0x1000);	/* the sample's is kept */

	/* Zen 4 extended source 8 (hi bits 6..7 = 01): extension memory */
	decode_raw(0 | (1 << 6), D3_LOAD_DRAM, 0, 0x1000, &e);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "CXL");

	/* L1 hit; L3 (source 1); L2 hit (no source, no L2 miss) */
	decode_raw(0, AP_IBS_LD_OP, 0, 0x1000, &e);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "L1");
	ck_assert_uint_eq(e.latency, 0);
	decode_raw(1, AP_IBS_LD_OP | AP_IBS_DC_MISS, 0, 0x1000, &e);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "L3");
	decode_raw(0, AP_IBS_LD_OP | AP_IBS_DC_MISS, 0, 0x1000, &e);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "L2");

	/* a locked store with a TLB miss: no level, flags set */
	decode_raw(0, AP_IBS_ST_OP | AP_IBS_DC_LOCKED_OP |
		   AP_IBS_DC_L1TLB_MISS | AP_IBS_DC_L2TLB_MISS, 0, 0x1000, &e);
	ck_assert_uint_eq(e.access, AP_MEM_ACC_STORE);
	ck_assert(e.flags & AP_MEM_F_LOCKED);
	ck_assert(e.flags & AP_MEM_F_L2TLB_MISS);
	d.val = e.data_src;
	ck_assert_uint_eq(d.mem_op, PERF_MEM_OP_STORE);
	ck_assert_uint_eq(d.mem_lock, PERF_MEM_LOCK_LOCKED);
	ck_assert_uint_eq(d.mem_dtlb, PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS);
	ck_assert_str_eq(ap_mem_data_src__level(e.data_src), "-");

	/* not a memory op: no access, and an invalid address is not used */
	decode_raw(0, AP_IBS_DC_MISS, 0xdead, 0, &e);
	ck_assert_uint_eq(e.access, AP_MEM_ACC_UNKNOWN);
	ck_assert(!(e.flags & AP_MEM_F_ADDR));
	ck_assert_uint_eq(e.addr, 0);

	/* a raw payload too short for IbsOpData3 */
	ck_assert_int_eq(ap_ibs_op__parse((const uint8_t *)"abcd", 4, &op),
			 -EBADMSG);
	ck_assert_int_eq(ap_ibs_op__parse(NULL, 0, &op), -EBADMSG);
	ck_assert_str_eq(ap_mem_data_src__level(0), "-");
}
END_TEST

START_TEST(test_lost)
{
	uint64_t lost = 0;
	struct rec r;

	begin(&r, PERF_RECORD_LOST);
	put64(&r, 7);		/* id */
	put64(&r, 42);		/* lost */
	finish(&r, 0);
	ck_assert_int_eq(ap_perf_lost__parse(r.b, r.n, &lost), 0);
	ck_assert_uint_eq(lost, 42);
	ck_assert_int_eq(ap_perf_lost__parse(r.b, r.n - 1, &lost), -EBADMSG);

	begin(&r, PERF_RECORD_LOST_SAMPLES);
	put64(&r, 9);
	finish(&r, 0);
	ck_assert_int_eq(ap_perf_lost__parse(r.b, r.n, &lost), 0);
	ck_assert_uint_eq(lost, 9);

	begin(&r, PERF_RECORD_SAMPLE);
	put64(&r, 9);
	finish(&r, 0);
	ck_assert_int_eq(ap_perf_lost__parse(r.b, r.n, &lost), -EINVAL);
}
END_TEST

START_TEST(test_ring_read)
{
	uint8_t ring[64], out[64];
	uint64_t tail, head;
	struct rec r;
	int i;

	/* a 24-byte record written at offset 48: 16 bytes, then 8 at 0 */
	begin(&r, PERF_RECORD_LOST_SAMPLES);
	put64(&r, 0x1122334455667788ull);
	finish(&r, 0);
	memset(ring, 0xee, sizeof(ring));
	for (i = 0; i < (int)r.n; i++)
		ring[(48 + i) % 64] = r.b[i];
	tail = 64 * 3 + 48;		/* positions only grow */
	head = tail + r.n;
	ck_assert_int_eq(ap_perf_ring__read(ring, 64, &tail, head, out,
					    sizeof(out)), 16);
	ck_assert_int_eq(memcmp(out, r.b, 16), 0);
	ck_assert_uint_eq(tail, head);
	ck_assert_int_eq(ap_perf_ring__read(ring, 64, &tail, head, out,
					    sizeof(out)), 0);

	/* a header whose size runs past head: dropped, never misread */
	tail = 0;
	ap_put_le16(ring + 6, 40);
	ck_assert_int_eq(ap_perf_ring__read(ring, 64, &tail, 16, out,
					    sizeof(out)), -EBADMSG);
	ck_assert_uint_eq(tail, 16);
	/* a zero size would loop forever */
	tail = 0;
	ap_put_le16(ring + 6, 0);
	ck_assert_int_eq(ap_perf_ring__read(ring, 64, &tail, 16, out,
					    sizeof(out)), -EBADMSG);
}
END_TEST

START_TEST(test_period)
{
	uint64_t p;
	int n;

	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_PAGE_FAULT, 0, 0), 256);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_PAGE_FAULT, 1, 0), 64);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_PAGE_FAULT, 2, 0), 16);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_PAGE_FAULT, 1, 1), 1);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 0, 0), 0x80000);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 1, 0), 0x20000);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 2, 0), 0x8000);
	/* IBS: multiples of 16 within the hardware's range */
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 1, 100001), 100016);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 1, 1), 0x90);
	ck_assert_uint_eq(ap_mem_period(AP_MEM_SRC_IBS_OP, 1, 1ull << 40),
			  AP_IBS_MAX_PERIOD);

	/* doubling stops at the bound and stays there */
	p = 64;
	for (n = 0; n < 40; n++) {
		uint64_t next = ap_mem_period_after_loss(AP_MEM_SRC_PAGE_FAULT,
							 p);

		ck_assert(next == p * 2 || next == AP_FAULT_MAX_PERIOD ||
			  next == p);
		p = next;
	}
	ck_assert_uint_eq(p, AP_FAULT_MAX_PERIOD);
	ck_assert_uint_eq(ap_mem_period_after_loss(AP_MEM_SRC_IBS_OP, 0x90),
			  0x120);
	p = ap_mem_period_after_loss(AP_MEM_SRC_IBS_OP, 0x90000);
	ck_assert_uint_eq(p, AP_IBS_MAX_PERIOD);
	ck_assert_uint_eq(p % 16, 0);
	ck_assert_uint_eq(ap_mem_period_after_loss(AP_MEM_SRC_IBS_OP, p), p);
}
END_TEST

static void fill_event(struct ap_mem_event *e)
{
	memset(e, 0, sizeof(*e));
	e->ts = 0x0102030405060708ull;
	e->pid = 4242;
	e->tid = 4243;
	e->cpu = 3;
	e->kind = AP_MEM_KIND_SAMPLE;
	e->source = AP_MEM_SRC_IBS_OP;
	e->access = AP_MEM_ACC_STORE;
	e->ip = 0x401234;
	e->addr = 0x7ffd00001000ull;
	e->data_src = 0x1234;
	e->period = 0x20000;
	e->lost = 5;
	e->stack_id = 9;
	e->flags = AP_MEM_F_ADDR | AP_MEM_F_DC_MISS;
	e->latency = 300;
	e->width = 8;
}

START_TEST(test_frame)
{
	/* pinned: the first 44 bytes of the frame */
	static const uint8_t head[] = {
		4, 0, 0, 0, 88, 0, 0, 0,		/* tag, length */
		8, 7, 6, 5, 4, 3, 2, 1,			/* ts */
		0x92, 0x10, 0, 0, 0x93, 0x10, 0, 0,	/* pid, tid */
		3, 0, 0, 0, 0, 0, 0, 0,			/* cpu, kind */
		1, 0, 0, 0, 2, 0, 0, 0,			/* source, access */
		0x34, 0x12, 0x40, 0,			/* ip (low half) */
	};
	struct ap_mem_event e, d;
	struct ap_buf b;
	uint8_t *longer;

	fill_event(&e);
	ap_buf__init(&b);
	ap_mem_event__encode(&e, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, AP_FRAME_HDR_LEN + 88);
	ck_assert_int_eq(memcmp(b.data, head, sizeof(head)), 0);
	ck_assert_int_eq(ap_mem_event__decode(b.data + 8, b.len - 8, &d), 0);
	ck_assert_int_eq(memcmp(&e, &d, sizeof(e)), 0);
	/* shorter: refused; longer (a newer writer): accepted */
	ck_assert_int_eq(ap_mem_event__decode(b.data + 8, b.len - 9, &d),
			 -EBADMSG);
	longer = calloc(1, b.len + 16);
	memcpy(longer, b.data + 8, b.len - 8);
	ck_assert_int_eq(ap_mem_event__decode(longer, b.len - 8 + 16, &d), 0);
	ck_assert_uint_eq(d.width, 8);
	free(longer);
	ck_assert_str_eq(ap_tag__name(AP_TAG_MEM), "mem");
	ck_assert_str_eq(ap_mem_source__name(AP_MEM_SRC_PAGE_FAULT),
			 "page-fault");
	ap_buf__free(&b);
}
END_TEST

/* the mem view fed the way report feeds it */
struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	const struct ap_view_ops *ops;
	void *v;
	struct ap_report_opts o;
	struct ap_buf b;
};

static void quiet(void *ctx, const char *msg)
{
}

static int sink(void *ctx, const void *frames, size_t len)
{
	ap_buf__put(ctx, frames, len);
	return 0;
}

static void fx_init(struct fixture *fx, int format)
{
	struct ap_symbolizer_opts so = { .warn = quiet };

	memset(fx, 0, sizeof(*fx));
	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	fx->o.format = format;
	fx->ops = ap_view__find("mem");
	ck_assert_ptr_nonnull(fx->ops);
	fx->v = fx->ops->new(&fx->o, fx->s);
	ck_assert_ptr_nonnull(fx->v);
	ap_buf__init(&fx->b);
}

static void fx_feed(struct fixture *fx)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame f;

		f.tag = ap_get_le32(fx->b.data + off);
		f.len = ap_get_le32(fx->b.data + off + 4);
		f.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		if (ap_session__feed(fx->s, &f) == 1 && f.tag == AP_TAG_MEM)
			ck_assert_int_eq(fx->ops->event(fx->v, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
	ap_buf__reset(&fx->b);
}

static char *fx_print(struct fixture *fx)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_int_eq(fx->ops->print(fx->v, f), 0);
	fclose(f);
	return out;
}

static void fx_free(struct fixture *fx)
{
	fx->ops->free(fx->v);
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void deliver(struct ap_recorder *r, uint64_t addr, uint32_t access,
		    uint64_t period)
{
	struct ap_ev_mem *e = calloc(1, sizeof(*e));

	e->hdr.type = AP_EV_MEM;
	e->hdr.pid = getpid();
	e->hdr.tid = getpid();
	e->hdr.ts = now_ns();
	e->kind = AP_MEM_KIND_SAMPLE;
	e->source = AP_MEM_SRC_IBS_OP;
	e->access = access;
	e->ip = (uintptr_t)&deliver;
	e->addr = addr;
	e->flags = addr ? AP_MEM_F_ADDR : 0;
	e->period = period;
	strcpy(e->comm, "test_mem");
	ck_assert_int_eq(ap_recorder__event(r, e, sizeof(*e)), 0);
	free(e);
}

/* an IBS sample as bpf/mem.bpf.c sends it: raw registers, one user
 * frame, cut after it */
static size_t ibs_record(struct ap_ev_mem *e, uint64_t data3, uint64_t lin,
			 uint64_t kernel_src)
{
	struct rec r;

	memset(e, 0, sizeof(*e));
	e->hdr.type = AP_EV_MEM;
	e->hdr.pid = getpid();
	e->hdr.tid = getpid();
	e->hdr.cpu = 1;
	e->hdr.ts = now_ns();
	e->kind = AP_MEM_KIND_SAMPLE;
	e->source = AP_MEM_SRC_IBS_OP;
	e->ip = (uintptr_t)&ibs_record;
	e->period = 0x20000;
	e->data_src = kernel_src;
	strcpy(e->comm, "test_mem");
	memset(&r, 0, sizeof(r));
	put_raw_ibs(&r, 3, data3, lin);
	memcpy(e->raw, r.b, r.n);
	e->raw_size = r.n;
	e->st.ustack_sz = 8;
	e->st.ips[0] = (uintptr_t)&ibs_record;
	return offsetof(struct ap_ev_mem, st.ips) + 8;
}

/* the AP_TAG_MEM frames the recorder wrote into b, decoded */
static int mem_frames(struct ap_buf *b, struct ap_mem_event *out, int max)
{
	size_t off = 0;
	int n = 0;

	while (off + AP_FRAME_HDR_LEN <= b->len) {
		uint32_t tag = ap_get_le32(b->data + off);
		uint32_t len = ap_get_le32(b->data + off + 4);

		if (tag == AP_TAG_MEM && n < max)
			ck_assert_int_eq(ap_mem_event__decode(b->data + off +
					 AP_FRAME_HDR_LEN, len, &out[n++]), 0);
		off += AP_FRAME_HDR_LEN + len;
	}
	return n;
}

START_TEST(test_ibs_record)
{
	struct ap_ev_mem *e = calloc(1, sizeof(*e));
	uint64_t lin = (uintptr_t)&unit_cold_buffer[8];
	union perf_mem_data_src k = { .val = 0 }, d;
	struct ap_mem_event f[4];
	struct ap_recorder *r;
	struct ap_buf b;
	size_t size;

	ap_buf__init(&b);
	r = ap_recorder__new(sink, &b);
	ck_assert_ptr_nonnull(r);
	/* decoded from the raw registers: a load from DRAM at lin */
	size = ibs_record(e, D3_LOAD_DRAM, lin, 0);
	ck_assert_int_eq(ap_recorder__event(r, e, size), 0);
	/* the kernel's own data source wins: L3 */
	k.mem_op = PERF_MEM_OP_LOAD;
	k.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
	k.mem_lvl_num = PERF_MEM_LVLNUM_L3;
	size = ibs_record(e, D3_LOAD_DRAM, lin, k.val);
	ck_assert_int_eq(ap_recorder__event(r, e, size), 0);
	/* cut short of its frame: dropped, never misread */
	size = ibs_record(e, D3_LOAD_DRAM, lin, 0);
	ck_assert_int_eq(ap_recorder__event(r, e, size - 1), 0);
	/* a store with no valid address */
	size = ibs_record(e, AP_IBS_ST_OP, 0xdead, 0);
	ck_assert_int_eq(ap_recorder__event(r, e, size), 0);
	ck_assert_int_eq(ap_recorder__flush(r), 0);

	ck_assert_int_eq(mem_frames(&b, f, 4), 3);
	ck_assert_uint_eq(f[0].access, AP_MEM_ACC_LOAD);
	ck_assert_uint_eq(f[0].addr, lin);
	ck_assert(f[0].flags & AP_MEM_F_ADDR);
	ck_assert(f[0].flags & AP_MEM_F_DC_MISS);
	ck_assert_uint_eq(f[0].latency, 300);
	ck_assert_uint_eq(f[0].width, 8);
	ck_assert_uint_eq(f[0].period, 0x20000);
	ck_assert_uint_eq(f[0].cpu, 1);
	ck_assert_uint_ne(f[0].stack_id, 0);
	ck_assert_str_eq(ap_mem_data_src__level(f[0].data_src), "RAM");
	d.val = f[1].data_src;
	ck_assert_uint_eq(d.mem_lvl_num, PERF_MEM_LVLNUM_L3);
	ck_assert_uint_eq(f[1].latency, 300);
	ck_assert_uint_eq(f[2].access, AP_MEM_ACC_STORE);
	ck_assert(!(f[2].flags & AP_MEM_F_ADDR));
	ck_assert_uint_eq(f[2].addr, 0);
	ap_recorder__free(r);
	ap_buf__free(&b);
	free(e);
}
END_TEST

START_TEST(test_view_attribution)
{
	struct ap_recorder *r;
	struct fixture fx;
	struct ap_ev_mem lost;
	char *out, *hot, *cold;
	int i;

	fx_init(&fx, AP_FMT_JSON);
	r = ap_recorder__new(sink, &fx.b);
	ck_assert_ptr_nonnull(r);
	/* 12 stores to the hot buffer over two pages, 3 loads to the cold
	 * one, 1 sample without an address */
	for (i = 0; i < 12; i++)
		deliver(r, (uintptr_t)&unit_hot_buffer[(i % 2) * 4096 + i],
			AP_MEM_ACC_STORE, 16);
	for (i = 0; i < 3; i++)
		deliver(r, (uintptr_t)&unit_cold_buffer[i * 8], AP_MEM_ACC_LOAD,
			16);
	deliver(r, 0, AP_MEM_ACC_LOAD, 16);
	/* samples were lost: the period doubled */
	memset(&lost, 0, sizeof(lost));
	lost.hdr.type = AP_EV_MEM;
	lost.hdr.ts = now_ns();
	lost.kind = AP_MEM_KIND_PERIOD;
	lost.source = AP_MEM_SRC_IBS_OP;
	lost.period = 32;
	lost.lost = 77;
	ck_assert_int_eq(ap_recorder__event(r, &lost, sizeof(lost)), 0);
	deliver(r, (uintptr_t)&unit_hot_buffer[3 * 4096], AP_MEM_ACC_STORE,
		32);
	ck_assert_int_eq(ap_recorder__flush(r), 0);
	fx_feed(&fx);
	/* the losses are the BPF ring buffer's drops, counted there: the
	 * PERIOD record adds no drop frame of its own */
	ck_assert_uint_eq(ap_session__lost_tag(fx.s, AP_LOST_RINGBUF,
					       AP_TAG_MEM), 0);

	out = fx_print(&fx);
	ck_assert_ptr_nonnull(strstr(out, "\"samples\": 17, \"weight\": 288"));
	ck_assert_ptr_nonnull(strstr(out, "\"loads\": 64, \"stores\": 224"));
	ck_assert_ptr_nonnull(strstr(out,
		"\"period\": {\"initial\": 16, \"final\": 32, \"changes\": 1}, \"lost\": 77"));
	ck_assert_ptr_nonnull(strstr(out, "\"no data address\": 1"));
	/* by name, the hot one first: 12 * 16 + 32 of 288 */
	hot = strstr(out, "{\"object\": \"unit_hot_buffer\"");
	cold = strstr(out, "{\"object\": \"unit_cold_buffer\"");
	ck_assert_ptr_nonnull(hot);
	ck_assert_ptr_nonnull(cold);
	ck_assert(hot < cold);
	ck_assert_ptr_nonnull(strstr(hot, "\"samples\": 13, \"weight\": 224, \"percent\": 77.7778, \"loads\": 0, \"stores\": 224"));
	ck_assert_ptr_nonnull(strstr(cold, "\"samples\": 3, \"weight\": 48"));
	/* three distinct pages of the hot buffer, each as one page row */
	ck_assert_ptr_nonnull(strstr(out, "\"pages\": ["));
	free(out);

	/* folded: every sample's weight on its (ip-only) frame */
	fx.o.format = AP_FMT_FOLDED;
	out = fx_print(&fx);
	ck_assert_ptr_nonnull(strstr(out, "test_mem;"));
	ck_assert_ptr_nonnull(strstr(out, " 288\n"));
	free(out);
	ap_recorder__free(r);
	fx_free(&fx);
}
END_TEST

static void put_mem(struct ap_buf *b, uint64_t ts, uint64_t addr)
{
	struct ap_mem_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.pid = 10;
	e.tid = 10;
	e.source = AP_MEM_SRC_PAGE_FAULT;
	e.addr = addr;
	e.flags = AP_MEM_F_ADDR;
	e.period = 1;
	ap_mem_event__encode(&e, b);
}

START_TEST(test_view_exec_and_unmapped)
{
	struct ap_task t = { .ts = 100, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	struct fixture fx;
	char *out;

	fx_init(&fx, AP_FMT_TABLE);
	strcpy(t.comm, "prog");
	m->ts = 100;
	m->pid = 10;
	m->start = 0x600000;
	m->end = 0x700000;
	m->prot = 3;
	strcpy(m->path, "[heap]");
	ap_task__encode(&t, &fx.b);
	ap_mmap__encode(m, &fx.b);
	put_mem(&fx.b, 200, 0x600010);		/* heap */
	put_mem(&fx.b, 210, 0x900000);		/* nothing there */
	/* exec at 1000; its new image maps anonymous memory where the heap
	 * was; a sample from before the exec arrives after it */
	t.ts = 1000;
	t.kind = AP_TASK_EXECED;
	ap_task__encode(&t, &fx.b);
	m->ts = 1001;
	m->path[0] = '\0';
	ap_mmap__encode(m, &fx.b);
	put_mem(&fx.b, 900, 0x600020);		/* old image: unresolved */
	put_mem(&fx.b, 1100, 0x600030);		/* new image: anon */
	fx_feed(&fx);
	out = fx_print(&fx);
	ck_assert_ptr_nonnull(strstr(out, "# Memory accesses: 4 samples from page-fault"));
	ck_assert_ptr_nonnull(strstr(out, "no load/store split"));
	ck_assert_ptr_nonnull(strstr(out,
		"# unresolved: 2 samples (no mapping 1, image replaced by exec 1)"));
	ck_assert_ptr_nonnull(strstr(out, "[heap]"));
	ck_assert_ptr_nonnull(strstr(out, "[anon]"));
	free(out);
	free(m);
	fx_free(&fx);
}
END_TEST

static Suite *mem_suite(void)
{
	Suite *s = suite_create("mem");
	TCase *tc;

	tc = tcase_create("perf_decode");
	tcase_add_test(tc, test_ibs_decode);
	tcase_add_test(tc, test_lost);
	tcase_add_test(tc, test_ring_read);
	tcase_add_test(tc, test_period);
	suite_add_tcase(s, tc);
	tc = tcase_create("frame");
	tcase_add_test(tc, test_frame);
	tcase_add_test(tc, test_ibs_record);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_test(tc, test_view_attribution);
	tcase_add_test(tc, test_view_exec_and_unmapped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mem_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
