// SPDX-License-Identifier: GPL-2.0
/*
 * Encoders and decoders of the record file's header payload and frames.
 * man/aperture-file.5 documents every byte written here; a change of
 * layout is a line appended to AP_FORMAT_MINORS (fields appended) or a
 * new AP_FORMAT_MAJOR.
 */
#include "format/format.h"

#include <errno.h>
#include <string.h>

/* header payload TLV keys: {u16 key, u16 length, bytes} */
enum {
	AP_HKEY_START_MONO_NS	= 1,	/* u64 */
	AP_HKEY_MONO_TO_REAL_NS	= 2,	/* s64 */
	AP_HKEY_FREQ		= 3,	/* u32 */
	AP_HKEY_EVENTS_REQ	= 4,	/* u32 */
	AP_HKEY_EVENTS_AVAIL	= 5,	/* u32 */
	AP_HKEY_NCPUS		= 6,	/* u32 */
	AP_HKEY_HOST		= 7,	/* string */
	AP_HKEY_KERNEL		= 8,	/* string */
	AP_HKEY_CMDLINE		= 9,	/* string */
	AP_HKEY_TARGET		= 10,	/* string */
	AP_HKEY_KERNEL_BUILD_ID	= 11,	/* bytes, 1 to AP_BUILD_ID_MAX */
	AP_HKEY_LABELS		= 12,	/* string: NAME=VALUE\n */
};

void ap_header__init(struct ap_header *h)
{
	memset(h, 0, sizeof(*h));
	h->major = AP_FORMAT_MAJOR;
	h->minor = AP_FORMAT_MINOR;
}

static void tlv_u32(struct ap_buf *b, uint16_t key, uint32_t v)
{
	ap_buf__u16(b, key);
	ap_buf__u16(b, 4);
	ap_buf__u32(b, v);
}

static void tlv_u64(struct ap_buf *b, uint16_t key, uint64_t v)
{
	ap_buf__u16(b, key);
	ap_buf__u16(b, 8);
	ap_buf__u64(b, v);
}

/* bounded strlen: the header's arrays need not be NUL-terminated */
static void tlv_str(struct ap_buf *b, uint16_t key, const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	ap_buf__u16(b, key);
	ap_buf__u16(b, (uint16_t)n);
	ap_buf__put(b, s, n);
}

int ap_header__encode(const struct ap_header *h, struct ap_buf *b)
{
	tlv_u64(b, AP_HKEY_START_MONO_NS, h->start_mono_ns);
	tlv_u64(b, AP_HKEY_MONO_TO_REAL_NS, (uint64_t)h->mono_to_real_ns);
	tlv_u32(b, AP_HKEY_FREQ, h->freq);
	tlv_u32(b, AP_HKEY_EVENTS_REQ, h->events_requested);
	tlv_u32(b, AP_HKEY_EVENTS_AVAIL, h->events_available);
	tlv_u32(b, AP_HKEY_NCPUS, h->ncpus);
	tlv_str(b, AP_HKEY_HOST, h->host, sizeof(h->host));
	tlv_str(b, AP_HKEY_KERNEL, h->kernel, sizeof(h->kernel));
	tlv_str(b, AP_HKEY_CMDLINE, h->cmdline, sizeof(h->cmdline));
	tlv_str(b, AP_HKEY_TARGET, h->target, sizeof(h->target));
	if (h->kernel_build_id_len) {
		ap_buf__u16(b, AP_HKEY_KERNEL_BUILD_ID);
		ap_buf__u16(b, h->kernel_build_id_len);
		ap_buf__put(b, h->kernel_build_id, h->kernel_build_id_len);
	}
	if (h->labels[0])
		tlv_str(b, AP_HKEY_LABELS, h->labels, sizeof(h->labels));
	return b->err;
}

static int tlv_int(const uint8_t *v, uint16_t vlen, size_t size, void *out)
{
	if (vlen != size)
		return -EBADMSG;
	if (size == 4)
		*(uint32_t *)out = ap_get_le32(v);
	else
		*(uint64_t *)out = ap_get_le64(v);
	return 0;
}

