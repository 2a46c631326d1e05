// SPDX-License-Identifier: GPL-2.0
/*
 * Which CPython a file is, where its runtime state lives, and the
 * offsets of its version.  The offsets are CPython's own structs on
 * x86-64, read from a debug build of each version with gdb (ptype /o);
 * the version comes from the file itself (Py_Version), never from its
 * name alone, so that a table is used only for the version it was made
 * for: before 3.11, which has no Py_Version, the name's version must be
 * the PY_VERSION string the file holds ("3.10.13", Py_GetVersion's).
 * 3.13 publishes its offsets itself (_Py_DebugOffsets): they decide.
 */
#include "python/python.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * 3.8 to 3.10: PyFrameObjects from PyThreadState.frame on, f_back to
 * the caller, each frame one call of the evaluator; no co_qualname (the
 * name is co_name); lasti: f_lasti's offset, lines: its table's kind.
 */
#define PY_FRAME_OBJECT(ver, lasti, kind)				\
	{								\
		.version = ver,						\
		.walk = {						\
			.interp_head = 0x20,				\
			.threads_head = 0x08,				\
			.ts_next = 0x08,				\
			.ts_thread_id = 0xb0,				\
			.ts_cframe = AP_PY_NONE,			\
			.cf_frame = 0x18,				\
			.fr_code = 0x20,				\
			.fr_previous = 0x18,				\
			.fr_instr = lasti,				\
			.co_qualname = 0x70,				\
			.co_filename = 0x68,				\
			.co_firstlineno = 0x28,				\
			.fr_object = 1,					\
		},							\
		.co_name = 0x70,					\
		.co_linetable = 0x78,					\
		.lines = kind,						\
		.bytes_data = 0x20,					\
		.str_ascii = 48,					\
		.str_compact = 72,					\
	}

static const struct ap_py_layout layouts[] = {
	PY_FRAME_OBJECT(0x0308, 0x68, AP_PY_LNOTAB),
	PY_FRAME_OBJECT(0x0309, 0x68, AP_PY_LNOTAB),
	/* f_lasti counts code units from 3.10 on */
	PY_FRAME_OBJECT(0x030a, 0x60, AP_PY_LINES_310),
	{
		/* 3.11: frames in the thread's _PyCFrame chain */
		.version = 0x030b,
		.walk = {
			.interp_head = 0x28,
			.threads_head = 0x10,
			.ts_next = 0x08,
			.ts_thread_id = 0x98,
			.ts_cframe = 0x38,
			.cf_frame = 0x08,
			.fr_code = 0x20,
			.fr_previous = 0x30,
			.fr_instr = 0x38,
			.fr_entry = 0x44,
			.co_code = 0xb8,
			.co_qualname = 0x80,
			.co_filename = 0x70,
			.co_firstlineno = 0x48,
		},
		.co_name = 0x78,
		.co_linetable = 0x88,
		.bytes_data = 0x20,
		.str_ascii = 48,
		.str_compact = 72,
	},
	{
		/* 3.12: f_code first; the evaluator's own frames */
		.version = 0x030c,
		.walk = {
			.interp_head = 0x28,
			.threads_head = 0x48,
			.ts_next = 0x08,
			.ts_thread_id = 0x88,
			.ts_cframe = 0x38,
			.cf_frame = 0x00,
			.fr_code = 0x00,
			.fr_previous = 0x08,
			.fr_instr = 0x38,
			.fr_entry = 0x46,
			.co_code = 0xc0,
			.co_qualname = 0x80,
			.co_filename = 0x70,
			.co_firstlineno = 0x44,
			.entry_owner = 1,
		},
		.co_name = 0x78,
		.co_linetable = 0x88,
		.bytes_data = 0x20,
		.str_ascii = 40,
		.str_compact = 56,
	},
	{
		/* 3.13: no _PyCFrame, the frame in the thread state;
		 * f_executable for f_code, instr_ptr for prev_instr */
		.version = 0x030d,
		.walk = {
			.interp_head = 0x278,
			.threads_head = 0x1cb0,
			.ts_next = 0x08,
			.ts_thread_id = 0x98,
			.ts_cframe = AP_PY_NONE,
			.cf_frame = 0x48,
			.fr_code = 0x00,
			.fr_previous = 0x08,
			.fr_instr = 0x38,
			.fr_entry = 0x46,
			.co_code = 0xc8,
			.co_qualname = 0x80,
			.co_filename = 0x70,
			.co_firstlineno = 0x44,
			.entry_owner = 1,
		},
		.co_name = 0x78,
		.co_linetable = 0x88,
		.bytes_data = 0x20,
		.str_ascii = 40,
		.str_compact = 56,
	},
};

