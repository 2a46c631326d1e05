// SPDX-License-Identifier: GPL-2.0
/*
 * I/O and IPC bytes: the AP_TAG_IO frame round-trips and its bytes are
 * pinned, short payloads are refused and long ones accepted; BPF path
 * components join into paths; resources are described; the recorder
 * handler turns a BPF record into a frame; the io view sums bytes, calls
 * and errors per resource, direction and process, remembers paths, pairs
 * pipe ends, loopback TCP (v4, v4-mapped v6) and AF_UNIX peers, filters,
 * and prints table, folded and JSON.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>

#include "io/codec.h"
#include "format/format.h"
#include "format/reader.h"
#include "record/recorder.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define FIXED_LEN 114		/* payload bytes before the name */

static void fill(struct ap_io *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	e->ts = 0x0102030405060708ull;
	e->pid = 4242;
	e->tid = 4243;
	e->cpu = 3;
	e->fd = -7;
	e->sys = AP_IO_SYS_SENDMSG;
	e->dir = AP_IO_WRITE;
	e->type = AP_IO_FT_SOCK;
	e->flags = AP_IO_F_PARTIAL;
	e->ret = -11;
	e->dev = makedev(8, 1);
	e->ino = 0x1122334455ull;
	e->peer_ino = 99;
	e->magic = 0x534f434b;
	e->generation = 77;
	e->family = AF_INET6;
	e->sock_type = SOCK_STREAM;
	e->protocol = IPPROTO_TCP;
	e->lport = 443;
	e->rport = 50000;
	for (i = 0; i < 16; i++) {
		e->laddr[i] = i;
		e->raddr[i] = 0xf0 + i;
	}
	strcpy(e->name, "/srv/data/file.bin");
	e->duration_ns = 123456789;
}