static void tlv_strcpy(char *dst, size_t size, const uint8_t *v, uint16_t n)
{
	size_t k = n < size - 1 ? n : size - 1;

	memcpy(dst, v, k);
	dst[k] = '\0';
}

int ap_header__decode(const void *p, size_t len, struct ap_header *h)
{
	struct ap_cur c;
	uint64_t u64 = 0;
	int err = 0;

	ap_header__init(h);
	ap_cur__init(&c, p, len);
	while (!err && ap_cur__left(&c)) {
		uint16_t key = ap_cur__u16(&c);
		uint16_t vlen = ap_cur__u16(&c);
		const uint8_t *v = ap_cur__bytes(&c, vlen);

		if (c.err)
			return -EBADMSG;
		switch (key) {
		case AP_HKEY_START_MONO_NS:
			err = tlv_int(v, vlen, 8, &h->start_mono_ns);
			break;
		case AP_HKEY_MONO_TO_REAL_NS:
			err = tlv_int(v, vlen, 8, &u64);
			h->mono_to_real_ns = (int64_t)u64;
			break;
		case AP_HKEY_FREQ:
			err = tlv_int(v, vlen, 4, &h->freq);
			break;
		case AP_HKEY_EVENTS_REQ:
			err = tlv_int(v, vlen, 4, &h->events_requested);
			break;
		case AP_HKEY_EVENTS_AVAIL:
			err = tlv_int(v, vlen, 4, &h->events_available);
			break;
		case AP_HKEY_NCPUS:
			err = tlv_int(v, vlen, 4, &h->ncpus);
			break;
		case AP_HKEY_HOST:
			tlv_strcpy(h->host, sizeof(h->host), v, vlen);
			break;
		case AP_HKEY_KERNEL:
			tlv_strcpy(h->kernel, sizeof(h->kernel), v, vlen);
			break;
		case AP_HKEY_CMDLINE:
			tlv_strcpy(h->cmdline, sizeof(h->cmdline), v, vlen);
			break;
		case AP_HKEY_TARGET:
			tlv_strcpy(h->target, sizeof(h->target), v, vlen);
			break;
		case AP_HKEY_KERNEL_BUILD_ID:
			if (!vlen || vlen > sizeof(h->kernel_build_id))
				return -EBADMSG;
			memcpy(h->kernel_build_id, v, vlen);
			h->kernel_build_id_len = (uint8_t)vlen;
			break;
		case AP_HKEY_LABELS:
			tlv_strcpy(h->labels, sizeof(h->labels), v, vlen);
			break;
		default:	/* written by a newer aperture: skip */
			break;
		}
	}
	return err;
}

void ap_frame__begin(struct ap_buf *b, uint32_t tag, size_t *mark)
{
	*mark = b->len;
	ap_buf__u32(b, tag);
	ap_buf__u32(b, 0);	/* patched by ap_frame__end */
}

void ap_frame__end(struct ap_buf *b, size_t mark)
{
	if (b->err || b->len < mark + AP_FRAME_HDR_LEN)
		return;
	ap_put_le32(b->data + mark + 4,
		    (uint32_t)(b->len - mark - AP_FRAME_HDR_LEN));
}

void ap_event_head__encode(struct ap_buf *b, uint64_t ts, uint32_t pid,
			   uint32_t tid)
{
	ap_buf__u64(b, ts);
	ap_buf__u32(b, pid);
	ap_buf__u32(b, tid);
}

void ap_event_head__decode(struct ap_cur *c, uint64_t *ts, uint32_t *pid,
			   uint32_t *tid)
{
	*ts = ap_cur__u64(c);
	*pid = ap_cur__u32(c);
	*tid = ap_cur__u32(c);
}

#define PUT_STR(b, arr)	ap_buf__strn(b, arr, sizeof(arr))
#define GET_STR(c, arr)	ap_cur__str(c, arr, sizeof(arr))

void ap_cpu_sample__encode(const struct ap_cpu_sample *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_CPU, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->stack_id);
	ap_frame__end(b, mark);
}

int ap_cpu_sample__decode(const void *p, size_t len, struct ap_cpu_sample *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->cpu = ap_cur__u32(&c);
	e->stack_id = ap_cur__u32(&c);
	return c.err;
}