/*
 * CPython 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h),
 * the first member of _PyRuntime: the offsets of the fields a tool
 * outside the process follows, as the interpreter was built.  3.14
 * added fields inside its structs: this layout is 3.13's alone.
 */
struct py_debug_313 {
	char cookie[8];			/* "xdebugpy" */
	uint64_t version;		/* PY_VERSION_HEX */
	uint64_t free_threaded;
	struct {
		uint64_t size, finalizing, interpreters_head;
	} runtime_state;
	struct {
		uint64_t size, id, next, threads_head, gc, imports_modules,
			 sysdict, builtins, ceval_gil, gil_runtime_state,
			 gil_runtime_state_enabled, gil_runtime_state_locked,
			 gil_runtime_state_holder;
	} interpreter_state;
	struct {
		uint64_t size, prev, next, interp, current_frame, thread_id,
			 native_thread_id, datastack_chunk, status;
	} thread_state;
	struct {
		uint64_t size, previous, executable, instr_ptr, localsplus,
			 owner;
	} interpreter_frame;
	struct {
		uint64_t size, filename, name, qualname, linetable,
			 firstlineno, argcount, localsplusnames,
			 localspluskinds, co_code_adaptive;
	} code_object;
	struct {
		uint64_t size, ob_type;
	} pyobject;
	struct {
		uint64_t size, tp_name, tp_repr, tp_flags;
	} type_object;
	struct {
		uint64_t size, ob_item, ob_size;
	} tuple_object, list_object;
	struct {
		uint64_t size, ma_keys, ma_values;
	} dict_object;
	struct {
		uint64_t size, ob_fval;
	} float_object;
	struct {
		uint64_t size, lv_tag, ob_digit;
	} long_object;
	struct {
		uint64_t size, ob_size, ob_sval;
	} bytes_object;
	struct {
		uint64_t size, state, length, asciiobject_size;
	} unicode_object;
};

/* the layouts made from interpreters' debug offsets: each kept for the
 * recording (an interpreter's lay points at one), few differ */
static struct ap_py_layout derived[16];
static size_t nr_derived;

/* v, an offset the walker keeps in 16 bits below AP_PY_NONE */
static int off16(uint64_t v, uint16_t *out)
{
	if (v >= AP_PY_NONE)
		return -ERANGE;
	*out = (uint16_t)v;
	return 0;
}