START_TEST(test_roundtrip)
{
	struct ap_io in, out;
	struct ap_buf b;

	fill(&in);
	ap_buf__init(&b);
	ap_io__encode(&in, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(ap_get_le32(b.data), AP_TAG_IO);
	ck_assert_uint_eq(ap_get_le32(b.data + 4),
			  FIXED_LEN + 2 + strlen(in.name) + 8);
	ck_assert_int_eq(ap_io__decode(b.data + 8, b.len - 8, &out), 0);
	ck_assert_int_eq(memcmp(&in, &out, offsetof(struct ap_io, name)), 0);
	ck_assert_str_eq(out.name, in.name);
	ck_assert_uint_eq(out.duration_ns, in.duration_ns);
	ap_buf__free(&b);
}
END_TEST

/* a sum (format 1.3): four u64 after the name, read back; without the
 * flag they are not written */
START_TEST(test_sum_roundtrip)
{
	struct ap_io in, out;
	const uint8_t *p;
	struct ap_buf b;
	size_t n;

	fill(&in);
	in.flags = AP_IO_F_SUM;
	in.ret = 0;
	in.calls = 100000;
	in.bytes = 99990;
	in.errors = 10;
	in.partial = 0;
	ap_buf__init(&b);
	ap_io__encode(&in, &b);
	n = strlen(in.name);
	ck_assert_uint_eq(ap_get_le32(b.data + 4), FIXED_LEN + 2 + n + 32);
	p = b.data + 8 + FIXED_LEN + 2 + n;
	ck_assert_uint_eq(ap_get_le64(p), 100000);
	ck_assert_uint_eq(ap_get_le64(p + 8), 99990);
	ck_assert_uint_eq(ap_get_le64(p + 16), 10);
	ck_assert_int_eq(ap_io__decode(b.data + 8, b.len - 8, &out), 0);
	ck_assert_uint_eq(out.calls, 100000);
	ck_assert_uint_eq(out.bytes, 99990);
	ck_assert_uint_eq(out.errors, 10);
	ap_buf__free(&b);
	/* cut short: an error, not zeros */
	ap_buf__init(&b);
	ap_io__encode(&in, &b);
	ck_assert_int_ne(ap_io__decode(b.data + 8, b.len - 8 - 8, &out), 0);
	ap_buf__free(&b);
}
END_TEST

/* the layout of man/aperture-file.5, byte by byte where it matters */
START_TEST(test_pinned_bytes)
{
	const uint8_t *p;
	struct ap_io e;
	struct ap_buf b;

	fill(&e);
	ap_buf__init(&b);
	ap_io__encode(&e, &b);
	p = b.data + 8;
	ck_assert_uint_eq(ap_get_le64(p + 0), e.ts);
	ck_assert_uint_eq(ap_get_le32(p + 8), 4242);
	ck_assert_uint_eq(ap_get_le32(p + 12), 4243);
	ck_assert_uint_eq(ap_get_le32(p + 16), 3);
	ck_assert_uint_eq(ap_get_le32(p + 20), (uint32_t)-7);
	ck_assert_uint_eq(ap_get_le16(p + 24), AP_IO_SYS_SENDMSG);
	ck_assert_uint_eq(p[26], AP_IO_WRITE);
	ck_assert_uint_eq(p[27], AP_IO_FT_SOCK);
	ck_assert_uint_eq(ap_get_le32(p + 28), AP_IO_F_PARTIAL);
	ck_assert_uint_eq(ap_get_le64(p + 32), (uint64_t)-11);
	ck_assert_uint_eq(ap_get_le64(p + 40), makedev(8, 1));
	ck_assert_uint_eq(ap_get_le64(p + 48), 0x1122334455ull);
	ck_assert_uint_eq(ap_get_le64(p + 56), 99);
	ck_assert_uint_eq(ap_get_le32(p + 64), 0x534f434b);
	ck_assert_uint_eq(ap_get_le32(p + 68), 77);
	ck_assert_uint_eq(ap_get_le16(p + 72), AF_INET6);
	ck_assert_uint_eq(ap_get_le16(p + 74), SOCK_STREAM);
	ck_assert_uint_eq(ap_get_le16(p + 76), IPPROTO_TCP);
	ck_assert_uint_eq(ap_get_le16(p + 78), 443);
	ck_assert_uint_eq(ap_get_le16(p + 80), 50000);
	ck_assert_uint_eq(p[82], 0);
	ck_assert_uint_eq(p[97], 15);
	ck_assert_uint_eq(p[98], 0xf0);
	ck_assert_uint_eq(p[113], 0xff);
	ck_assert_uint_eq(ap_get_le16(p + FIXED_LEN), strlen(e.name));
	ck_assert_int_eq(memcmp(p + FIXED_LEN + 2, e.name, strlen(e.name)), 0);
	ck_assert_uint_eq(ap_get_le64(p + FIXED_LEN + 2 + strlen(e.name)),
			  e.duration_ns);
	ap_buf__free(&b);
}
END_TEST

/* cut before the end of the name: refused; a file of minor 2 ends there
 * and has no duration */
START_TEST(test_short_refused)
{
	struct ap_io e;
	struct ap_buf b;
	size_t len, old;

	fill(&e);
	ap_buf__init(&b);
	ap_io__encode(&e, &b);
	old = FIXED_LEN + 2 + strlen(e.name);
	for (len = 0; len < old; len++)
		ck_assert_int_eq(ap_io__decode(b.data + 8, len, &e), -EBADMSG);
	ck_assert_int_eq(ap_io__decode(b.data + 8, old, &e), 0);
	ck_assert_uint_eq(e.duration_ns, 0);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_long_accepted)
{
	struct ap_io in, out;
	struct ap_buf b;

	fill(&in);
	ap_buf__init(&b);
	ap_io__encode(&in, &b);
	ap_buf__u64(&b, 0xabcdef);	/* a field from a newer writer */
	ck_assert_int_eq(ap_io__decode(b.data + 8, b.len - 8, &out), 0);
	ck_assert_str_eq(out.name, in.name);
	ck_assert_int_eq(out.ret, -11);
	ap_buf__free(&b);
}
END_TEST

static const struct {
	const char *comps;
	size_t len;
	uint32_t flags;
	const char *want;
} joins[] = {
	{ "leaf\0dir\0tmp", 13, 0, "/tmp/dir/leaf" },
	{ "", 0, 0, "/" },
	{ "[eventfd]", 10, AP_IO_F_PATH_DETACHED, "[eventfd]" },
	{ "c\0b", 4, AP_IO_F_PATH_TRUNC, ".../b/c" },
	{ "f\0tmp", 6, AP_IO_F_DELETED, "/tmp/f (deleted)" },
	{ "leaf\0di", 7, 0, "/di/leaf" },	/* last component cut */
	{ "memfd:x", 8, 0, "/memfd:x" },
	{ "x\0[pipe]", 9, AP_IO_F_PATH_DETACHED, "[pipe]/x" },
};

START_TEST(test_path_join)
{
	char out[64];
	size_t n;

	n = ap_io_path_join(joins[_i].comps, joins[_i].len, joins[_i].flags,
			    out, sizeof(out));
	ck_assert_str_eq(out, joins[_i].want);
	ck_assert_uint_eq(n, strlen(joins[_i].want));
}
END_TEST

START_TEST(test_path_join_small_buffer)
{
	char out[6];
	size_t n;

	n = ap_io_path_join("leaf\0dir\0tmp", 13, 0, out, sizeof(out));
	ck_assert_str_eq(out, "/tmp/");
	ck_assert_uint_eq(n, 5);
}
END_TEST

START_TEST(test_kdev)
{
	ck_assert_uint_eq(ap_io_kdev(8u << 20 | 1), makedev(8, 1));
	ck_assert_uint_eq(ap_io_kdev(259u << 20 | 0x12345),
			  makedev(259, 0x12345));
	ck_assert_uint_eq(ap_io_kdev(0), 0);
}
END_TEST

static void inet(struct ap_io *e, int family, const char *l, int lport,
		 const char *r, int rport)
{
	memset(e, 0, sizeof(*e));
	e->type = AP_IO_FT_SOCK;
	e->family = family;
	e->sock_type = SOCK_STREAM;
	e->protocol = IPPROTO_TCP;
	inet_pton(family, l, e->laddr);
	inet_pton(family, r, e->raddr);
	e->lport = lport;
	e->rport = rport;
}

START_TEST(test_describe)
{
	struct ap_io e;
	char buf[256];

	inet(&e, AF_INET, "127.0.0.1", 5000, "127.0.0.1", 40000);
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "tcp 127.0.0.1:5000 -> 127.0.0.1:40000");
	inet(&e, AF_INET6, "::1", 80, "::1", 50000);
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "tcp6 [::1]:80 -> [::1]:50000");
	inet(&e, AF_INET, "0.0.0.0", 53, "0.0.0.0", 0);
	e.sock_type = SOCK_DGRAM;
	e.protocol = IPPROTO_UDP;
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "udp 0.0.0.0:53 -> *");

	memset(&e, 0, sizeof(e));
	e.type = AP_IO_FT_SOCK;
	e.family = AF_UNIX;
	e.sock_type = SOCK_STREAM;
	e.ino = 10;
	e.peer_ino = 11;
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "unix stream socket:[10] -> socket:[11]");

	memset(&e, 0, sizeof(e));
	e.type = AP_IO_FT_PIPE;
	e.magic = 0x50495045;
	e.ino = 1234;
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "pipe:[1234]");

	e.type = AP_IO_FT_ANON;
	ap_io_describe(&e, "[eventfd]", buf, sizeof(buf));
	ck_assert_str_eq(buf, "anon_inode:[eventfd]");

	e.type = AP_IO_FT_FILE;
	e.dev = makedev(8, 1);
	e.ino = 12;
	ap_io_describe(&e, "/etc/hosts", buf, sizeof(buf));
	ck_assert_str_eq(buf, "/etc/hosts");
	ap_io_describe(&e, "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "file dev 8:1 ino 12");

	memset(&e, 0, sizeof(e));
	e.fd = 9;
	ap_io_describe(&e, NULL, buf, sizeof(buf));
	ck_assert_str_eq(buf, "unresolved fd 9");
}
END_TEST