void ap_task__encode(const struct ap_task *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_TASK, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u32(b, e->ppid);
	ap_buf__u64(b, e->start_ticks);
	ap_buf__u32(b, e->kind);
	ap_buf__u32(b, (uint32_t)e->exit_code);
	PUT_STR(b, e->comm);
	ap_frame__end(b, mark);
}

int ap_task__decode(const void *p, size_t len, struct ap_task *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->ppid = ap_cur__u32(&c);
	e->start_ticks = ap_cur__u64(&c);
	e->kind = ap_cur__u32(&c);
	e->exit_code = (int32_t)ap_cur__u32(&c);
	GET_STR(&c, e->comm);
	return c.err;
}

void ap_proc_cgroup__encode(const struct ap_proc_cgroup *e,
			    struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_CGROUP, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u64(b, e->start_ticks);
	PUT_STR(b, e->path);
	ap_frame__end(b, mark);
}

int ap_proc_cgroup__decode(const void *p, size_t len,
			   struct ap_proc_cgroup *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->start_ticks = ap_cur__u64(&c);
	GET_STR(&c, e->path);
	return c.err;
}

void ap_comm__encode(const struct ap_comm *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_COMM, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	PUT_STR(b, e->comm);
	ap_frame__end(b, mark);
}

int ap_comm__decode(const void *p, size_t len, struct ap_comm *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	GET_STR(&c, e->comm);
	return c.err;
}

void ap_mmap__encode(const struct ap_mmap *e, struct ap_buf *b)
{
	uint32_t n = e->build_id_len;
	uint8_t *id;
	size_t mark;

	if (n > AP_BUILD_ID_MAX)
		n = AP_BUILD_ID_MAX;
	ap_frame__begin(b, AP_TAG_MMAP, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u32(b, e->prot);
	ap_buf__u64(b, e->start);
	ap_buf__u64(b, e->end);
	ap_buf__u64(b, e->pgoff);
	ap_buf__u64(b, e->inode);
	ap_buf__u32(b, n);
	/* always AP_BUILD_ID_MAX bytes, zero-padded past build_id_len */
	id = ap_buf__reserve(b, AP_BUILD_ID_MAX);
	if (id) {
		memset(id, 0, AP_BUILD_ID_MAX);
		memcpy(id, e->build_id, n);
	}
	PUT_STR(b, e->path);
	ap_frame__end(b, mark);
}

int ap_mmap__decode(const void *p, size_t len, struct ap_mmap *e)
{
	const uint8_t *id;
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->prot = ap_cur__u32(&c);
	e->start = ap_cur__u64(&c);
	e->end = ap_cur__u64(&c);
	e->pgoff = ap_cur__u64(&c);
	e->inode = ap_cur__u64(&c);
	e->build_id_len = ap_cur__u32(&c);
	id = ap_cur__bytes(&c, AP_BUILD_ID_MAX);
	GET_STR(&c, e->path);
	if (c.err)
		return c.err;
	if (e->build_id_len > AP_BUILD_ID_MAX)
		return -EBADMSG;
	memcpy(e->build_id, id, e->build_id_len);
	return 0;
}

void ap_stack__encode(const struct ap_stack *e, struct ap_buf *b)
{
	size_t i, n = (size_t)e->nr_kernel + e->nr_user;
	size_t mark;
	uint8_t *d;

	ap_frame__begin(b, AP_TAG_STACK, &mark);
	ap_buf__u32(b, e->id);
	ap_buf__u16(b, e->nr_kernel);
	ap_buf__u16(b, e->nr_user);
	d = ap_buf__reserve(b, n * 8);
	if (d) {
		for (i = 0; i < n; i++)
			ap_put_le64(d + i * 8, e->ips ? e->ips[i] : 0);
	}
	ap_buf__u32(b, e->flags);
	ap_frame__end(b, mark);
}

int ap_stack__decode(const void *p, size_t len, struct ap_stack *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->id = ap_cur__u32(&c);
	e->nr_kernel = ap_cur__u16(&c);
	e->nr_user = ap_cur__u16(&c);
	ap_cur__bytes(&c, ((size_t)e->nr_kernel + e->nr_user) * 8);
	/* 1.0 files end here: no flags */
	if (!c.err && ap_cur__left(&c) >= 4)
		e->flags = ap_cur__u32(&c);
	return c.err;
}

int ap_stack__decode_ips(const void *p, size_t len, struct ap_stack *e,
			 uint64_t *ips, size_t max)
{
	const uint8_t *d = (const uint8_t *)p + 8;
	size_t i, n;
	int err;

	err = ap_stack__decode(p, len, e);
	if (err)
		return err;
	n = (size_t)e->nr_kernel + e->nr_user;
	if (n > max)
		return -E2BIG;
	for (i = 0; i < n; i++)
		ips[i] = ap_get_le64(d + i * 8);
	e->ips = ips;
	return 0;
}

void ap_image__encode(const struct ap_image *e, struct ap_buf *b)
{
	uint32_t n = e->len > AP_IMAGE_MAX ? 0 : e->len;
	size_t mark;
	uint8_t *d;

	ap_frame__begin(b, AP_TAG_IMAGE, &mark);
	ap_buf__u64(b, e->ts);
	PUT_STR(b, e->name);
	ap_buf__u32(b, n);
	d = ap_buf__reserve(b, n);
	if (d && n)
		memcpy(d, e->data, n);
	ap_frame__end(b, mark);
}

int ap_image__decode(const void *p, size_t len, struct ap_image *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	GET_STR(&c, e->name);
	e->len = ap_cur__u32(&c);
	if (e->len > AP_IMAGE_MAX)
		return -EBADMSG;
	e->data = ap_cur__bytes(&c, e->len);
	return c.err;
}

void ap_jit__encode(const struct ap_jit *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_JIT, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u64(b, e->start);
	ap_buf__u64(b, e->size);
	PUT_STR(b, e->name);
	ap_frame__end(b, mark);
}

int ap_jit__decode(const void *p, size_t len, struct ap_jit *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->start = ap_cur__u64(&c);
	e->size = ap_cur__u64(&c);
	GET_STR(&c, e->name);
	return c.err;
}

void ap_pyframe__encode(const struct ap_pyframe *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_PYFRAME, &mark);
	ap_buf__u32(b, e->id);
	ap_buf__u32(b, (uint32_t)e->line);
	ap_buf__u32(b, (uint32_t)e->first_line);
	PUT_STR(b, e->func);
	PUT_STR(b, e->file);
	ap_frame__end(b, mark);
}