int ap_py_debug_layout(const void *img, size_t len, unsigned int hex,
		       const struct ap_py_layout **out)
{
	const struct ap_py_layout *base = ap_py_layout__find(hex >> 16);
	struct py_debug_313 d;
	struct ap_py_layout l;
	struct ap_py_proc *w = &l.walk;
	size_t i;
	int err = 0;

	*out = NULL;
	if (len < 8 || memcmp(img, "xdebugpy", 8))
		return -ENOENT;
	/* 3.13 alone: the struct changed in 3.14, whose frames have no
	 * layout here either */
	if (hex >> 16 != 0x030d || !base)
		return -EPROTONOSUPPORT;
	if (len < sizeof(d))
		return -EINVAL;
	memcpy(&d, img, sizeof(d));
	/* the runtime's own version, and the object headers the reads of
	 * user space take as given: a free-threaded build's differ */
	if (d.version != hex || d.free_threaded || d.pyobject.ob_type != 8 ||
	    d.unicode_object.length != 16 || d.unicode_object.state != 32 ||
	    d.bytes_object.ob_size != 16)
		return -EINVAL;
	l = *base;
	err |= off16(d.runtime_state.interpreters_head, &w->interp_head);
	err |= off16(d.interpreter_state.threads_head, &w->threads_head);
	err |= off16(d.thread_state.next, &w->ts_next);
	err |= off16(d.thread_state.thread_id, &w->ts_thread_id);
	err |= off16(d.thread_state.current_frame, &w->cf_frame);
	err |= off16(d.interpreter_frame.executable, &w->fr_code);
	err |= off16(d.interpreter_frame.previous, &w->fr_previous);
	err |= off16(d.interpreter_frame.instr_ptr, &w->fr_instr);
	err |= off16(d.interpreter_frame.owner, &w->fr_entry);
	err |= off16(d.code_object.co_code_adaptive, &w->co_code);
	err |= off16(d.code_object.qualname, &w->co_qualname);
	err |= off16(d.code_object.filename, &w->co_filename);
	err |= off16(d.code_object.firstlineno, &w->co_firstlineno);
	err |= off16(d.code_object.name, &l.co_name);
	err |= off16(d.code_object.linetable, &l.co_linetable);
	err |= off16(d.bytes_object.ob_sval, &l.bytes_data);
	err |= off16(d.unicode_object.asciiobject_size, &l.str_ascii);
	if (err)
		return -ERANGE;
	/* PyCompactUnicodeObject: the ASCII header, utf8_length, utf8 */
	l.str_compact = l.str_ascii + 16;
	l.version = hex >> 16;
	if (!memcmp(&l, base, sizeof(l))) {
		*out = base;
		return 0;
	}
	for (i = 0; i < nr_derived; i++)
		if (!memcmp(&l, &derived[i], sizeof(l))) {
			*out = &derived[i];
			return 1;
		}
	if (nr_derived >= sizeof(derived) / sizeof(derived[0]))
		return -ENOSPC;
	derived[nr_derived] = l;
	*out = &derived[nr_derived++];
	return 1;
}

const struct ap_py_layout *ap_py_layout__find(unsigned int version)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == version)
			return &layouts[i];
	return NULL;
}

/* the name after "lib", or NULL: "python3.11" of libpython3.11.so */
static const char *py_name(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	if (!strncmp(b, "lib", 3))
		b += 3;
	return !strncmp(b, "python", 6) && isdigit((unsigned char)b[6]) ?
	       b + 6 : NULL;
}

int ap_py_name_matches(const char *path)
{
	return py_name(path) != NULL;
}

unsigned int ap_py_name_version(const char *path)
{
	const char *v = py_name(path);
	unsigned int major, minor;

	if (!v || sscanf(v, "%u.%u", &major, &minor) != 2 || major > 255 ||
	    minor > 255)
		return 0;
	return major << 8 | minor;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *e;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return e;
}

int ap_py_elf_bias(const char *open_path, uint64_t start, uint64_t pgoff,
		   uint64_t *bias)
{
	GElf_Phdr ph;
	size_t n, i;
	int fd, err = -ENOENT;
	Elf *e = elf_open(open_path, &fd);

	if (!e)
		return -ENOENT;
	if (elf_getphdrnum(e, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pgoff >= (ph.p_offset & ~0xfffull) &&
		    pgoff < ph.p_offset + ph.p_filesz) {
			*bias = start - pgoff - (ph.p_vaddr - ph.p_offset);
			err = 0;
			break;
		}
	}
	elf_end(e);
	close(fd);
	return err;
}

