// SPDX-License-Identifier: GPL-2.0
#include "unwind/cfi.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* rows of one file at most: python3 has 65,000; a file claiming far more
 * is not worth the memory it would take (8 bytes a row in the kernel) */
#define MAX_ROWS	(1u << 22)

/* DWARF register numbers of x86-64 */
#define REG_RBX		3
#define REG_RBP		6
#define REG_RSP		7
#define REG_RA		16

void ap_cfi_table__free(struct ap_cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* a row for the rule (kind, off, rbp) from pc on; an offset that no
 * 16-bit field holds, even in units of 8, makes the row BAD */
static int push_row(struct ap_cfi_table *t, uint64_t pc, uint8_t kind,
		    int32_t off, int8_t rbp)
{
	struct ap_cfi_row *last = t->nr ? &t->rows[t->nr - 1] : NULL;
	struct ap_cfi_row row = { (uint32_t)pc, kind, rbp, 0 };

	if (pc > UINT32_MAX)
		return -E2BIG;
	if (off >= INT16_MIN && off <= INT16_MAX) {
		row.off = (int16_t)off;
	} else if (!(off % 8) && off / 8 >= INT16_MIN && off / 8 <= INT16_MAX) {
		row.off = (int16_t)(off / 8);
		row.kind |= AP_CFI_SCALED;
	} else {
		row.kind = AP_CFI_BAD;
		row.rbp = 0;
		t->bad++;
	}
	/* the same rule goes on: one row covers both */
	if (last && last->kind == row.kind && last->off == row.off &&
	    last->rbp == row.rbp)
		return 0;
	/* a later row at the same pc (an empty range) replaces it */
	if (last && last->pc == pc) {
		*last = row;
		return 0;
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct ap_cfi_row *v;

		if (t->nr >= MAX_ROWS)
			return -E2BIG;
		v = realloc(t->rows, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->rows = v;
		t->cap = cap;
	}
	t->rows[t->nr++] = row;
	return 0;
}

/* "CFA + N" as libdw gives a register rule offset(N) */
static int cfa_offset(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 0;
	}
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 0;
	}
	return -1;
}

/* the address a DW_CFA_expression rule gives: "rsp + N" */
static int rsp_expr(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	/* libdw pushes the CFA first for DW_CFA_expression */
	if (n && ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		n--;
	}
	if (n == 1 && ops[0].atom == DW_OP_breg7) {
		*off = (int64_t)ops[0].number;
		return 0;
	}
	return -1;
}

/* the .plt rule: rsp + 8 + ((rip & 15) >= K) << 3 */
static int plt_rule(const Dwarf_Op *o, size_t n, int32_t *k)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[0].number != 8 ||
	    o[1].atom != DW_OP_breg16 || o[1].number != 0 ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit15 ||
	    o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return -1;
	*k = o[4].atom - DW_OP_lit0;
	return 0;
}

/* where the frame state f saved the caller's rbx: AP_CFI_RBX_* k */
static uint8_t rbx_rule(Dwarf_Frame *f)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t v;

	if (dwarf_frame_register(f, REG_RBX, mem, &ops, &n))
		return AP_CFI_RBX_LOST;
	if (!n)
		return 0;	/* same value, or undefined */
	if (cfa_offset(ops, n, &v) || v % 8 || v > -16 || v < -56)
		return AP_CFI_RBX_LOST;
	return (uint8_t)(-v / 8);
}

/* one frame state as a row: kind (with the rbx rule), off and rbp */
static uint8_t classify(Dwarf_Frame *f, int32_t *off, int8_t *rbp)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t v, ra;
	bool signalp = false;

	*off = 0;
	*rbp = 0;
	if (dwarf_frame_info(f, NULL, NULL, &signalp) != REG_RA)
		return AP_CFI_BAD;
	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return AP_CFI_BAD;
	if (signalp) {
		int64_t rip, bp;

		/* glibc's __restore_rt: CFA = *(rsp + X), the registers in
		 * the sigcontext at rsp, rip at X + 8 and rbp at X - 40 */
		if (n != 2 || ops[0].atom != DW_OP_breg7 ||
		    ops[1].atom != DW_OP_deref)
			return AP_CFI_BAD;
		v = (int64_t)ops[0].number;
		if (dwarf_frame_register(f, REG_RA, mem, &ops, &n) ||
		    rsp_expr(ops, n, &rip) ||
		    dwarf_frame_register(f, REG_RBP, mem, &ops, &n) ||
		    rsp_expr(ops, n, &bp) || rip != v + 8 || bp != v - 40 ||
		    v < 40 || v > INT32_MAX - 8)
			return AP_CFI_BAD;
		*off = (int32_t)v;
		return AP_CFI_SIGNAL;
	}

	uint8_t kind;

	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == REG_RSP || ops[0].number == REG_RBP ||
	     ops[0].number == REG_RBX)) {
		v = (int64_t)ops[0].number2;
		if (v < INT32_MIN || v > INT32_MAX)
			return AP_CFI_BAD;
		kind = ops[0].number == REG_RSP ? AP_CFI_RSP :
		       ops[0].number == REG_RBP ? AP_CFI_RBP : AP_CFI_RBX;
		*off = (int32_t)v;
	} else if (!plt_rule(ops, n, off)) {
		kind = AP_CFI_PLT;
	} else {
		return AP_CFI_BAD;
	}

	if (dwarf_frame_register(f, REG_RA, mem, &ops, &n))
		return AP_CFI_BAD;
	if (!n && ops == mem)
		return AP_CFI_END;	/* return address undefined */
	if (cfa_offset(ops, n, &ra) || ra != -8)
		return AP_CFI_BAD;

	if (dwarf_frame_register(f, REG_RBP, mem, &ops, &n))
		return AP_CFI_BAD;
	if (n) {
		/* saved at CFA + v: anything else leaves rbp as it is,
		 * which only matters to a caller whose CFA is rbp-based */
		if (!cfa_offset(ops, n, &v) && !(v % 8) && v / 8 >= INT8_MIN &&
		    v / 8 <= INT8_MAX)
			*rbp = (int8_t)(v / 8);
	}
	return kind | rbx_rule(f) << AP_CFI_RBX_SHIFT;
}