int ap_pyframe__decode(const void *p, size_t len, struct ap_pyframe *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->id = ap_cur__u32(&c);
	e->line = (int32_t)ap_cur__u32(&c);
	e->first_line = (int32_t)ap_cur__u32(&c);
	GET_STR(&c, e->func);
	GET_STR(&c, e->file);
	if (!c.err && !e->id)
		return -EBADMSG;
	return c.err;
}

void ap_ksym__encode(const struct ap_ksym *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_KSYM, &mark);
	ap_buf__u64(b, e->addr);
	ap_buf__u64(b, e->size);
	PUT_STR(b, e->name);
	PUT_STR(b, e->module);
	ap_frame__end(b, mark);
}

int ap_ksym__decode(const void *p, size_t len, struct ap_ksym *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->addr = ap_cur__u64(&c);
	e->size = ap_cur__u64(&c);
	GET_STR(&c, e->name);
	GET_STR(&c, e->module);
	return c.err;
}

void ap_lost__encode(const struct ap_lost *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_LOST, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->source);
	ap_buf__u32(b, e->tag);
	ap_buf__u64(b, e->count);
	ap_frame__end(b, mark);
}

int ap_lost__decode(const void *p, size_t len, struct ap_lost *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->source = ap_cur__u32(&c);
	e->tag = ap_cur__u32(&c);
	e->count = ap_cur__u64(&c);
	return c.err;
}

void ap_lost_proc__encode(const struct ap_lost_proc *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_LOST_PROC, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u32(b, e->flags);
	ap_buf__u64(b, e->start_ticks);
	ap_buf__u32(b, e->source);
	ap_buf__u32(b, e->tag);
	ap_buf__u64(b, e->count);
	PUT_STR(b, e->comm);
	ap_frame__end(b, mark);
}