struct syms {
	GElf_Sym runtime, version, eval, code_type;
	int have_runtime, have_version, have_eval, have_code_type;
};

static void find_syms(Elf *e, struct syms *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!nm || (nm[0] != '_' && nm[0] != 'P'))
				continue;
			if (!strcmp(nm, "_PyRuntime")) {
				s->runtime = sym;
				s->have_runtime = 1;
			} else if (!strcmp(nm, "Py_Version")) {
				s->version = sym;
				s->have_version = 1;
			} else if (!strcmp(nm, "_PyEval_EvalFrameDefault")) {
				s->eval = sym;
				s->have_eval = 1;
			} else if (!strcmp(nm, "PyCode_Type")) {
				s->code_type = sym;
				s->have_code_type = 1;
			}
		}
	}
}

/* the len bytes at ELF address addr, from the section holding them
 * (initialised data: what the process starts with) */
static int read_at(Elf *e, uint64_t addr, void *v, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + len > d->d_size)
			return -EINVAL;
		memcpy(v, (const char *)d->d_buf + (addr - sh.sh_addr), len);
		return 0;
	}
	return -ENOENT;
}

/* does a read-only data section of the file hold version (major << 8
 * | minor) as PY_VERSION: "3.10.13", ended by NUL, alone or a string's
 * tail (merged with one that ends so) */
static int holds_version(Elf *e, unsigned int version)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char want[16];
	size_t wl;

	wl = snprintf(want, sizeof(want), "%u.%u.", version >> 8,
		      version & 0xff);
	while ((scn = elf_nextscn(e, scn))) {
		const char *p, *end;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR)) ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		p = d->d_buf;
		end = p + d->d_size;
		while ((p = memmem(p, end - p, want, wl))) {
			const char *q = p + wl;
			int before = p > (const char *)d->d_buf ?
				     (unsigned char)p[-1] : 0;

			p++;
			if (isdigit(before) || before == '.' || q >= end ||
			    !isdigit((unsigned char)*q))
				continue;
			while (q < end && (isalnum((unsigned char)*q) ||
					   *q == '+'))
				q++;
			if (q < end && !*q)
				return 1;
		}
	}
	return 0;
}

int ap_py_interp__probe(const char *open_path, uint64_t bias,
			struct ap_py_interp *out)
{
	struct syms s = { 0 };
	struct py_debug_313 dbg;
	const struct ap_py_layout *lay = NULL;
	uint32_t hex = 0;
	int fd, have_dbg = 0;
	Elf *e = elf_open(open_path, &fd);

	if (!e)
		return -ENOENT;
	find_syms(e, &s);
	memset(out, 0, sizeof(*out));
	if (!s.have_runtime) {
		elf_end(e);
		close(fd);
		return 0;
	}
	/* PY_VERSION_HEX: 0x030b07f0 for 3.11.7 final; before 3.11 there
	 * is no Py_Version: the name's, if the file's PY_VERSION agrees */
	if (s.have_version) {
		if (!read_at(e, s.version.st_value, &hex, sizeof(hex)) &&
		    hex >> 24 == 3)
			out->version = hex >> 16;
		/* 3.13 on: the interpreter's own offsets, where it
		 * publishes them at the start of _PyRuntime */
		have_dbg = out->version >= 0x030d &&
			   !read_at(e, s.runtime.st_value, &dbg, sizeof(dbg));
	} else {
		hex = ap_py_name_version(open_path);
		if (hex && hex < 0x030b && holds_version(e, hex))
			out->version = hex;
	}
	elf_end(e);
	close(fd);
	out->runtime = s.runtime.st_value + bias;
	if (s.have_eval && s.eval.st_size) {
		out->eval_lo = s.eval.st_value + bias;
		out->eval_hi = out->eval_lo + s.eval.st_size;
	}
	if (s.have_code_type)
		out->code_type = s.code_type.st_value + bias;
	lay = ap_py_layout__find(out->version);
	/* where they are, they decide: offsets that cannot be taken are
	 * no layout (a free-threaded build, a version past 3.13) */
	if (have_dbg && ap_py_debug_layout(&dbg, sizeof(dbg), hex, &lay) < 0 &&
	    memcmp(dbg.cookie, "xdebugpy", 8))
		lay = ap_py_layout__find(out->version);
	out->lay = out->eval_hi && out->code_type ? lay : NULL;
	return 1;
}

