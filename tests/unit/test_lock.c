// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention: the AP_TAG_LOCK frame's bytes, round trip, short and
 * long payloads; LCB_F_* and futex op names; kallsyms data symbols; data
 * symbols of a real ELF file (this test's own globals) and uprobe
 * offsets; the lock view's aggregation in table, JSON and folded form.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/datasym.h"
#include "lock/codec.h"
#include "format/format.h"
#include "record/procfs.h"
#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

/* a global the data symbolizer must name; big enough to hold offsets */
int test_lock_var[16] = { 1 };
/* in .bss */
long test_lock_bss[64];

static void fill(struct ap_lock_event *e)
{
	memset(e, 0, sizeof(*e));
	e->ts = 0x0102030405060708ull;
	e->pid = 4242;
	e->tid = 4243;
	e->lock_addr = 0x7f0011223344ull;
	e->hold_ns = 20000000;
	e->wait_ns = 0x1122334455ull;
	e->stack_id = 99;
	e->kind = AP_LOCK_PTHREAD;
	e->flags = AP_LOCK_F_TRYLOCK;
	e->result = -110;
	e->cpu = 3;
	strcpy(e->sym, "rtnl_mutex");
}

START_TEST(test_layout)
{
	struct ap_lock_event e;
	struct ap_buf b;
	const uint8_t *p;

	fill(&e);
	ap_buf__init(&b);
	ap_lock_event__encode(&e, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, 8 + 62 + 10);
	p = b.data;
	ck_assert_uint_eq(ap_get_le32(p), 1);		/* AP_TAG_LOCK */
	ck_assert_uint_eq(ap_get_le32(p + 4), 72);	/* payload length */
	p += 8;
	ck_assert_uint_eq(ap_get_le64(p + 0), e.ts);
	ck_assert_uint_eq(ap_get_le32(p + 8), 4242);
	ck_assert_uint_eq(ap_get_le32(p + 12), 4243);
	ck_assert_uint_eq(ap_get_le64(p + 16), e.lock_addr);
	ck_assert_uint_eq(ap_get_le64(p + 24), 20000000);
	ck_assert_uint_eq(ap_get_le64(p + 32), e.wait_ns);
	ck_assert_uint_eq(ap_get_le32(p + 40), 99);
	ck_assert_uint_eq(ap_get_le32(p + 44), AP_LOCK_PTHREAD);
	ck_assert_uint_eq(ap_get_le32(p + 48), AP_LOCK_F_TRYLOCK);
	ck_assert_int_eq((int32_t)ap_get_le32(p + 52), -110);
	ck_assert_uint_eq(ap_get_le32(p + 56), 3);
	ck_assert_uint_eq(ap_get_le16(p + 60), 10);
	ck_assert_int_eq(memcmp(p + 62, "rtnl_mutex", 10), 0);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct ap_lock_event e, d;
	struct ap_buf b;
	uint8_t *longer;

	fill(&e);
	ap_buf__init(&b);
	ap_lock_event__encode(&e, &b);
	ck_assert_int_eq(ap_lock_event__decode(b.data + 8, b.len - 8, &d), 0);
	ck_assert_int_eq(memcmp(&e, &d, sizeof(e)), 0);
	/* every cut short is refused */
	for (size_t n = 0; n < b.len - 8; n++)
		ck_assert_int_eq(ap_lock_event__decode(b.data + 8, n, &d),
				 -EBADMSG);
	/* fields appended by a newer writer are skipped */
	longer = calloc(1, b.len - 8 + 16);
	memcpy(longer, b.data + 8, b.len - 8);
	ck_assert_int_eq(ap_lock_event__decode(longer, b.len - 8 + 16, &d), 0);
	ck_assert_str_eq(d.sym, "rtnl_mutex");
	ck_assert_uint_eq(d.wait_ns, e.wait_ns);
	free(longer);
	ap_buf__free(&b);
}
END_TEST

static const struct {
	uint32_t flags;
	const char *name;
} types[] = {
	{ AP_LCB_F_SPIN, "spinlock" },
	{ AP_LCB_F_SPIN | AP_LCB_F_READ, "rwlock:R" },
	{ AP_LCB_F_SPIN | AP_LCB_F_WRITE, "rwlock:W" },
	{ AP_LCB_F_READ, "rwsem:R" },
	{ AP_LCB_F_WRITE, "rwsem:W" },
	{ AP_LCB_F_RT, "rtmutex" },
	{ AP_LCB_F_RT | AP_LCB_F_WRITE, "rwlock-rt:W" },
	{ AP_LCB_F_PERCPU | AP_LCB_F_READ, "pcpu-sem:R" },
	{ AP_LCB_F_PERCPU | AP_LCB_F_WRITE, "pcpu-sem:W" },
	{ AP_LCB_F_MUTEX, "mutex" },
	{ AP_LCB_F_MUTEX | AP_LCB_F_SPIN, "mutex" },
	/* an rwsem that spun on its owner before sleeping */
	{ AP_LCB_F_WRITE | AP_LCB_F_SPIN | AP_LCB_F_PERCPU, "rwsem:W" },
	{ 0, "unknown" },
	{ AP_LCB_F_PERCPU, "unknown" },
};

START_TEST(test_kernel_type)
{
	ck_assert_str_eq(ap_lock__kernel_type(types[_i].flags), types[_i].name);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(ap_lock__kind_name(AP_LOCK_FUTEX), "futex");
	ck_assert_str_eq(ap_lock__kind_name(AP_LOCK_KERNEL), "kernel");
	ck_assert_str_eq(ap_lock__kind_name(AP_LOCK_PTHREAD), "pthread");
	ck_assert_str_eq(ap_lock__kind_name(77), "?");
	ck_assert_str_eq(ap_lock__futex_op(0 | 128), "wait");
	ck_assert_str_eq(ap_lock__futex_op(9 | 128 | 256), "wait_bitset");
	ck_assert_str_eq(ap_lock__futex_op(6), "lock_pi");
	ck_assert_str_eq(ap_lock__futex_op(1), "other");
}
END_TEST

START_TEST(test_kdata)
{
	char path[] = "/tmp/aperture-kallsyms.XXXXXX";
	const struct ap_kallsym *k;
	struct ap_kallsyms *ks;
	FILE *f;
	int fd, err;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff82000000 D tasklist_lock\n"
	      "ffffffff82000040 d some_static\n"
	      "ffffffff83000000 b rtnl_mutex\n"
	      "ffffffff83000100 B jiffies_lock\n"
	      "ffffffffc0001000 b mod_lock\t[mymod]\n"
	      "0000000000000000 b hidden\n", f);
	fclose(f);
	ks = ap_lock__kdata_load(path, &err);
	unlink(path);
	ck_assert_ptr_nonnull(ks);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(ap_kallsyms__count(ks), 5);	/* no text, no zero */
	k = ap_kallsyms__find(ks, 0xffffffff83000000ull);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "rtnl_mutex");
	k = ap_kallsyms__find(ks, 0xffffffff82000008ull);
	ck_assert_str_eq(k->name, "tasklist_lock");
	k = ap_kallsyms__find(ks, 0xffffffffc0001010ull);
	ck_assert_str_eq(k->name, "mod_lock");
	ck_assert_str_eq(k->module, "mymod");
	ck_assert_ptr_null(ap_kallsyms__find(ks, 0xffffffff81000010ull));
	ap_kallsyms__free(ks);
	ck_assert_ptr_null(ap_lock__kdata_load("/nonexistent", &err));
	ck_assert_int_eq(err, -ENOENT);
}
END_TEST

