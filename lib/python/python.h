/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Python frames in the stacks of CPython interpreters, at record time.
 *
 * detect.c finds an interpreter in a target's mappings (the python3.X
 * executable, or libpython3.X.so that it links), reads its version
 * (Py_Version, 3.11 on; before, its name checked against the
 * PY_VERSION string it holds) and the address of _PyRuntime from the file's
 * symbols, and gives the BPF walker (bpf/python.bpf.h) its version's
 * offsets in ap_py_procs (3.13's from its own _Py_DebugOffsets).
 * frames.c turns the walker's frames (code object, instruction) into
 * names, files and lines, read from the
 * target's memory with process_vm_readv (no ptrace, nothing stopped;
 * every byte hostile: bounded, checked), written once each as pyframe
 * frames, and merges them into the native chain: each
 * _PyEval_EvalFrameDefault frame is replaced by the Python frames it
 * was running.
 */
#ifndef APERTURE_PYTHON_H
#define APERTURE_PYTHON_H

#include <stdint.h>

#include "aperture.h"
#include "format/format.h"

struct ap_buf;

/* what a version's objects look like, beyond what the walker follows */
struct ap_py_layout {
	unsigned int version;		/* major << 8 | minor */
	/* runtime unset; its code offsets (co_qualname, co_filename,
	 * co_firstlineno) serve user space too */
	struct ap_py_proc walk;
	uint16_t co_name;
	uint16_t co_linetable;
	uint16_t lines;			/* its table's kind: AP_PY_LINES_* */
	uint16_t bytes_data;		/* PyBytesObject.ob_sval */
	uint16_t str_ascii;		/* sizeof(PyASCIIObject) */
	uint16_t str_compact;		/* sizeof(PyCompactUnicodeObject) */
};

/* the kinds of a code object's line table */
enum {
	AP_PY_LINES_311,	/* co_linetable, 3.11 on: ap_py_line_311 */
	AP_PY_LINES_310,	/* co_linetable, 3.10: ap_py_line_310 */
	AP_PY_LNOTAB,		/* co_lnotab, 3.8 and 3.9: ap_py_line_lnotab */
};

/* the layout of version (major << 8 | minor), or NULL: not known */
const struct ap_py_layout *ap_py_layout__find(unsigned int version);
/*
 * The layout an interpreter's _Py_DebugOffsets give (CPython 3.13: the
 * first len bytes of its _PyRuntime in img; hex its Py_Version), into
 * *out: 0 when it is the table's for that version, 1 when it differs
 * (a layout of its own, kept for the recording), -ENOENT without the
 * "xdebugpy" cookie, -errno for offsets that cannot be taken (another
 * version, a free-threaded build, a value out of range).
 */
int ap_py_debug_layout(const void *img, size_t len, unsigned int hex,
		       const struct ap_py_layout **out);

/* An interpreter found in a process. */
struct ap_py_interp {
	const struct ap_py_layout *lay;
	uint64_t runtime;		/* _PyRuntime's address */
	uint64_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault's code */
	uint64_t code_type;		/* PyCode_Type: a code object's type */
	unsigned int version;
};

/*
 * Is path (a mapping's, opened as open_path) an interpreter's file, and
 * which?  bias: its load bias in the process (runtime - ELF address).
 * 1 when found (*out filled; out->lay NULL when the version is not
 * known), 0 when the file is no interpreter, -errno.
 */
int ap_py_interp__probe(const char *open_path, uint64_t bias,
			struct ap_py_interp *out);
/* the load bias of a mapping at start of file offset pgoff, from the
 * file's program headers; 0 or -errno */
int ap_py_elf_bias(const char *open_path, uint64_t start, uint64_t pgoff,
		   uint64_t *bias);
/* 1 when a file's name (its basename) may be an interpreter's */
int ap_py_name_matches(const char *path);
/* the version its name says (major << 8 | minor), or 0: for messages
 * only, a file's own Py_Version decides */
unsigned int ap_py_name_version(const char *path);

/* the line of instruction idx (code units) of a code object whose
 * 3.11-style location table is tab[0 .. len), first line first */
int ap_py_line_311(const uint8_t *tab, size_t len, int first, unsigned idx);
/* the same for 3.10's co_linetable (idx: f_lasti, in code units) and
 * 3.8's and 3.9's co_lnotab (idx: f_lasti, in bytes); 0: no line */
int ap_py_line_310(const uint8_t *tab, size_t len, int first, unsigned idx);
int ap_py_line_lnotab(const uint8_t *tab, size_t len, int first,
		      unsigned idx);
/* the line of idx in a table of kind lines (AP_PY_LINES_*) */
int ap_py_line(unsigned int lines, const uint8_t *tab, size_t len, int first,
	       unsigned idx);

/*
 * The recorder's side (frames.c): one per recording.
 */
struct ap_python;

struct ap_python *ap_python__new(void);
void ap_python__free(struct ap_python *py);
/* the BPF map of interpreters by process (ap_py_procs); -1: none */
void ap_python__set_map(struct ap_python *py, int procs_fd);
/* a mapping of pid became known: an interpreter's file is probed; one
 * line on stderr for one whose version is not known */
void ap_python__mapping(struct ap_python *py, uint32_t pid,
			const struct ap_mmap *m);
/* the walker met a code object of pid (AP_EV_PYCODE): read now */
void ap_python__code(struct ap_python *py, uint32_t pid, uint64_t code,
		     uint64_t check);
/* child was forked from parent, whose image it has: its interpreter too
 * (multiprocessing's fork workers) */
void ap_python__fork(struct ap_python *py, uint32_t parent, uint32_t child);
/* pid's image is gone (exec, exit): its interpreter and the code
 * objects read from it with it */
void ap_python__gone(struct ap_python *py, uint32_t pid);
/* a new record file begins (record --switch-output): its pyframe ids
 * number from 1 again, each frame written anew when a stack next has it */
void ap_python__new_window(struct ap_python *py);
/*
 * The user chain uips[0 .. nu) of pid merged with the walker's npy
 * Python frames pyf[0 .. 2 * npy) (two words each) into out (room for
 * max): each _PyEval_EvalFrameDefault frame replaced by the frames it
 * ran, each AP_PYFRAME_IP(id), the pyframe frames of new ids encoded
 * into b.
 * Returns the frames in out.
 */
int ap_python__merge(struct ap_python *py, uint32_t pid,
		     const uint64_t *uips, int nu, const uint64_t *pyf,
		     int npy, uint64_t *out, int max, struct ap_buf *b);

#endif /* APERTURE_PYTHON_H */