/* bpf/io.bpf.c's exit program takes the direction from the number's
 * parity: odd numbers must be the reading syscalls */
START_TEST(test_sys_parity)
{
	uint32_t s;

	for (s = 1; s <= AP_IO_SYS_SENDMMSG; s++) {
		const char *n = ap_io_sys_name(s);
		int reads = !strncmp(n, "read", 4) || !strncmp(n, "pread", 5) ||
			    !strncmp(n, "recv", 4);

		ck_assert_msg(reads == (int)(s & 1), "%u %s", s, n);
	}
	for (s = 1; s < AP_IO_SYS_NR; s++)
		ck_assert_str_ne(ap_io_sys_name(s), "?");
	ck_assert_str_eq(ap_io_sys_name(0), "?");
	ck_assert_str_eq(ap_io_sys_name(AP_IO_SYS_NR), "?");
	ck_assert_str_eq(ap_io_type_name(AP_IO_FT_PIPE), "pipe");
	ck_assert_str_eq(ap_io_type_name(AP_IO_FT_NR), "?");
}
END_TEST

static int sink(void *ctx, const void *frames, size_t len)
{
	ap_buf__put(ctx, frames, len);
	return 0;
}

/* the first AP_TAG_IO frame of b from offset *off on, decoded */
static int next_io(struct ap_buf *b, size_t *off, struct ap_io *e)
{
	while (*off + AP_FRAME_HDR_LEN <= b->len) {
		uint32_t tag = ap_get_le32(b->data + *off);
		uint32_t len = ap_get_le32(b->data + *off + 4);
		const uint8_t *p = b->data + *off + AP_FRAME_HDR_LEN;

		*off += AP_FRAME_HDR_LEN + len;
		if (tag == AP_TAG_IO)
			return ap_io__decode(p, len, e) ? -1 : 1;
	}
	return 0;
}