/* a lock no symbol is known to contain is named by its address (""):
 * a sparse table (no CONFIG_KALLSYMS_ALL) names exact addresses only,
 * section markers never name an offset */
START_TEST(test_kernel_lock_name_unknown_is_address)
{
	struct ap_kallsyms *ks = ap_kallsyms__new();
	struct ap_ksym k = { 0 };
	char buf[128];
	int i;

	k.addr = 0xffffffff83000000ull;
	snprintf(k.name, sizeof(k.name), "__start_init_stack");
	ck_assert_int_eq(ap_kallsyms__add(ks, &k), 0);
	k.addr = 0xffffffff84000000ull;
	snprintf(k.name, sizeof(k.name), "jiffies_lock");
	ck_assert_int_eq(ap_kallsyms__add(ks, &k), 0);

	ap_lock__kernel_name(ks, 0xffffffff83008080ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");		/* was __start_init_stack+0x8080 */
	ap_lock__kernel_name(ks, 0xffffffff84000000ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "jiffies_lock");
	ap_lock__kernel_name(ks, 0xffffffff84000040ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");		/* sparse: size unknown */

	/* a dense table: objects bound each other, offsets are believed */
	for (i = 0; i < 1000; i++) {
		k.addr = 0xffffffff85000000ull + i * 0x1000ull;
		snprintf(k.name, sizeof(k.name), "obj%d", i);
		ck_assert_int_eq(ap_kallsyms__add(ks, &k), 0);
	}
	ap_lock__kernel_name(ks, 0xffffffff85000040ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "obj0+0x40");
	ap_lock__kernel_name(ks, 0xffffffff83008080ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");		/* a marker still */
	ap_lock__kernel_name(ks, 0xffffffff80000000ull, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");		/* below every symbol */
	ap_kallsyms__free(ks);
}
END_TEST

/* the mapping of this process covering addr, from /proc/self/maps */
struct find_ctx {
	uint64_t addr;
	struct ap_mmap m, prev;
	int found;
};

static int on_map(void *ctx, const struct ap_mmap *m)
{
	struct find_ctx *fc = ctx;

	if (!fc->found && fc->addr >= m->start && fc->addr < m->end) {
		fc->m = *m;
		fc->found = 1;
	}
	if (!fc->found)
		fc->prev = *m;
	return 0;
}

static void self_mapping(uint64_t addr, struct ap_mmap *out)
{
	struct find_ctx *fc = calloc(1, sizeof(*fc));

	fc->addr = addr;
	ck_assert_int_eq(ap_proc_maps(getpid(), 0, on_map, fc), 0);
	ck_assert(fc->found);
	/* a .bss past the file's last page: the file mapping before it */
	*out = fc->m.path[0] ? fc->m : fc->prev;
	free(fc);
}

START_TEST(test_datasym_self)
{
	struct ap_datasym *d = ap_datasym__new(NULL);
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t off = 99;
	char name[64];

	self_mapping((uintptr_t)&test_lock_var[3], m);
	ck_assert_int_eq(ap_datasym__lookup(d, m, (uintptr_t)&test_lock_var[3],
					    name, sizeof(name), &off), 0);
	ck_assert_str_eq(name, "test_lock_var");
	ck_assert_uint_eq(off, 3 * sizeof(int));
	/* cached: a second lookup gives the same */
	ck_assert_int_eq(ap_datasym__lookup(d, m, (uintptr_t)&test_lock_var[0],
					    name, sizeof(name), &off), 0);
	ck_assert_uint_eq(off, 0);

	self_mapping((uintptr_t)&test_lock_bss[10], m);
	ck_assert_int_eq(ap_datasym__lookup(d, m, (uintptr_t)&test_lock_bss[10],
					    name, sizeof(name), &off), 0);
	ck_assert_str_eq(name, "test_lock_bss");
	ck_assert_uint_eq(off, 10 * sizeof(long));

	/* a heap address is no variable */
	ck_assert_int_eq(ap_datasym__lookup(d, m, (uintptr_t)m, name,
					    sizeof(name), &off), -ENOENT);
	/* the file is not the one mapped */
	m->inode += 1;
	ck_assert_int_eq(ap_datasym__lookup(d, m, (uintptr_t)&test_lock_var[0],
					    name, sizeof(name), &off), -ESTALE);
	free(m);
	ap_datasym__free(d);
}
END_TEST

START_TEST(test_region)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));

	ck_assert_str_eq(ap_datasym__region(NULL), "unmapped");
	ck_assert_str_eq(ap_datasym__region(m), "anon");
	strcpy(m->path, "[heap]");
	ck_assert_str_eq(ap_datasym__region(m), "heap");
	strcpy(m->path, "[stack]");
	ck_assert_str_eq(ap_datasym__region(m), "stack");
	strcpy(m->path, "/usr/lib/libfoo.so.1");
	ck_assert_str_eq(ap_datasym__region(m), "libfoo.so.1");
	free(m);
}
END_TEST

/* the uprobe offset of a function of this binary is where it is mapped */
START_TEST(test_func_offset)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t addr = (uintptr_t)&ap_lock_event__encode, off = 0;

	self_mapping(addr, m);
	ck_assert_int_eq(ap_elf_func_offset(m->path, "ap_lock_event__encode",
					    &off), 0);
	ck_assert_uint_eq(off, addr - m->start + m->pgoff);
	ck_assert_int_eq(ap_elf_func_offset(m->path, "no_such_function_xyz",
					    &off), -ENOENT);
	ck_assert_int_eq(ap_elf_func_offset("/nonexistent", "main", &off),
			 -ENOENT);
	free(m);
}
END_TEST