int ap_lost_proc__decode(const void *p, size_t len, struct ap_lost_proc *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->flags = ap_cur__u32(&c);
	e->start_ticks = ap_cur__u64(&c);
	e->source = ap_cur__u32(&c);
	e->tag = ap_cur__u32(&c);
	e->count = ap_cur__u64(&c);
	GET_STR(&c, e->comm);
	return c.err;
}

void ap_sensor__encode(const struct ap_sensor *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_SENSOR, &mark);
	ap_buf__u32(b, e->tag);
	ap_buf__u32(b, e->state);
	PUT_STR(b, e->name);
	PUT_STR(b, e->source);
	PUT_STR(b, e->reason);
	ap_frame__end(b, mark);
}

int ap_sensor__decode(const void *p, size_t len, struct ap_sensor *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->tag = ap_cur__u32(&c);
	e->state = ap_cur__u32(&c);
	GET_STR(&c, e->name);
	GET_STR(&c, e->source);
	GET_STR(&c, e->reason);
	return c.err;
}

/*
 * The lost counters carry their own count, so a newer aperture with more
 * AP_LOST_* sources stays readable: extra counters are skipped, missing
 * ones read as 0.  The struct's pad is not stored.
 */
void ap_summary__encode(const struct ap_summary *e, struct ap_buf *b)
{
	size_t i, mark;

	ap_frame__begin(b, AP_TAG_SUMMARY, &mark);
	ap_buf__u64(b, e->end_mono_ns);
	ap_buf__u64(b, e->samples);
	ap_buf__u64(b, e->events);
	ap_buf__u32(b, (uint32_t)e->exit_status);
	ap_buf__u32(b, AP_LOST_NR);
	for (i = 0; i < AP_LOST_NR; i++)
		ap_buf__u64(b, e->lost[i]);
	ap_frame__end(b, mark);
}

int ap_summary__decode(const void *p, size_t len, struct ap_summary *e)
{
	struct ap_cur c;
	uint32_t i, nr;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->end_mono_ns = ap_cur__u64(&c);
	e->samples = ap_cur__u64(&c);
	e->events = ap_cur__u64(&c);
	e->exit_status = (int32_t)ap_cur__u32(&c);
	nr = ap_cur__u32(&c);
	if (c.err || nr > ap_cur__left(&c) / 8)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		uint64_t v = ap_cur__u64(&c);

		if (i < AP_LOST_NR)
			e->lost[i] = v;
	}
	return c.err;
}

void ap_unwind_info__encode(const struct ap_unwind_info *e, struct ap_buf *b)
{
	size_t i, mark;

	ap_frame__begin(b, AP_TAG_UNWIND, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->method);
	ap_buf__u32(b, e->max_stack);
	ap_buf__u32(b, AP_UWC_NR);
	for (i = 0; i < AP_UWC_NR; i++)
		ap_buf__u64(b, e->c[i]);
	ap_frame__end(b, mark);
}

int ap_unwind_info__decode(const void *p, size_t len,
			   struct ap_unwind_info *e)
{
	struct ap_cur c;
	uint32_t i, nr;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->method = ap_cur__u32(&c);
	e->max_stack = ap_cur__u32(&c);
	nr = ap_cur__u32(&c);
	if (c.err || nr > ap_cur__left(&c) / 8)
		return -EBADMSG;
	/* counters a newer writer added are skipped */
	for (i = 0; i < nr; i++) {
		uint64_t v = ap_cur__u64(&c);

		if (i < AP_UWC_NR)
			e->c[i] = v;
	}
	return c.err;
}

#define AP__NAME(name, v, str)	[v] = str,

const char *ap_tag__name(uint32_t tag)
{
	static const char *const names[AP_TRAILER_TAGS] = {
		AP_FORMAT_TAGS(AP__NAME)
	};

	if (tag >= AP_TRAILER_TAGS)
		return NULL;
	return names[tag];
}

const char *ap_lost__source_name(uint32_t source)
{
	static const char *const names[AP_LOST_NR] = {
		AP_LOST_SOURCES(AP__NAME)
	};

	if (source >= AP_LOST_NR)
		return NULL;
	return names[source];
}