/* rows for the code from start on, up to limit or the end of its FDE */
static int compile_fde(Dwarf_CFI *cfi, uint64_t start, uint64_t limit,
		       struct ap_cfi_table *t)
{
	uint64_t pc = start;
	int err = 0;

	t->fdes++;
	while (pc < limit) {
		Dwarf_Addr lo, hi;
		Dwarf_Frame *f;
		int32_t off;
		int8_t rbp;
		uint8_t kind;

		if (dwarf_cfi_addrframe(cfi, pc, &f))
			break;
		if (dwarf_frame_info(f, &lo, &hi, NULL) < 0 || hi <= pc) {
			free(f);
			break;
		}
		kind = classify(f, &off, &rbp);
		free(f);
		if (kind == AP_CFI_BAD) {
			off = 0;
			rbp = 0;
			t->bad++;
		}
		err = push_row(t, pc, kind, off, rbp);
		if (err)
			return err;
		pc = hi;
	}
	/* past the FDE: nothing known until the next one */
	if (pc < limit || limit == UINT64_MAX)
		err = push_row(t, pc, AP_CFI_NONE, 0, 0);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* until: CLOCK_MONOTONIC ns past which the compile stops, 0 for none (a
 * big file takes seconds on a busy machine, and a recording's end must
 * not wait for it) */
static int compile_starts(Dwarf_CFI *cfi, uint64_t *starts, size_t n,
			  struct ap_cfi_table *t, uint64_t until)
{
	size_t i;
	int err;

	qsort(starts, n, sizeof(*starts), cmp_u64);
	for (i = 0; i < n; i++) {
		if (until && !(i & 63) && mono_ns() >= until)
			return -ETIME;
		if (i + 1 < n && starts[i + 1] == starts[i])
			continue;
		err = compile_fde(cfi, starts[i],
				  i + 1 < n ? starts[i + 1] : UINT64_MAX, t);
		if (err)
			return err;
	}
	return t->nr ? 0 : -ENOENT;
}

/* FDE start addresses from .eh_frame_hdr's binary search table */
static int eh_frame_hdr_starts(struct Elf *elf, uint64_t **out, size_t *nr)
{
	size_t phnum, i;
	GElf_Phdr ph;
	const uint8_t *d = NULL;
	uint64_t vaddr = 0, size = 0, n;
	uint64_t *v;
	Elf_Data *data;
	size_t pos;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ELF_T_BYTE);
		if (!data)
			return -ENOENT;
		d = data->d_buf;
		size = data->d_size;
		vaddr = ph.p_vaddr;
		break;
	}
	/* version 1; count as udata4; table as datarel sdata4 (what every
	 * x86-64 linker writes) */
	if (!d || size < 12 || d[0] != 1 || d[2] != DW_EH_PE_udata4 ||
	    d[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOENT;
	/* the 4-byte header, eh_frame_ptr, the count, then the table */
	switch (d[1] & 0x0f) {
	case DW_EH_PE_sdata4:
	case DW_EH_PE_udata4:
		pos = 4 + 4;
		break;
	case DW_EH_PE_absptr:
	case DW_EH_PE_sdata8:
	case DW_EH_PE_udata8:
		pos = 4 + 8;
		break;
	default:
		return -ENOENT;
	}
	if (size < pos + 4)
		return -ENOENT;
	{
		uint32_t cnt;

		memcpy(&cnt, d + pos, 4);
		n = cnt;
		pos += 4;
	}
	if (n > (size - pos) / 8)
		return -ENOENT;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int32_t loc;

		memcpy(&loc, d + pos + 8 * i, 4);
		v[i] = vaddr + (int64_t)loc;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* the data of elf's .debug_frame, decompressed in place where the file
 * holds it compressed: SHF_COMPRESSED (Go's linker does it by default,
 * objcopy --compress-debug-sections, ld --compress-debug-sections) or a
 * legacy .zdebug_frame; libdw reads the section as it is left here */
static Elf_Data *debug_frame_data(struct Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".debug_frame")) {
			if ((sh.sh_flags & SHF_COMPRESSED) &&
			    elf_compress(scn, 0, 0) < 0)
				return NULL;
			return elf_getdata(scn, NULL);
		}
		if (!strcmp(name, ".zdebug_frame")) {
			if (elf_compress_gnu(scn, 0, 0) < 0)
				return NULL;
			return elf_getdata(scn, NULL);
		}
	}
	return NULL;
}