/* the view over a session: one process (pid 10) whose mapping of this
 * test binary holds test_lock_var, kernel locks, an anonymous lock */
struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_buf b;
};

static void quiet(void *ctx, const char *msg)
{
}

static void feed_all(struct fixture *fx, const struct ap_view_ops *ops,
		     void *v)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame f;

		f.tag = ap_get_le32(fx->b.data + off);
		f.len = ap_get_le32(fx->b.data + off + 4);
		f.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		if (ap_session__feed(fx->s, &f) == 1 && ops &&
		    f.tag == ops->tag)
			ck_assert_int_eq(ops->event(v, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
}

static void add_lock(struct ap_buf *b, uint32_t kind, uint32_t tid,
		     uint64_t addr, uint64_t wait, uint64_t hold,
		     uint32_t stack, uint32_t flags, const char *sym)
{
	struct ap_lock_event e;

	memset(&e, 0, sizeof(e));
	e.ts = 100;
	e.pid = 10;
	e.tid = tid;
	e.kind = kind;
	e.lock_addr = addr;
	e.wait_ns = wait;
	e.hold_ns = hold;
	e.stack_id = stack;
	e.flags = flags;
	snprintf(e.sym, sizeof(e.sym), "%s", sym ? sym : "");
	ap_lock_event__encode(&e, b);
}

static void setup_fixture(struct fixture *fx)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5 };
	struct ap_comm c1 = { .ts = 1, .pid = 10, .tid = 10 };
	struct ap_comm c2 = { .ts = 1, .pid = 10, .tid = 11 };
	struct ap_ksym k1 = { .addr = 0xffffffff81000000ull, .size = 0x100 };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	struct ap_mmap *anon = calloc(1, sizeof(*anon));
	uint64_t st1[] = { 0xffffffff81000010ull };
	struct ap_stack s1 = { .id = 1, .nr_kernel = 1, .ips = st1 };
	uint64_t var = (uintptr_t)&test_lock_var[0];

	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ap_buf__init(&fx->b);
	strcpy(t.comm, "prog");
	strcpy(c1.comm, "prog");
	strcpy(c2.comm, "worker");
	strcpy(k1.name, "rwsem_down_write_slowpath");
	self_mapping(var, m);
	m->pid = 10;
	anon->pid = 10;
	anon->start = 0x10000000;
	anon->end = 0x10010000;
	anon->prot = 3;
	ap_task__encode(&t, &fx->b);
	ap_comm__encode(&c1, &fx->b);
	ap_comm__encode(&c2, &fx->b);
	ap_ksym__encode(&k1, &fx->b);
	ap_mmap__encode(m, &fx->b);
	ap_mmap__encode(anon, &fx->b);
	ap_stack__encode(&s1, &fx->b);
	/* test_lock_var: futex waits 30 + 50 ms (tid 10) and 20 ms (11) */
	add_lock(&fx->b, AP_LOCK_FUTEX, 10, var, 30000000, 0, 0, 128, NULL);
	add_lock(&fx->b, AP_LOCK_FUTEX, 10, var, 50000000, 0, 0, 128, NULL);
	add_lock(&fx->b, AP_LOCK_FUTEX, 11, var, 20000000, 0, 0, 128, NULL);
	/* the same mutex through pthread: waits and holds */
	add_lock(&fx->b, AP_LOCK_PTHREAD, 10, var, 10000000, 4000000, 0, 0,
		 NULL);
	add_lock(&fx->b, AP_LOCK_PTHREAD, 11, var, 2000000, 6000000, 0, 0,
		 NULL);
	/* a kernel rwsem, 40 ms, with a kernel stack */
	add_lock(&fx->b, AP_LOCK_KERNEL, 11, 0xffff888812345678ull, 40000000,
		 0, 1, AP_LCB_F_WRITE, "mmap_lock");
	/* an anonymous lock, 1 ms */
	add_lock(&fx->b, AP_LOCK_FUTEX, 11, 0x10000040, 1000000, 0, 0, 0,
		 NULL);
	free(m);
	free(anon);
}