START_TEST(test_recorder_handler)
{
	struct ap_ev_io_path *rec = calloc(1, sizeof(*rec));
	static const char comps[] = "data.bin\0aperture\0tmp";
	struct ap_recorder *r;
	struct ap_buf out;
	struct ap_io *e = malloc(sizeof(*e));
	size_t off = 0;

	ap_buf__init(&out);
	r = ap_recorder__new(sink, &out);
	ck_assert_ptr_nonnull(r);
	rec->io.hdr.type = AP_EV_IO;
	rec->io.hdr.pid = getpid();
	rec->io.hdr.tid = getpid();
	rec->io.hdr.cpu = 1;
	rec->io.hdr.ts = 1000;
	rec->io.ret = 4096;
	rec->io.ino = 55;
	rec->io.dev = 8u << 20 | 3;
	rec->io.fd = 4;
	rec->io.sys = AP_IO_SYS_PWRITE64;
	rec->io.dir = AP_IO_WRITE;
	rec->io.ftype = AP_IO_FT_FILE;
	rec->io.flags = AP_IO_F_PATH;
	rec->io.path_len = sizeof(comps);
	memcpy(rec->path, comps, sizeof(comps));
	strcpy(rec->io.comm, "writer");

	ck_assert_int_eq(ap_rec_io(r, rec, sizeof(*rec)), 0);
	/* later: the path is not sent again */
	rec->io.flags = 0;
	rec->io.ret = 100;
	ck_assert_int_eq(ap_rec_io(r, rec, sizeof(rec->io)), 0);
	/* a PATH record cut short keeps its counts, not a path */
	rec->io.flags = AP_IO_F_PATH;
	ck_assert_int_eq(ap_rec_io(r, rec, sizeof(rec->io)), 0);
	/* shorter than a record: ignored */
	ck_assert_int_eq(ap_rec_io(r, rec, sizeof(rec->io) - 1), 0);
	ck_assert_int_eq(ap_recorder__flush(r), 0);

	ck_assert_int_eq(next_io(&out, &off, e), 1);
	ck_assert_str_eq(e->name, "/tmp/aperture/data.bin");
	ck_assert_uint_eq(e->dev, makedev(8, 3));
	ck_assert_uint_eq(e->pid, (uint32_t)getpid());
	ck_assert_int_eq(e->ret, 4096);
	ck_assert_uint_eq(e->sys, AP_IO_SYS_PWRITE64);
	ck_assert_uint_eq(e->flags, AP_IO_F_PATH);
	ck_assert_int_eq(next_io(&out, &off, e), 1);
	ck_assert_str_eq(e->name, "");
	ck_assert_int_eq(e->ret, 100);
	ck_assert_int_eq(next_io(&out, &off, e), 1);
	ck_assert_str_eq(e->name, "");
	ck_assert_uint_eq(e->flags & AP_IO_F_PATH, 0);
	ck_assert_int_eq(next_io(&out, &off, e), 0);

	ap_recorder__free(r);
	ap_buf__free(&out);
	free(rec);
	free(e);
}
END_TEST

/* --- the view --- */

static struct ap_symbolizer *sym;
static struct ap_session *sess;
static struct ap_buf frames;