/* FDE start addresses of .debug_frame data (absolute addresses) */
static int debug_frame_starts(const GElf_Ehdr *eh, Elf_Data *data,
			      uint64_t **out, size_t *nr)
{
	size_t cap = 0, n = 0;
	uint64_t *v = NULL;
	Dwarf_Off off = 0, next = 0;

	for (;;) {
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi(eh->e_ident, data, false, off, &next, &e);

		if (r > 0)
			break;
		/* an entry that does not parse is skipped by its length;
		 * one that gives no way forward ends the section (garbage,
		 * or compressed bytes, looped here for ever) */
		if (r < 0 && (next == (Dwarf_Off)-1 || next <= off))
			break;
		off = next;
		if (r < 0)
			continue;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (n == cap) {
			uint64_t *w;

			cap = cap ? cap * 2 : 256;
			w = realloc(v, cap * sizeof(*v));
			if (!w) {
				free(v);
				return -ENOMEM;
			}
			v = w;
		}
		memcpy(&v[n++], e.fde.start, sizeof(uint64_t));
	}
	*out = v;
	*nr = n;
	return n ? 0 : -ENOENT;
}

static int compile_eh_frame(struct Elf *elf, struct ap_cfi_table *t,
			    uint64_t until)
{
	uint64_t *starts = NULL;
	Dwarf_CFI *cfi;
	size_t n = 0;
	int err;

	err = eh_frame_hdr_starts(elf, &starts, &n);
	if (err)
		return err;
	cfi = dwarf_getcfi_elf(elf);
	err = cfi ? compile_starts(cfi, starts, n, t, until) : -ENOENT;
	if (cfi)
		dwarf_cfi_end(cfi);
	free(starts);
	return err;
}

/*
 * An ELF image in memory that holds only data, elf's .debug_frame, for
 * libdw to open as the file's DWARF: dwarf_begin_elf on the file itself
 * reads, and inflates when compressed, every debug section (66 ms for a
 * 2 MB Go program, half a second for a 4 MB compressed debug file, and
 * the memory), where the rules need only this one.  x86-64: ELF64, LSB.
 */
static char *frame_image(const GElf_Ehdr *src, const Elf_Data *data,
			 size_t *size)
{
	static const char names[] = "\0.debug_frame\0.shstrtab";
	size_t data_off = (sizeof(Elf64_Ehdr) + sizeof(names) + 7) & ~7ul;
	size_t sh_off;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	char *img;

	if (src->e_ident[EI_CLASS] != ELFCLASS64 ||
	    src->e_ident[EI_DATA] != ELFDATA2LSB ||
	    data->d_size > SIZE_MAX / 2)
		return NULL;
	sh_off = (data_off + data->d_size + 7) & ~7ul;
	*size = sh_off + 3 * sizeof(*sh);
	img = calloc(1, *size);
	if (!img)
		return NULL;
	eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, src->e_ident, EI_NIDENT);
	eh->e_type = src->e_type;
	eh->e_machine = src->e_machine;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shoff = sh_off;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 3;
	eh->e_shstrndx = 2;
	memcpy(img + sizeof(*eh), names, sizeof(names));
	memcpy(img + data_off, data->d_buf, data->d_size);
	sh = (Elf64_Shdr *)(img + sh_off);
	sh[1].sh_name = 1;			/* .debug_frame */
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_offset = data_off;
	sh[1].sh_size = data->d_size;
	sh[1].sh_addralign = 8;
	sh[2].sh_name = 14;			/* .shstrtab */
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = sizeof(*eh);
	sh[2].sh_size = sizeof(names);
	sh[2].sh_addralign = 1;
	return img;
}