static void teardown_fixture(struct fixture *fx)
{
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

/* the fixture's futex waits have no stack and a plain FUTEX_WAIT: class
 * "other", which only --lock-class all shows */
#define ALL_CLASSES	((1u << AP_LOCK_NR_CLS) - 1)

static char *render(struct fixture *fx, struct ap_report_opts *o)
{
	const struct ap_view_ops *ops = ap_view__find("lock");
	char *out = NULL;
	size_t len;
	FILE *f;
	void *v;

	ck_assert_ptr_nonnull(ops);
	v = ops->new(o, fx->s);
	ck_assert_ptr_nonnull(v);
	feed_all(fx, ops, v);
	f = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, f), 0);
	fclose(f);
	ops->free(v);
	return out;
}

START_TEST(test_view_table)
{
	struct ap_report_opts o = { .format = AP_FMT_TABLE,
				    .lock_classes = ALL_CLASSES };
	struct fixture fx;
	char *out, *l1, *l2, *l3;

	setup_fixture(&fx);
	out = render(&fx, &o);
	/* 7 waits, 153 ms */
	ck_assert_ptr_nonnull(strstr(out, "7 waits, 153.00 ms total wait (futex 4, kernel 1, pthread 2)"));
	/* rows by total wait: futex test_lock_var (100 ms), the kernel
	 * mmap_lock (40), pthread test_lock_var (12), the anon lock (1) */
	l1 = strstr(out, "100.00 ms");
	l2 = strstr(out, "mmap_lock");
	l3 = strstr(out, "12.00 ms");
	ck_assert_ptr_nonnull(l1);
	ck_assert_ptr_nonnull(l2);
	ck_assert_ptr_nonnull(l3);
	ck_assert(l1 < l2 && l2 < l3);
	ck_assert_ptr_nonnull(strstr(l1, "50.00 ms"));	/* max */
	ck_assert_ptr_nonnull(strstr(l1, "33.33 ms"));	/* avg */
	ck_assert_ptr_nonnull(strstr(l1, "test_lock_var"));
	ck_assert_ptr_nonnull(strstr(out, "rwsem:W"));
	/* the pthread row: avg hold 5 ms */
	ck_assert_ptr_nonnull(strstr(l3, "5.00 ms  pthread"));
	/* the anon lock: address and region */
	ck_assert_ptr_nonnull(strstr(out, "0x10000040 [anon]"));
	/* the kernel stack of the kernel lock, 100% of its wait */
	ck_assert_ptr_nonnull(strstr(out, "100.00%  worker: rwsem_down_write_slowpath [k]"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/* the wait of kind at ts (ns, its end), tid 12, test_lock_var unless
 * a kernel lock */
static void add_wait_at(struct ap_buf *b, uint32_t kind, uint64_t end_ms,
			uint64_t wait_ms)
{
	struct ap_lock_event e;

	memset(&e, 0, sizeof(e));
	e.ts = end_ms * 1000000;
	e.pid = 10;
	e.tid = 12;
	e.kind = kind;
	e.lock_addr = kind == AP_LOCK_KERNEL ? 0xffff888812345678ull :
		      (uintptr_t)&test_lock_var[0];
	e.wait_ns = wait_ms * 1000000;
	e.flags = kind == AP_LOCK_KERNEL ? AP_LCB_F_WRITE : 0;
	ap_lock_event__encode(&e, b);
}

/* thread 12: a futex wait of 2 ms before, then a pthread wait [990,
 * 1000] ms with two futex sleeps in it, [991, 994] and [995, 999], the
 * second with 1 ms of kernel lock contention inside: the totals count
 * 12 ms in 2 waits for it, the rows every wait; the same after a decay
 * that keeps everything */
START_TEST(test_view_nested_once)
{
	struct ap_report_opts o = { .format = AP_FMT_TABLE,
				    .lock_classes = ALL_CLASSES };
	const struct ap_view_ops *ops = ap_view__find("lock");
	struct fixture fx;
	char *out = NULL;
	size_t len;
	FILE *f;
	void *v;
	int round;

	setup_fixture(&fx);
	add_wait_at(&fx.b, AP_LOCK_FUTEX, 980, 2);
	add_wait_at(&fx.b, AP_LOCK_FUTEX, 994, 3);
	add_wait_at(&fx.b, AP_LOCK_KERNEL, 998, 1);
	add_wait_at(&fx.b, AP_LOCK_FUTEX, 999, 4);
	add_wait_at(&fx.b, AP_LOCK_PTHREAD, 1000, 10);
	v = ops->new(&o, fx.s);
	ck_assert_ptr_nonnull(v);
	feed_all(&fx, ops, v);
	for (round = 0; round < 2; round++) {
		if (round)
			ops->decay(v, 1, 1);
		f = open_memstream(&out, &len);
		ck_assert_int_eq(ops->print(v, f), 0);
		fclose(f);
		/* the fixture's 7 waits, 153 ms, and thread 12's 2, 12 ms */
		ck_assert_msg(strstr(out, "# Lock contention: 9 waits, 165.00 ms total wait (futex 5, kernel 1, pthread 3; 3 waits inside these not counted again)\n"),
			      "%s", out);
		/* the rows keep every wait: 100 + 9 ms of futex */
		ck_assert_msg(strstr(out, "109.00 ms"), "%s", out);
		free(out);
		out = NULL;
	}
	ops->free(v);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_per_thread)
{
	struct ap_report_opts o = { .format = AP_FMT_TABLE, .per_thread = 1,
				    .lock_classes = ALL_CLASSES };
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	out = render(&fx, &o);
	/* tid 10 waited 80 ms on the futex, tid 11 20 ms */
	ck_assert_ptr_nonnull(strstr(out, "80.00 ms"));
	ck_assert_ptr_nonnull(strstr(out, "20.00 ms"));
	ck_assert_ptr_null(strstr(out, "100.00 ms"));
	ck_assert_ptr_nonnull(strstr(out, "worker"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_json)
{
	struct ap_report_opts o = { .format = AP_FMT_JSON, .limit = 2,
				    .lock_classes = ALL_CLASSES };
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "{\"contentions\": 7, \"total_wait_ns\": 153000000"));
	ck_assert_ptr_nonnull(strstr(out, "\"name\": \"test_lock_var\", \"kind\": \"futex\""));
	ck_assert_ptr_nonnull(strstr(out, "\"contentions\": 3, \"total_wait_ns\": 100000000, \"max_wait_ns\": 50000000"));
	ck_assert_ptr_nonnull(strstr(out, "\"avg_hold_ns\": null"));
	ck_assert_ptr_nonnull(strstr(out, "\"name\": \"mmap_lock\", \"kind\": \"kernel\", \"type\": \"rwsem:W\""));
	ck_assert_ptr_nonnull(strstr(out, "\"frames\": [\"rwsem_down_write_slowpath\"]"));
	/* --limit 2: the pthread row is not there */
	ck_assert_ptr_null(strstr(out, "\"kind\": \"pthread\""));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_folded)
{
	struct ap_report_opts o = { .format = AP_FMT_FOLDED,
				    .lock_classes = ALL_CLASSES };
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	out = render(&fx, &o);
	/* weights are wait ns; KIND:LOCK is the leaf */
	ck_assert_ptr_nonnull(strstr(out, "prog;[unknown];pthread:test_lock_var 10000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "prog;[unknown];futex:test_lock_var 80000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "worker;[unknown];futex:test_lock_var 20000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "worker;rwsem_down_write_slowpath_[k];kernel:mmap_lock 40000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "futex:0x10000040_[anon] 1000000\n"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_view_filter)
{
	struct ap_report_opts o = { .format = AP_FMT_TABLE, .nr_tids = 1,
				    .tids = { 999 } };
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "# no lock contention matches the filters"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_classes)
{
	unsigned m = 0;

	/* glibc's frames, leaf first, and other languages' */
	ck_assert_int_eq(ap_lock__frame_class("__GI___lll_lock_wait"),
			 AP_LOCK_CLS_MUTEX);
	ck_assert_int_eq(ap_lock__frame_class("pthread_mutex_lock@@GLIBC_2.2.5"),
			 AP_LOCK_CLS_MUTEX);
	ck_assert_int_eq(ap_lock__frame_class("__pthread_mutex_cond_lock"),
			 AP_LOCK_CLS_MUTEX);
	ck_assert_int_eq(ap_lock__frame_class("__pthread_rwlock_wrlock_full64"),
			 AP_LOCK_CLS_MUTEX);
	ck_assert_int_eq(ap_lock__frame_class("std::sys::unix::locks::futex_mutex::Mutex::lock_contended"),
			 AP_LOCK_CLS_MUTEX);
	ck_assert_int_eq(ap_lock__frame_class("__pthread_cond_wait_common"),
			 AP_LOCK_CLS_COND);
	ck_assert_int_eq(ap_lock__frame_class("std::condition_variable::wait(std::unique_lock<std::mutex>&)"),
			 AP_LOCK_CLS_COND);
	ck_assert_int_eq(ap_lock__frame_class("__pthread_clockjoin_ex"),
			 AP_LOCK_CLS_JOIN);
	ck_assert_int_eq(ap_lock__frame_class("pthread_join@@GLIBC_2.34"),
			 AP_LOCK_CLS_JOIN);
	ck_assert_int_eq(ap_lock__frame_class("__futex_abstimed_wait_common"), -1);
	ck_assert_int_eq(ap_lock__frame_class("__new_sem_wait_slow64.constprop.0"), -1);
	ck_assert_int_eq(ap_lock__frame_class("main"), -1);
	ck_assert_int_eq(ap_lock__frame_class(NULL), -1);
	/* no frame says: the op */
	ck_assert_uint_eq(ap_lock__op_class(6 | 128), AP_LOCK_CLS_MUTEX);
	ck_assert_uint_eq(ap_lock__op_class(13), AP_LOCK_CLS_MUTEX);
	ck_assert_uint_eq(ap_lock__op_class(11), AP_LOCK_CLS_COND);
	ck_assert_uint_eq(ap_lock__op_class(0 | 128), AP_LOCK_CLS_OTHER);
	ck_assert_uint_eq(ap_lock__op_class(9 | 256), AP_LOCK_CLS_OTHER);
	ck_assert_str_eq(ap_lock__class_name(AP_LOCK_CLS_COND), "cond");
	ck_assert_str_eq(ap_lock__class_name(9), "?");
	ck_assert_int_eq(ap_lock__parse_classes("mutex,join", &m), 0);
	ck_assert_uint_eq(m, (1u << AP_LOCK_CLS_MUTEX) | (1u << AP_LOCK_CLS_JOIN));
	ck_assert_int_eq(ap_lock__parse_classes("all", &m), 0);
	ck_assert_uint_eq(m, ALL_CLASSES);
	ck_assert_int_eq(ap_lock__parse_classes("mutex,", &m), -EINVAL);
	ck_assert_int_eq(ap_lock__parse_classes("mutexes", &m), -EINVAL);
	ck_assert_int_eq(ap_lock__parse_classes("", &m), -EINVAL);
	ck_assert_int_eq(ap_lock__parse_classes(",mutex", &m), -EINVAL);
}
END_TEST

/* default classes: the stack-less FUTEX_WAITs are "other", left out of
 * the rows and counted in the header; pthread and kernel rows stay; a
 * pthread hold record adds a hold, not a contention */
START_TEST(test_view_default_classes)
{
	struct ap_report_opts o = { .format = AP_FMT_JSON };
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	add_lock(&fx.b, AP_LOCK_PTHREAD, 10, (uintptr_t)&test_lock_var[0], 0,
		 9000000, 0, AP_LOCK_F_HOLD, NULL);
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "{\"contentions\": 3, \"total_wait_ns\": 52000000"));
	ck_assert_ptr_nonnull(strstr(out, "\"futex_by_class\": {\"mutex\": 0, \"cond\": 0, \"join\": 0, \"other\": 4}, \"classes_shown\": [\"mutex\"]"));
	ck_assert_ptr_null(strstr(out, "\"kind\": \"futex\""));
	/* 2 waits, 3 holds of 4, 6 and 9 ms */
	ck_assert_ptr_nonnull(strstr(out, "\"contentions\": 2, \"total_wait_ns\": 12000000"));
	ck_assert_ptr_nonnull(strstr(out, "\"holds\": 3, \"avg_hold_ns\": 6333333"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

static Suite *lock_suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc;

	tc = tcase_create("frame");
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_roundtrip);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_loop_test(tc, test_kernel_type, 0,
			    sizeof(types) / sizeof(types[0]));
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_kdata);
	tcase_add_test(tc, test_kernel_lock_name_unknown_is_address);
	tcase_add_test(tc, test_classes);
	suite_add_tcase(s, tc);
	tc = tcase_create("datasym");
	tcase_add_test(tc, test_datasym_self);
	tcase_add_test(tc, test_region);
	tcase_add_test(tc, test_func_offset);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_test(tc, test_view_table);
	tcase_add_test(tc, test_view_nested_once);
	tcase_add_test(tc, test_view_per_thread);
	tcase_add_test(tc, test_view_json);
	tcase_add_test(tc, test_view_folded);
	tcase_add_test(tc, test_view_filter);
	tcase_add_test(tc, test_view_default_classes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lock_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