static void quiet(void *ctx, const char *msg)
{
}

static void proc(uint32_t pid, const char *comm)
{
	struct ap_task t = { .ts = 1, .pid = pid, .start_ticks = pid,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_comm c = { .ts = 1, .pid = pid, .tid = pid };

	strcpy(t.comm, comm);
	strcpy(c.comm, comm);
	ap_task__encode(&t, &frames);
	ap_comm__encode(&c, &frames);
}

static void io(const struct ap_io *proto, uint32_t pid, int dir, int64_t ret,
	       int sys, const char *name)
{
	struct ap_io *e = malloc(sizeof(*e));

	*e = *proto;
	e->pid = pid;
	e->tid = pid;
	e->dir = dir;
	e->ret = ret;
	e->sys = sys;
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
	ap_io__encode(e, &frames);
	free(e);
}

static void setup(void)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_io *e = calloc(1, sizeof(*e));
	struct ap_io *u = calloc(1, sizeof(*u));
	int i;

	sym = ap_symbolizer__new(&so);
	sess = ap_session__new(sym);
	ap_buf__init(&frames);
	proc(10, "writer");
	proc(11, "reader");
	proc(12, "other");

	/* a pipe: 2500 bytes one way */
	e->type = AP_IO_FT_PIPE;
	e->magic = 0x50495045;
	e->dev = makedev(0, 14);
	e->ino = 500;
	io(e, 10, AP_IO_WRITE, 1000, AP_IO_SYS_WRITE, NULL);
	io(e, 10, AP_IO_WRITE, 1000, AP_IO_SYS_WRITE, NULL);
	io(e, 10, AP_IO_WRITE, 500, AP_IO_SYS_WRITEV, NULL);
	io(e, 11, AP_IO_READ, 2000, AP_IO_SYS_READ, NULL);
	io(e, 11, AP_IO_READ, 500, AP_IO_SYS_READ, NULL);
	io(e, 11, AP_IO_READ, 0, AP_IO_SYS_READ, NULL);	/* EOF */

	/* loopback tcp: 700 bytes from 10 to 11 */
	inet(e, AF_INET, "127.0.0.1", 5000, "127.0.0.1", 40000);
	e->ino = 600;
	io(e, 10, AP_IO_WRITE, 700, AP_IO_SYS_SENDTO, NULL);
	io(e, 10, AP_IO_WRITE, -11, AP_IO_SYS_SENDTO, NULL);	/* EAGAIN */
	inet(e, AF_INET, "127.0.0.1", 40000, "127.0.0.1", 5000);
	e->ino = 601;
	io(e, 11, AP_IO_READ, 700, AP_IO_SYS_RECVFROM, NULL);

	/* a v4-mapped v6 server end and a v4 client: 33 bytes 11 -> 10 */
	inet(e, AF_INET6, "::ffff:127.0.0.1", 6000, "::ffff:127.0.0.1",
	     41000);
	e->ino = 602;
	io(e, 11, AP_IO_WRITE, 33, AP_IO_SYS_SENDMSG, NULL);
	inet(e, AF_INET, "127.0.0.1", 41000, "127.0.0.1", 6000);
	e->ino = 603;
	io(e, 10, AP_IO_READ, 33, AP_IO_SYS_RECVMSG, NULL);

	/* a remote peer: never paired */
	inet(e, AF_INET, "10.0.0.2", 41001, "10.0.0.1", 80);
	e->ino = 604;
	io(e, 12, AP_IO_WRITE, 99, AP_IO_SYS_SENDTO, NULL);

	/* AF_UNIX socketpair: 30 bytes 10 -> 11 */
	u->type = AP_IO_FT_SOCK;
	u->family = AF_UNIX;
	u->sock_type = SOCK_STREAM;
	u->ino = 700;
	u->peer_ino = 701;
	io(u, 10, AP_IO_WRITE, 30, AP_IO_SYS_SENDMSG, NULL);
	u->ino = 701;
	u->peer_ino = 700;
	io(u, 11, AP_IO_READ, 30, AP_IO_SYS_RECVMSG, NULL);

	/* a file: the path comes with the first frame only */
	memset(e, 0, sizeof(*e));
	e->type = AP_IO_FT_FILE;
	e->dev = makedev(8, 1);
	e->ino = 800;
	e->generation = 5;
	io(e, 12, AP_IO_WRITE, 100, AP_IO_SYS_WRITE, "/tmp/f");
	for (i = 0; i < 2; i++)
		io(e, 12, AP_IO_WRITE, 25, AP_IO_SYS_PWRITE64, NULL);
	io(e, 10, AP_IO_READ, 150, AP_IO_SYS_READ, NULL);
	free(e);
	free(u);
}

