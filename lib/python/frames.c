// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's Python side: interpreters by process (in the BPF map
 * for the walker), code objects read from the targets, the pyframe ids
 * of the recording, and the merge of the walker's frames into the
 * native chain.  See python.h.
 */
#include "python/python.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <bpf/bpf.h>

#include "format/buf.h"
#include "util/hmap.h"

/* the longest name and location table read from a target */
#define STR_CHARS	1000
#define LINETABLE_MAX	(64 * 1024)
/* code objects kept at once, all processes together: past it the
 * cache starts again (what is still met is read again, new frames in
 * the file for the same names) */
#define CODES_MAX	65536

struct py_code;

struct py_proc {
	struct ap_py_interp in;
	int said;			/* an unknown version, told once */
	struct py_code *codes;		/* its code objects read */
};

/* a line of a code object that has a pyframe id */
struct py_line {
	int line;
	uint32_t id;
};

struct py_code {
	uint32_t pid;
	uint64_t addr;
	uint64_t check;			/* AP_PY_CHECK when it was read */
	uint64_t key;			/* its key in ap_python.codes */
	struct py_code *next;		/* the process's next */
	int first_line;
	char func[AP_PYFRAME_NAME_MAX];
	char *file;
	uint8_t *lt;			/* its location table */
	size_t lt_len;
	struct py_line *lines;		/* the ids of its lines */
	size_t nr_lines;
};

struct ap_python {
	int procs_fd;
	struct ap_hmap procs;		/* pid -> struct py_proc * */
	struct ap_hmap codes;		/* hash(pid, code) -> struct py_code * */
	uint32_t next_id;
	/* a frame whose code object could not be read (its process gone
	 * before record read it, memory changing under the walk): kept in
	 * its place, named "[unknown]" */
	struct py_code unknown;
};

struct ap_python *ap_python__new(void)
{
	struct ap_python *py = calloc(1, sizeof(*py));

	if (!py)
		return NULL;
	py->procs_fd = -1;
	strcpy(py->unknown.func, "[unknown]");
	ap_hmap__init(&py->procs);
	ap_hmap__init(&py->codes);
	return py;
}

static void code_free(struct py_code *c)
{
	free(c->file);
	free(c->lt);
	free(c->lines);
	free(c);
}

/* every code object read, of every process */
static void codes_clear(struct ap_python *py)
{
	size_t i = 0;
	uint64_t k, v;

	while (ap_hmap__next(&py->procs, &i, &k, &v))
		((struct py_proc *)(uintptr_t)v)->codes = NULL;
	i = 0;
	while (ap_hmap__next(&py->codes, &i, &k, &v))
		code_free((struct py_code *)(uintptr_t)v);
	ap_hmap__free(&py->codes);
	ap_hmap__init(&py->codes);
}

void ap_python__free(struct ap_python *py)
{
	size_t i = 0;
	uint64_t k, v;

	if (!py)
		return;
	codes_clear(py);
	while (ap_hmap__next(&py->procs, &i, &k, &v))
		free((void *)(uintptr_t)v);
	ap_hmap__free(&py->procs);
	free(py->unknown.lines);
	free(py);
}

void ap_python__new_window(struct ap_python *py)
{
	size_t i = 0;
	uint64_t k, v;

	if (!py)
		return;
	/* a window's file numbers its frames anew: each line's id is
	 * forgotten, its code object (names, lines) kept */
	while (ap_hmap__next(&py->codes, &i, &k, &v)) {
		struct py_code *c = (struct py_code *)(uintptr_t)v;

		free(c->lines);
		c->lines = NULL;
		c->nr_lines = 0;
	}
	py->next_id = 0;
}

static struct py_proc *find_proc(struct ap_python *py, uint32_t pid)
{
	uint64_t *v = py ? ap_hmap__find(&py->procs, pid) : NULL;

	return v ? (struct py_proc *)(uintptr_t)*v : NULL;
}

static void map_put(struct ap_python *py, uint32_t pid,
		    const struct ap_py_interp *in)
{
	struct ap_py_proc rec = in->lay->walk;

	rec.runtime = in->runtime;
	if (py->procs_fd >= 0)
		bpf_map_update_elem(py->procs_fd, &pid, &rec, BPF_ANY);
}