static unsigned int varint(const uint8_t *t, size_t len, size_t *i)
{
	unsigned int v = 0, shift = 0;
	uint8_t b;

	do {
		if (*i >= len || shift > 28)
			return 0;
		b = t[(*i)++];
		v |= (unsigned int)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int svarint(const uint8_t *t, size_t len, size_t *i)
{
	unsigned int u = varint(t, len, i);

	return u & 1 ? -(int)(u >> 1) : (int)(u >> 1);
}

/*
 * CPython 3.11's location table (Objects/locations.md): entries of a
 * first byte 1CCCCLLL (code C, L + 1 code units) and the bytes its code
 * takes; the line changes by a signed delta in codes 10 to 14, and code
 * 15 ranges have no line.
 */
int ap_py_line_311(const uint8_t *tab, size_t len, int first, unsigned idx)
{
	size_t i = 0;
	unsigned int addr = 0;
	int line = first;

	while (i < len) {
		uint8_t b = tab[i++];
		unsigned int code = (b >> 3) & 15, n = (b & 7) + 1;
		int delta = 0;

		if (!(b & 0x80))
			return 0;	/* not at an entry: a bad table */
		switch (code) {
		case 15:
			break;
		case 14:
			delta = svarint(tab, len, &i);
			varint(tab, len, &i);
			varint(tab, len, &i);
			varint(tab, len, &i);
			break;
		case 13:
			delta = svarint(tab, len, &i);
			break;
		case 12:
		case 11:
		case 10:
			delta = code - 10;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		line += delta;
		if (idx < addr + n)
			return code == 15 ? 0 : line;
		addr += n;
	}
	return 0;
}

/*
 * 3.10's co_linetable (Objects/lnotab_notes.txt): pairs of a byte
 * count and a signed line delta, -128 for bytes of no line; the range
 * that holds byte 2 * idx gives the line.
 */
int ap_py_line_310(const uint8_t *tab, size_t len, int first, unsigned idx)
{
	unsigned long addr = 2ul * idx, end = 0;
	size_t i;
	int line = first, ar_line = -1;

	for (i = 0; i + 1 < len; i += 2) {
		int d = (int8_t)tab[i + 1];

		end += tab[i];
		if (d == -128) {
			ar_line = -1;
		} else {
			line += d;
			ar_line = line;
		}
		if (end > addr)
			return ar_line < 0 ? 0 : ar_line;
	}
	return 0;
}

/*
 * co_lnotab of 3.8 and 3.9: pairs of a byte increment and a signed line
 * increment; the line is the sum of those of the pairs at or before
 * byte idx (PyCode_Addr2Line).
 */
int ap_py_line_lnotab(const uint8_t *tab, size_t len, int first,
		      unsigned idx)
{
	unsigned long addr = 0;
	size_t i;
	int line = first;

	for (i = 0; i + 1 < len; i += 2) {
		addr += tab[i];
		if (addr > idx)
			break;
		line += (int8_t)tab[i + 1];
	}
	return line;
}

int ap_py_line(unsigned int lines, const uint8_t *tab, size_t len, int first,
	       unsigned idx)
{
	switch (lines) {
	case AP_PY_LINES_310:
		return ap_py_line_310(tab, len, first, idx);
	case AP_PY_LNOTAB:
		return ap_py_line_lnotab(tab, len, first, idx);
	default:
		return ap_py_line_311(tab, len, first, idx);
	}
}