static int compile_debug_frame(struct Elf *elf, struct ap_cfi_table *t,
			       uint64_t until)
{
	uint64_t *starts = NULL;
	Dwarf_CFI *cfi = NULL;
	Dwarf *dw = NULL;
	Elf_Data *data;
	Elf *img_elf = NULL;
	GElf_Ehdr eh;
	char *img = NULL;
	size_t n = 0, size;
	int err;

	ap_cfi_table__free(t);
	if (!gelf_getehdr(elf, &eh))
		return -ENOENT;
	data = debug_frame_data(elf);
	if (!data || !data->d_buf)
		return -ENOENT;
	err = debug_frame_starts(&eh, data, &starts, &n);
	if (err)
		return err;
	img = frame_image(&eh, data, &size);
	img_elf = img ? elf_memory(img, size) : NULL;
	dw = img_elf ? dwarf_begin_elf(img_elf, DWARF_C_READ, NULL) : NULL;
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	err = cfi ? compile_starts(cfi, starts, n, t, until) : -ENOENT;
	dwarf_end(dw);		/* owns the .debug_frame CFI */
	elf_end(img_elf);
	free(img);
	free(starts);
	if (err)
		ap_cfi_table__free(t);
	return err;
}

int ap_cfi__compile_debug_frame_by(struct Elf *elf, struct ap_cfi_table *t,
				   uint64_t until_ns)
{
	return compile_debug_frame(elf, t, until_ns);
}

int ap_cfi__compile_debug_frame(struct Elf *elf, struct ap_cfi_table *t)
{
	return compile_debug_frame(elf, t, 0);
}

int ap_cfi__compile_by(struct Elf *elf, struct ap_cfi_table *t,
		       uint64_t until_ns)
{
	struct ap_cfi_table dt = { 0 };
	int err;

	ap_cfi_table__free(t);
	err = compile_eh_frame(elf, t, until_ns);
	if (err && err != -ETIME) {
		ap_cfi_table__free(t);
		err = compile_debug_frame(elf, t, until_ns);
		if (err == -ETIME)
			ap_cfi_table__free(t);
		return err;
	}
	if (err == -ETIME) {
		ap_cfi_table__free(t);
		return err;
	}
	/* a file built -fno-asynchronous-unwind-tables -g has .eh_frame for
	 * the C runtime's start files only, its own rules in .debug_frame */
	err = compile_debug_frame(elf, &dt, until_ns);
	if (!err)
		ap_cfi_table__fill(t, &dt);
	ap_cfi_table__free(&dt);
	if (err == -ETIME) {
		ap_cfi_table__free(t);
		return err;
	}
	return 0;
}

int ap_cfi__compile(struct Elf *elf, struct ap_cfi_table *t)
{
	return ap_cfi__compile_by(elf, t, 0);
}

/* the rule of tab at pc from row i on (i advanced); NONE before the first */
static const struct ap_cfi_row *rule_at(const struct ap_cfi_table *tab,
					size_t *i, uint64_t pc)
{
	static const struct ap_cfi_row none = { 0, AP_CFI_NONE, 0, 0 };

	while (*i < tab->nr && tab->rows[*i].pc <= pc)
		(*i)++;
	return *i ? &tab->rows[*i - 1] : &none;
}

int ap_cfi_table__fill(struct ap_cfi_table *t, const struct ap_cfi_table *more)
{
	struct ap_cfi_table out = { 0 };
	size_t i = 0, j = 0, a = 0, b = 0;
	int err = 0;

	out.fdes = t->fdes + more->fdes;
	/* every row start of either table is where the rule may change */
	while (!err && (i < t->nr || j < more->nr)) {
		uint64_t pc;
		const struct ap_cfi_row *r;

		if (j >= more->nr || (i < t->nr && t->rows[i].pc <= more->rows[j].pc))
			pc = t->rows[i].pc;
		else
			pc = more->rows[j].pc;
		while (i < t->nr && t->rows[i].pc == pc)
			i++;
		while (j < more->nr && more->rows[j].pc == pc)
			j++;
		r = rule_at(t, &a, pc);
		if (ap_cfi_row__kind(r) == AP_CFI_NONE)
			r = rule_at(more, &b, pc);
		if (ap_cfi_row__kind(r) == AP_CFI_BAD)
			out.bad++;
		err = push_row(&out, pc, r->kind, r->off, r->rbp);
	}
	if (err) {
		ap_cfi_table__free(&out);
		return err;
	}
	ap_cfi_table__free(t);
	*t = out;
	return 0;
}

int ap_cfi__compile_path(const char *path, struct ap_cfi_table *t)
{
	struct stat st;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	err = ap_cfi__compile(elf, t);
	elf_end(elf);
	close(fd);
	return err;
}

const struct ap_cfi_row *ap_cfi__lookup(const struct ap_cfi_table *t,
					uint64_t pc)
{
	size_t lo = 0, hi = t->nr;

	/* the same search as bpf/unwind.bpf.h: the last row at or below pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}