void ap_python__set_map(struct ap_python *py, int procs_fd)
{
	size_t i = 0;
	uint64_t k, v;

	if (py->procs_fd == procs_fd)
		return;
	py->procs_fd = procs_fd;
	/* the interpreters found before the map was there (-p: the
	 * targets' mappings are read before the sensors load) */
	while (ap_hmap__next(&py->procs, &i, &k, &v)) {
		const struct py_proc *p = (const struct py_proc *)(uintptr_t)v;

		if (p->in.lay)
			map_put(py, (uint32_t)k, &p->in);
	}
}

void ap_python__mapping(struct ap_python *py, uint32_t pid,
			const struct ap_mmap *m)
{
	struct ap_py_interp in;
	struct py_proc *p = find_proc(py, pid);
	char path[AP_PATH_MAX + 32];
	uint64_t bias, *slot;
	int fresh;

	if (!py || !(m->prot & 4 /* PROT_EXEC */) || m->path[0] != '/' ||
	    !ap_py_name_matches(m->path) || (p && p->in.lay))
		return;
	/* the file as the target sees it (another mount namespace) */
	snprintf(path, sizeof(path), "/proc/%u/root%s", pid, m->path);
	if (ap_py_elf_bias(path, m->start, m->pgoff, &bias)) {
		snprintf(path, sizeof(path), "%s", m->path);
		if (ap_py_elf_bias(path, m->start, m->pgoff, &bias))
			return;
	}
	if (ap_py_interp__probe(path, bias, &in) != 1)
		return;
	if (!p) {
		p = calloc(1, sizeof(*p));
		slot = p ? ap_hmap__upsert(&py->procs, pid, &fresh) : NULL;
		if (!slot) {
			free(p);
			return;
		}
		*slot = (uintptr_t)p;
	}
	p->in = in;
	if (!in.lay) {
		unsigned int v = in.version ? in.version :
				 ap_py_name_version(m->path);

		if (!p->said)
			fprintf(stderr, "aperture: python %u.%u%s in %s (pid "
				"%u): no frame layout known for it (3.8 to "
				"3.13), native frames only\n", v >> 8, v & 0xff,
				in.version ? "" : " (by its name)", m->path,
				pid);
		p->said = 1;
		return;
	}
	map_put(py, pid, &in);
}

void ap_python__fork(struct ap_python *py, uint32_t parent, uint32_t child)
{
	struct py_proc *pp = find_proc(py, parent), *p;
	uint64_t *slot;
	int fresh;

	if (!pp || !pp->in.lay || find_proc(py, child))
		return;
	p = calloc(1, sizeof(*p));
	slot = p ? ap_hmap__upsert(&py->procs, child, &fresh) : NULL;
	if (!slot) {
		free(p);
		return;
	}
	p->in = pp->in;
	*slot = (uintptr_t)p;
	map_put(py, child, &p->in);
}

void ap_python__gone(struct ap_python *py, uint32_t pid)
{
	struct py_proc *p = py ? find_proc(py, pid) : NULL;

	if (!p)
		return;
	if (py->procs_fd >= 0)
		bpf_map_delete_elem(py->procs_fd, &pid);
	/* its code objects with it: their frames are in the file, and
	 * a short-lived interpreter a second (a build, a test suite)
	 * would grow record without bound */
	while (p->codes) {
		struct py_code *c = p->codes;

		p->codes = c->next;
		ap_hmap__remove(&py->codes, c->key);
		code_free(c);
	}
	ap_hmap__remove(&py->procs, pid);
	free(p);
}

static int peek(uint32_t pid, uint64_t addr, void *dst, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 :
									-EFAULT;
}

static uint64_t peek_ptr(uint32_t pid, uint64_t addr)
{
	uint64_t v = 0;

	return peek(pid, addr, &v, sizeof(v)) ? 0 : v;
}