static void teardown(void)
{
	ap_session__free(sess);
	ap_symbolizer__free(sym);
	ap_buf__free(&frames);
}

static char *render(struct ap_report_opts *o)
{
	const struct ap_view_ops *ops = ap_view__find("io");
	size_t off = 0, len;
	char *out = NULL;
	void *v;
	FILE *f;

	ck_assert_ptr_nonnull(ops);
	ck_assert_uint_eq(ops->tag, AP_TAG_IO);
	v = ops->new(o, sess);
	ck_assert_ptr_nonnull(v);
	while (off + AP_FRAME_HDR_LEN <= frames.len) {
		struct ap_frame fr;
		int ret;

		fr.tag = ap_get_le32(frames.data + off);
		fr.len = ap_get_le32(frames.data + off + 4);
		fr.payload = frames.data + off + AP_FRAME_HDR_LEN;
		ret = ap_session__feed(sess, &fr);
		ck_assert_int_ge(ret, 0);
		if (ret == 1 && fr.tag == AP_TAG_IO)
			ck_assert_int_eq(ops->event(v, &fr), 0);
		off += AP_FRAME_HDR_LEN + fr.len;
	}
	f = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, f), 0);
	fclose(f);
	ops->free(v);
	return out;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

START_TEST(test_view_json)
{
	struct ap_report_opts o = { .format = AP_FMT_JSON };
	char *out = render(&o);

	ck_assert_ptr_nonnull(strstr(out, "\"calls\": 18, \"errors\": 1"));
	ck_assert_ptr_nonnull(strstr(out,
		"{\"resource\": \"pipe:[500]\", \"type\": \"pipe\", \"dir\": \"write\", \"pid\": 10, \"comm\": \"writer\", \"bytes\": 2500, \"calls\": 3, \"errors\": 0, \"partial\": 0, \"ino\": 500, \"syscalls\": [\"write\", \"writev\"]}"));
	ck_assert_ptr_nonnull(strstr(out,
		"\"dir\": \"read\", \"pid\": 11, \"comm\": \"reader\", \"bytes\": 2500, \"calls\": 3"));
	/* the failed send counts as a call and an error, not as bytes */
	ck_assert_ptr_nonnull(strstr(out,
		"\"pid\": 10, \"comm\": \"writer\", \"bytes\": 700, \"calls\": 2, \"errors\": 1"));
	/* one row for the file: the path was remembered */
	ck_assert_int_eq(count_of(out, "\"resource\": \"/tmp/f\""), 2);
	ck_assert_ptr_nonnull(strstr(out,
		"\"resource\": \"/tmp/f\", \"type\": \"file\", \"dir\": \"write\", \"pid\": 12, \"comm\": \"other\", \"bytes\": 150, \"calls\": 3"));
	ck_assert_ptr_null(strstr(out, "file dev"));

	/* four pairs: pipe, tcp, v4-mapped tcp (reverse), unix */
	ck_assert_int_eq(count_of(out, "\"writer\": "), 4);
	ck_assert_ptr_nonnull(strstr(out,
		"{\"via\": \"pipe:[500]\", \"reader_via\": \"pipe:[500]\", \"type\": \"pipe\", \"writer\": {\"pid\": 10, \"comm\": \"writer\"}, \"reader\": {\"pid\": 11, \"comm\": \"reader\"}, \"written\": 2500, \"read\": 2500}"));
	ck_assert_ptr_nonnull(strstr(out,
		"{\"via\": \"tcp 127.0.0.1:5000 -> 127.0.0.1:40000\", \"reader_via\": \"tcp 127.0.0.1:40000 -> 127.0.0.1:5000\", \"type\": \"socket\", \"writer\": {\"pid\": 10, \"comm\": \"writer\"}, \"reader\": {\"pid\": 11, \"comm\": \"reader\"}, \"written\": 700, \"read\": 700}"));
	ck_assert_ptr_nonnull(strstr(out,
		"\"writer\": {\"pid\": 11, \"comm\": \"reader\"}, \"reader\": {\"pid\": 10, \"comm\": \"writer\"}, \"written\": 33, \"read\": 33}"));
	ck_assert_ptr_nonnull(strstr(out,
		"{\"via\": \"unix stream socket:[700]\", \"reader_via\": \"unix stream socket:[701]\""));
	ck_assert_ptr_null(strstr(out, "\"via\": \"tcp 10.0.0.2"));
	free(out);
}
END_TEST

START_TEST(test_view_table)
{
	struct ap_report_opts o = { .format = AP_FMT_TABLE };
	char *out = render(&o);
	const char *first;

	ck_assert_ptr_nonnull(strstr(out, "# I/O: 18 calls (1 failed)"));
	ck_assert_ptr_nonnull(strstr(out, "# Pairs: writer -> reader"));
	ck_assert_ptr_nonnull(strstr(out, "writer[10]"));
	ck_assert_ptr_nonnull(strstr(out, "-> reader[11]"));
	/* sorted by bytes: the pipe rows first */
	first = strstr(out, "#\n  ");
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_nonnull(strstr(first, "2500"));
	ck_assert(strstr(first, "2500") < strstr(first, "700"));
	free(out);
}
END_TEST

START_TEST(test_view_folded)
{
	struct ap_report_opts o = { .format = AP_FMT_FOLDED };
	char *out = render(&o);

	ck_assert_ptr_nonnull(strstr(out, "other;write;file;/tmp/f 150\n"));
	ck_assert_ptr_nonnull(strstr(out, "writer;write;pipe;pipe:[500] 2500\n"));
	/* a read that moved nothing makes no line; nor does an error */
	ck_assert_int_eq(count_of(out, "\n"), 11);
	free(out);
}
END_TEST

START_TEST(test_view_filter_and_threads)
{
	struct ap_report_opts o = { .format = AP_FMT_JSON, .nr_pids = 1,
				    .pids = { 12 }, .per_thread = 1 };
	char *out = render(&o);

	ck_assert_int_eq(count_of(out, "{\"resource\": "), 2);
	ck_assert_ptr_nonnull(strstr(out, "\"pid\": 12, \"tid\": 12"));
	ck_assert_ptr_null(strstr(out, "\"pid\": 10"));
	ck_assert_int_eq(count_of(out, "\"writer\": "), 0);
	free(out);
}
END_TEST

START_TEST(test_view_limit)
{
	struct ap_report_opts o = { .format = AP_FMT_JSON, .limit = 2 };
	char *out = render(&o);

	ck_assert_int_eq(count_of(out, "{\"resource\": "), 2);
	free(out);
}
END_TEST

START_TEST(test_view_bad_frame)
{
	const struct ap_view_ops *ops = ap_view__find("io");
	struct ap_report_opts o = { 0 };
	uint8_t junk[10] = { 0 };
	struct ap_frame f = { AP_TAG_IO, sizeof(junk), junk };
	void *v = ops->new(&o, sess);

	ck_assert_int_eq(ops->event(v, &f), -EBADMSG);
	ops->free(v);
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc;

	tc = tcase_create("io__encode_decode");
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_sum_roundtrip);
	tcase_add_test(tc, test_pinned_bytes);
	tcase_add_test(tc, test_short_refused);
	tcase_add_test(tc, test_long_accepted);
	suite_add_tcase(s, tc);

	tc = tcase_create("io_path_join");
	tcase_add_loop_test(tc, test_path_join, 0, NELEM(joins));
	tcase_add_test(tc, test_path_join_small_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("io_kdev");
	tcase_add_test(tc, test_kdev);
	suite_add_tcase(s, tc);

	tc = tcase_create("io_describe");
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_sys_parity);
	suite_add_tcase(s, tc);

	tc = tcase_create("rec_io");
	tcase_add_test(tc, test_recorder_handler);
	suite_add_tcase(s, tc);

	tc = tcase_create("view_io");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_view_json);
	tcase_add_test(tc, test_view_table);
	tcase_add_test(tc, test_view_folded);
	tcase_add_test(tc, test_view_filter_and_threads);
	tcase_add_test(tc, test_view_limit);
	tcase_add_test(tc, test_view_bad_frame);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(io_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