static size_t put_utf8(char *o, size_t room, uint32_t c)
{
	if (c >= 0xd800 && c < 0xe000)
		c = 0xfffd;
	if (c < 0x80 && room > 1) {
		o[0] = c;
		return 1;
	}
	if (c < 0x800 && room > 2) {
		o[0] = 0xc0 | c >> 6;
		o[1] = 0x80 | (c & 63);
		return 2;
	}
	if (c < 0x10000 && room > 3) {
		o[0] = 0xe0 | c >> 12;
		o[1] = 0x80 | (c >> 6 & 63);
		o[2] = 0x80 | (c & 63);
		return 3;
	}
	if (c < 0x110000 && room > 4) {
		o[0] = 0xf0 | c >> 18;
		o[1] = 0x80 | (c >> 12 & 63);
		o[2] = 0x80 | (c >> 6 & 63);
		o[3] = 0x80 | (c & 63);
		return 4;
	}
	return 0;
}

/*
 * A str object of the target as UTF-8 in out (cap bytes, NUL ended):
 * compact strings only (every name and file name of a code object is
 * one), cut at STR_CHARS characters or where out is full.
 */
static int read_str(uint32_t pid, const struct ap_py_layout *lay,
		    uint64_t addr, char *out, size_t cap)
{
	static uint8_t raw[STR_CHARS * 4];
	uint64_t hdr[5];
	uint64_t n, data;
	unsigned int state, kind;
	size_t i, o = 0;

	out[0] = 0;
	if (!addr || peek(pid, addr, hdr, sizeof(hdr)))
		return -EFAULT;
	n = hdr[2];			/* length, in characters */
	state = (uint32_t)hdr[4];
	kind = state >> 2 & 7;
	if (!(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL;
	data = addr + (state >> 6 & 1 ? lay->str_ascii : lay->str_compact);
	if (n > STR_CHARS)
		n = STR_CHARS;
	if (peek(pid, data, raw, n * kind))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		uint32_t c;
		size_t w;

		if (kind == 1)
			c = raw[i];
		else if (kind == 2)
			c = raw[2 * i] | raw[2 * i + 1] << 8;
		else
			memcpy(&c, raw + 4 * i, 4);
		w = put_utf8(out + o, cap - o, c);
		if (!w)
			break;
		o += w;
	}
	out[o] = 0;
	return 0;
}

static int read_code(uint32_t pid, const struct ap_py_interp *in,
		     struct py_code *c)
{
	const struct ap_py_layout *lay = in->lay;
	uint64_t qual = peek_ptr(pid, c->addr + lay->walk.co_qualname);
	uint64_t file = peek_ptr(pid, c->addr + lay->walk.co_filename);
	uint64_t lt = peek_ptr(pid, c->addr + lay->co_linetable);
	static char path[AP_PATH_MAX];
	int32_t first = 0;
	int64_t len = 0;

	/* a frame being set up, or memory reused: not a code object, or
	 * not the one the walker saw */
	if (peek_ptr(pid, c->addr + 8) != in->code_type ||
	    peek(pid, c->addr + lay->walk.co_firstlineno, &first,
		 sizeof(first)) ||
	    AP_PY_CHECK(qual, file, (uint32_t)first) != c->check)
		return -EINVAL;
	if (read_str(pid, lay, qual, c->func, sizeof(c->func)) &&
	    read_str(pid, lay, peek_ptr(pid, c->addr + lay->co_name),
		     c->func, sizeof(c->func)))
		return -EFAULT;
	read_str(pid, lay, file, path, sizeof(path));
	c->file = strdup(path);
	if (!c->file)
		return -ENOMEM;
	if (first > 0)
		c->first_line = first;
	/* ob_size of the bytes object: its length */
	if (lt && !peek(pid, lt + 16, &len, sizeof(len)) && len > 0 &&
	    len <= LINETABLE_MAX) {
		c->lt = malloc(len);
		if (c->lt && !peek(pid, lt + lay->bytes_data, c->lt, len))
			c->lt_len = len;
	}
	return 0;
}

static struct py_code *get_code(struct ap_python *py, struct py_proc *p,
				uint32_t pid, uint64_t addr, uint64_t check)
{
	uint64_t h = ap_hash64(addr ^ ap_hash64(pid ^ ap_hash64(check)));
	uint64_t *slot;
	struct py_code *c;
	int fresh;

	/* open addressing on the hash: a collision probes on */
	for (;; h++) {
		if (h == AP_HMAP_EMPTY)
			h = 0;
		slot = ap_hmap__find(&py->codes, h);
		if (!slot)
			break;
		c = (struct py_code *)(uintptr_t)*slot;
		if (c->pid == pid && c->addr == addr && c->check == check)
			return c;
	}
	if (py->codes.nr >= CODES_MAX) {
		codes_clear(py);
		h = ap_hash64(addr ^ ap_hash64(pid ^ ap_hash64(check)));
		if (h == AP_HMAP_EMPTY)
			h = 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	c->addr = addr;
	c->check = check;
	c->key = h;
	/* what is not a code object now may be one later: not kept */
	slot = read_code(pid, &p->in, c) ? NULL :
	       ap_hmap__upsert(&py->codes, h, &fresh);
	if (!slot) {
		code_free(c);
		return NULL;
	}
	*slot = (uintptr_t)c;
	c->next = p->codes;
	p->codes = c;
	return c;
}

void ap_python__code(struct ap_python *py, uint32_t pid, uint64_t code,
		     uint64_t check)
{
	struct py_proc *p = find_proc(py, pid);

	if (p && p->in.lay)
		get_code(py, p, pid, code, check);
}

/* the pyframe id of a code object's line, its frame into b when new */
static uint32_t frame_id(struct ap_python *py, struct py_code *c, int line,
			 struct ap_buf *b)
{
	struct ap_pyframe f;
	struct py_line *nl;
	size_t i;

	/* a code object has few lines that samples hit */
	for (i = 0; i < c->nr_lines; i++)
		if (c->lines[i].line == line)
			return c->lines[i].id;
	if (py->next_id >= AP_PYFRAME_ID_MAX)
		return 0;
	nl = realloc(c->lines, (c->nr_lines + 1) * sizeof(*nl));
	if (!nl)
		return 0;
	c->lines = nl;
	nl[c->nr_lines].line = line;
	nl[c->nr_lines++].id = ++py->next_id;
	memset(&f, 0, sizeof(f));
	f.id = py->next_id;
	f.line = line;
	f.first_line = c->first_line;
	snprintf(f.func, sizeof(f.func), "%s", c->func);
	snprintf(f.file, sizeof(f.file), "%s", c->file ? c->file : "");
	ap_pyframe__encode(&f, b);
	return f.id;
}

/* one walker frame as AP_PYFRAME_IP, or 0 */
static uint64_t py_ip(struct ap_python *py, struct py_proc *p, uint32_t pid,
		      uint64_t raw, uint64_t check, struct ap_buf *b)
{
	const struct ap_py_interp *in = &p->in;
	uint64_t code = (raw & AP_PY_RAW_CODE_MASK) << 4;
	unsigned int idx = raw >> AP_PY_RAW_INSTR_SHIFT & AP_PY_RAW_INSTR_MAX;
	struct py_code *c = get_code(py, p, pid, code, check);
	uint32_t id;
	int line;

	if (!c)
		c = &py->unknown;
	line = c->lt ? ap_py_line(in->lay->lines, c->lt, c->lt_len,
				  c->first_line, idx) : 0;
	id = frame_id(py, c, line, b);
	return id ? AP_PYFRAME_IP(id) : 0;
}

int ap_python__merge(struct ap_python *py, uint32_t pid,
		     const uint64_t *uips, int nu, const uint64_t *pyf,
		     int npy, uint64_t *out, int max, struct ap_buf *b)
{
	struct py_proc *p = py ? find_proc(py, pid) : NULL;
	int i, j = 0, n = 0;

	if (!p || !p->in.lay) {
		npy = 0;
		p = NULL;
	}
	for (i = 0; i < nu && n < max; i++) {
		uint64_t ip = uips[i], at = i ? ip - 1 : ip;

		if (!p || j >= npy || at < p->in.eval_lo ||
		    at >= p->in.eval_hi) {
			out[n++] = ip;
			continue;
		}
		/* the frames this call of the evaluator ran: to the
		 * entry frame, the one it was called for */
		for (; j < npy && n < max; j++) {
			uint64_t raw = pyf[2 * j], f;

			if ((raw & AP_PY_RAW_TAG_MASK) != AP_PY_RAW_TAG)
				break;
			f = py_ip(py, p, pid, raw, pyf[2 * j + 1], b);
			if (f)
				out[n++] = f;
			if (raw & AP_PY_RAW_ENTRY) {
				j++;
				break;
			}
		}
	}
	return n;
}
