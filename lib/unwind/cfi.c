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

/*
 * The rows of most FDEs without libdw's frame-state calls: each call
 * finds the FDE again, runs its program from the start up to the pc
 * asked for and allocates the state (1.8 s for cc1plus's 518,000 rows,
 * the window in which a compiler just exec'd had no table).  Here each
 * program runs once, for the four rules a row holds (CFA, return
 * address, rbp, rbx).  A program with anything else that could touch
 * them (expressions, DW_CFA_register, val_ rules, set_loc, a signal
 * frame, an unknown op) is left to libdw, row by row as before; tests
 * compare both on whole system files (tests/unit/test_cfi.c).
 */
enum { R_UNSPEC, R_UNDEF, R_SAME, R_OFFSET };

int ap_cfi_libdw_only;

struct fast_rule {
	uint8_t how;
	int64_t off;
};

struct fast_state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	int cfa_set;
	struct fast_rule ra, bp, bx;
};

struct fast_cie {
	uint64_t off;			/* in the section */
	const uint8_t *ins, *ins_end;	/* initial instructions */
	uint64_t caf;
	int64_t daf;
	uint8_t fde_enc;		/* DW_EH_PE_* of an FDE's addresses */
	uint8_t ok;			/* understood; else libdw's */
	uint8_t zaug;			/* FDEs carry augmentation data */
};

struct fast_fde {
	uint64_t loc, end;
	uint64_t addr;			/* of the entry, as .eh_frame_hdr says */
	const uint8_t *ins, *ins_end;
	uint32_t cie;			/* index in fast_cfi.cies */
	uint32_t dup;			/* another FDE starts at loc */
};

struct fast_cfi {
	struct fast_cie *cies;
	size_t ncies;
	struct fast_fde *fdes;		/* sorted by loc */
	size_t nfdes;
};

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static int read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t r = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				r |= ~0ull << shift;
			*v = (int64_t)r;
			return 0;
		}
	}
	return -1;
}

/* an encoded address at *p (pcrel from vaddr, the address of *p) */
static int read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc,
			uint64_t vaddr, uint64_t *v)
{
	uint64_t u = 0;
	size_t n;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		n = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		n = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		n = 2;
		break;
	default:
		return -1;
	}
	if ((size_t)(end - *p) < n)
		return -1;
	memcpy(&u, *p, n);
	if ((enc & 0x0f) == DW_EH_PE_sdata4)
		u = (uint64_t)(int64_t)(int32_t)u;
	else if ((enc & 0x0f) == DW_EH_PE_sdata2)
		u = (uint64_t)(int64_t)(int16_t)u;
	*p += n;
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		u += vaddr;
		break;
	default:
		return -1;
	}
	if (enc & DW_EH_PE_indirect)
		return -1;
	*v = u;
	return 0;
}

static void fast_cie_parse(struct fast_cie *c, const Dwarf_CIE *e)
{
	const uint8_t *a = e->augmentation_data;
	const uint8_t *end = a ? a + e->augmentation_data_size : NULL;
	const char *s = e->augmentation;
	uint64_t skip;

	c->ins = e->initial_instructions;
	c->ins_end = e->initial_instructions_end;
	c->caf = e->code_alignment_factor;
	c->daf = e->data_alignment_factor;
	c->fde_enc = DW_EH_PE_absptr;
	c->ok = 0;
	c->zaug = 0;
	/* x86-64's are 1 and -8: a file's own, hostile or not, that could
	 * overflow what is multiplied by them is libdw's to read */
	if (e->return_address_register != REG_RA || !s || !c->caf ||
	    c->caf > 16 || c->daf < -16 || c->daf > 16)
		return;
	if (!*s) {
		c->ok = 1;
		return;
	}
	if (*s++ != 'z' || !a)
		return;
	c->zaug = 1;
	for (; *s; s++) {
		switch (*s) {
		case 'L':
			if (a >= end)
				return;
			a++;
			break;
		case 'R':
			if (a >= end)
				return;
			c->fde_enc = *a++;
			break;
		case 'P': {
			uint8_t enc;

			if (a >= end)
				return;
			enc = *a++ & ~DW_EH_PE_indirect;
			if (read_encoded(&a, end, enc & 0x0f, 0, &skip))
				return;
			break;
		}
		default:	/* 'S' (a signal frame) and what is unknown */
			return;
		}
	}
	c->ok = 1;
}

static int cmp_fast_fde(const void *a, const void *b)
{
	const struct fast_fde *x = a, *y = b;

	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static void fast_cfi_free(struct fast_cfi *f)
{
	free(f->cies);
	free(f->fdes);
	memset(f, 0, sizeof(*f));
}

static struct fast_cie *fast_cie_at(struct fast_cfi *f, uint64_t off)
{
	size_t lo = 0, hi = f->ncies;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->cies[mid].off == off)
			return &f->cies[mid];
		if (f->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_fast_addr(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	const struct fast_fde *e = elem;

	return k < e->addr ? -1 : k > e->addr;
}

/*
 * The FDEs of elf's .eh_frame that fast_fde_rows may take, by the start
 * addresses (locs) and FDE addresses (addrs) of .eh_frame_hdr's table,
 * the entries libdw finds by: an entry the table names that does not
 * parse here, or whose start is not the table's, is left out (libdw's).
 * An empty set when the section is not found or does not parse.
 */
static void fast_cfi_load(struct Elf *elf, const uint64_t *locs,
			  const uint64_t *addrs, size_t n, struct fast_cfi *f)
{
	size_t shstrndx, cap_c = 0, cap_f = 0, nents = 0, i;
	struct fast_fde *ents = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Dwarf_Off off = 0, next = 0;

	memset(f, 0, sizeof(*f));
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame")) {
			data = elf_rawdata(scn, NULL);
			break;
		}
	}
	if (!data || !data->d_buf || !data->d_size)
		return;
	for (;;) {
		const uint8_t *base = data->d_buf, *p, *end;
		Dwarf_CFI_Entry e;
		Dwarf_Off here = off;
		struct fast_cie *c;
		uint64_t loc, range, alen;
		int r = dwarf_next_cfi(eh.e_ident, data, true, off, &next, &e);

		if (r > 0 || (r < 0 && (next == (Dwarf_Off)-1 || next <= off)))
			break;
		off = next;
		if (r < 0)
			continue;
		if (dwarf_cfi_cie_p(&e)) {
			if (f->ncies == cap_c) {
				void *v;

				cap_c = cap_c ? cap_c * 2 : 16;
				v = realloc(f->cies, cap_c * sizeof(*f->cies));
				if (!v)
					goto fail;
				f->cies = v;
			}
			f->cies[f->ncies].off = here;
			fast_cie_parse(&f->cies[f->ncies++], &e.cie);
			continue;
		}
		c = fast_cie_at(f, e.fde.CIE_pointer);
		p = e.fde.start;
		end = e.fde.end;
		if (!c || !c->ok ||
		    read_encoded(&p, end, c->fde_enc,
				 sh.sh_addr + (uint64_t)(p - base), &loc) ||
		    read_encoded(&p, end, c->fde_enc & 0x0f, 0, &range) ||
		    loc + range < loc)
			continue;
		if (c->zaug) {
			if (read_uleb(&p, end, &alen) ||
			    alen > (uint64_t)(end - p))
				continue;
			p += alen;
		}
		if (nents == cap_f) {
			void *v;

			cap_f = cap_f ? cap_f * 2 : 1024;
			v = realloc(ents, cap_f * sizeof(*ents));
			if (!v)
				goto fail;
			ents = v;
		}
		/* in the section's order: sorted by address */
		ents[nents++] = (struct fast_fde){
			.loc = loc, .end = loc + range,
			.addr = sh.sh_addr + here, .ins = p, .ins_end = end,
			.cie = (uint32_t)(c - f->cies),
		};
	}
	f->fdes = malloc((n ? n : 1) * sizeof(*f->fdes));
	if (!f->fdes)
		goto fail;
	for (i = 0; i < n; i++) {
		const struct fast_fde *d = nents ?
			bsearch(&addrs[i], ents, nents, sizeof(*ents),
				cmp_fast_addr) : NULL;

		if (d && d->loc == locs[i])
			f->fdes[f->nfdes++] = *d;
	}
	free(ents);
	qsort(f->fdes, f->nfdes, sizeof(*f->fdes), cmp_fast_fde);
	for (i = 1; i < f->nfdes; i++)
		if (f->fdes[i].loc == f->fdes[i - 1].loc)
			f->fdes[i].dup = f->fdes[i - 1].dup = 1;
	return;
fail:
	free(ents);
	fast_cfi_free(f);
}

static const struct fast_fde *fast_fde_at(const struct fast_cfi *f,
					  uint64_t loc)
{
	size_t lo = 0, hi = f->nfdes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->fdes[mid].loc == loc)
			return f->fdes[mid].dup ? NULL : &f->fdes[mid];
		if (f->fdes[mid].loc < loc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct fast_rule *fast_reg(struct fast_state *st, uint64_t reg)
{
	switch (reg) {
	case REG_RA:
		return &st->ra;
	case REG_RBP:
		return &st->bp;
	case REG_RBX:
		return &st->bx;
	default:
		return NULL;
	}
}

/* the row classify() makes of the same state; -1: libdw's to say */
static int fast_classify(const struct fast_state *st, uint8_t *kind,
			 int32_t *off, int8_t *rbp)
{
	int64_t v;

	*off = 0;
	*rbp = 0;
	if (!st->cfa_set)
		return -1;
	if (st->cfa_reg != REG_RSP && st->cfa_reg != REG_RBP &&
	    st->cfa_reg != REG_RBX) {
		*kind = AP_CFI_BAD;
		return 0;
	}
	if (st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX) {
		*kind = AP_CFI_BAD;
		return 0;
	}
	/* classify() gives the CFA's offset to every row, an END's too */
	*off = (int32_t)st->cfa_off;
	switch (st->ra.how) {
	case R_UNDEF:
		*kind = AP_CFI_END;
		return 0;
	case R_OFFSET:
		if (st->ra.off != -8) {
			*kind = AP_CFI_BAD;
			return 0;
		}
		break;
	default:
		return -1;
	}
	*kind = st->cfa_reg == REG_RSP ? AP_CFI_RSP :
		st->cfa_reg == REG_RBP ? AP_CFI_RBP : AP_CFI_RBX;
	v = st->bp.off;
	if (st->bp.how == R_OFFSET && !(v % 8) && v / 8 >= INT8_MIN &&
	    v / 8 <= INT8_MAX)
		*rbp = (int8_t)(v / 8);
	if (st->bx.how == R_OFFSET) {
		v = st->bx.off;
		*kind |= (v % 8 || v > -16 || v < -56) ?
			 AP_CFI_RBX_LOST << AP_CFI_RBX_SHIFT :
			 (uint8_t)(-v / 8) << AP_CFI_RBX_SHIFT;
	}
	return 0;
}

/* the row of st from loc on, as compile_fde pushes it; 1: libdw's */
static int fast_push(struct ap_cfi_table *t, uint64_t loc,
		     const struct fast_state *st)
{
	uint8_t kind;
	int32_t off;
	int8_t rbp;

	if (fast_classify(st, &kind, &off, &rbp))
		return 1;
	if (kind == AP_CFI_BAD) {
		off = 0;
		rbp = 0;
		t->bad++;
	}
	return push_row(t, loc, kind, off, rbp);
}

#define FAST_STACK	16	/* remember_state depth */

/*
 * Runs ins on st; with emit set, pushes a row for each range of the
 * program before limit (*pc: the end of the last).  1: the program is
 * libdw's to run, nothing pushed for it yet when emit is unset.
 */
static int fast_run(const uint8_t *p, const uint8_t *end,
		    const struct fast_cie *c, struct fast_state *st,
		    const struct fast_state *init, uint64_t *loc,
		    uint64_t fde_end, uint64_t limit, struct ap_cfi_table *t,
		    int emit, uint64_t *pc)
{
	struct fast_state stack[FAST_STACK];
	unsigned int depth = 0;

	while (p < end) {
		uint8_t op = *p++, low = op & 0x3f;
		uint64_t reg, u, adv = 0;
		int64_t sv;
		struct fast_rule *r;
		int advance = 0;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			adv = low;
			advance = 1;
			break;
		case DW_CFA_offset:
			if (read_uleb(&p, end, &u) || u > UINT32_MAX)
				return 1;
			r = fast_reg(st, low);
			if (r)
				*r = (struct fast_rule){ R_OFFSET,
							 (int64_t)u * c->daf };
			continue;
		case DW_CFA_restore:
			/* in a CIE there is nothing to restore to yet:
			 * libdw fails such a frame (CUDA's libraries) */
			if (!emit)
				return 1;
			r = fast_reg(st, low);
			if (r)
				*r = *fast_reg((struct fast_state *)init, low);
			continue;
		default:
			break;
		}
		if (!advance) {
			switch (op) {
			case DW_CFA_nop:
				continue;
			case DW_CFA_advance_loc1:
				if (p + 1 > end)
					return 1;
				adv = *p++;
				break;
			case DW_CFA_advance_loc2: {
				uint16_t v;

				if (p + 2 > end)
					return 1;
				memcpy(&v, p, 2);
				p += 2;
				adv = v;
				break;
			}
			case DW_CFA_advance_loc4: {
				uint32_t v;

				if (p + 4 > end)
					return 1;
				memcpy(&v, p, 4);
				p += 4;
				adv = v;
				break;
			}
			case DW_CFA_offset_extended:
				if (read_uleb(&p, end, &reg) ||
				    read_uleb(&p, end, &u) || u > UINT32_MAX)
					return 1;
				r = fast_reg(st, reg);
				if (r)
					*r = (struct fast_rule){
						R_OFFSET, (int64_t)u * c->daf };
				continue;
			case DW_CFA_offset_extended_sf:
				if (read_uleb(&p, end, &reg) ||
				    read_sleb(&p, end, &sv) || sv < INT32_MIN ||
				    sv > INT32_MAX)
					return 1;
				r = fast_reg(st, reg);
				if (r)
					*r = (struct fast_rule){
						R_OFFSET, sv * c->daf };
				continue;
			case DW_CFA_restore_extended:
				if (!emit || read_uleb(&p, end, &reg))
					return 1;
				r = fast_reg(st, reg);
				if (r)
					*r = *fast_reg((struct fast_state *)init,
						       reg);
				continue;
			case DW_CFA_undefined:
			case DW_CFA_same_value:
				if (read_uleb(&p, end, &reg))
					return 1;
				r = fast_reg(st, reg);
				if (r)
					*r = (struct fast_rule){
						op == DW_CFA_undefined ?
						R_UNDEF : R_SAME, 0 };
				continue;
			case DW_CFA_remember_state:
				if (!emit || depth == FAST_STACK)
					return 1;
				stack[depth++] = *st;
				continue;
			case DW_CFA_restore_state:
				if (!depth)
					return 1;
				*st = stack[--depth];
				continue;
			case DW_CFA_def_cfa:
				if (read_uleb(&p, end, &st->cfa_reg) ||
				    read_uleb(&p, end, &u) || u > INT64_MAX)
					return 1;
				st->cfa_off = (int64_t)u;
				st->cfa_set = 1;
				continue;
			case DW_CFA_def_cfa_sf:
				if (read_uleb(&p, end, &st->cfa_reg) ||
				    read_sleb(&p, end, &sv) || sv < INT32_MIN ||
				    sv > INT32_MAX)
					return 1;
				st->cfa_off = sv * c->daf;
				st->cfa_set = 1;
				continue;
			case DW_CFA_def_cfa_register:
				if (!st->cfa_set ||
				    read_uleb(&p, end, &st->cfa_reg))
					return 1;
				continue;
			case DW_CFA_def_cfa_offset:
				if (!st->cfa_set || read_uleb(&p, end, &u) ||
				    u > INT64_MAX)
					return 1;
				st->cfa_off = (int64_t)u;
				continue;
			case DW_CFA_def_cfa_offset_sf:
				if (!st->cfa_set || read_sleb(&p, end, &sv) ||
				    sv < INT32_MIN || sv > INT32_MAX)
					return 1;
				st->cfa_off = sv * c->daf;
				continue;
			case DW_CFA_GNU_args_size:
				if (read_uleb(&p, end, &u))
					return 1;
				continue;
			default:
				/* expressions, DW_CFA_register, val_ rules,
				 * set_loc, what is unknown */
				return 1;
			}
		}
		adv *= c->caf;
		if (!emit) {
			/* the CIE's instructions: no location moves */
			return 1;
		}
		if (adv > fde_end - *loc)
			return 1;
		if (adv && *loc < limit) {
			int err = fast_push(t, *loc, st);

			if (err)
				return err;
			*pc = *loc + adv;
		}
		*loc += adv;
	}
	return 0;
}

/*
 * compile_fde's rows for fde, the same to the byte; 1: libdw's to make
 * (t as it was before), or -errno.
 */
static int fast_fde_rows(const struct fast_cfi *f, const struct fast_fde *d,
			 uint64_t limit, struct ap_cfi_table *t)
{
	const struct fast_cie *c = &f->cies[d->cie];
	struct fast_state init = { 0 }, st;
	struct ap_cfi_row last = { 0 };
	size_t nr = t->nr;
	uint64_t bad = t->bad, fdes = t->fdes, loc = 0, pc;
	int r;

	if (fast_run(c->ins, c->ins_end, c, &init, &init, &loc, 0, 0, NULL,
		     0, &pc))
		return 1;
	/* push_row may rewrite the last row: kept, to undo on a way out */
	if (nr)
		last = t->rows[nr - 1];
	st = init;
	loc = d->loc;
	pc = d->loc;
	t->fdes++;
	r = fast_run(d->ins, d->ins_end, c, &st, &init, &loc, d->end, limit, t,
		     1, &pc);
	if (!r && loc < d->end && loc < limit) {
		r = fast_push(t, loc, &st);
		pc = d->end;
	}
	if (!r && (pc < limit || limit == UINT64_MAX))
		r = push_row(t, pc, AP_CFI_NONE, 0, 0);
	if (r > 0) {
		t->nr = nr;
		if (nr)
			t->rows[nr - 1] = last;
		t->bad = bad;
		t->fdes = fdes;
	}
	return r > 0 ? 1 : r;
}

/* until: CLOCK_MONOTONIC ns past which the compile stops, 0 for none (a
 * big file takes seconds on a busy machine, and a recording's end must
 * not wait for it) */
static int compile_starts(Dwarf_CFI *cfi, const struct fast_cfi *fast,
			  uint64_t *starts, size_t n, struct ap_cfi_table *t,
			  uint64_t until)
{
	size_t i;
	int err;

	qsort(starts, n, sizeof(*starts), cmp_u64);
	for (i = 0; i < n; i++) {
		uint64_t limit = i + 1 < n ? starts[i + 1] : UINT64_MAX;
		const struct fast_fde *d;

		if (until && !(i & 63) && mono_ns() >= until)
			return -ETIME;
		if (i + 1 < n && starts[i + 1] == starts[i])
			continue;
		d = fast ? fast_fde_at(fast, starts[i]) : NULL;
		err = d ? fast_fde_rows(fast, d, limit, t) : 1;
		if (err > 0)
			err = compile_fde(cfi, starts[i], limit, t);
		if (err)
			return err;
	}
	return t->nr ? 0 : -ENOENT;
}

/* FDE start addresses from .eh_frame_hdr's binary search table */
static int eh_frame_hdr_starts(struct Elf *elf, uint64_t **out,
			       uint64_t **fde_addrs, size_t *nr)
{
	size_t phnum, i;
	GElf_Phdr ph;
	const uint8_t *d = NULL;
	uint64_t vaddr = 0, size = 0, n;
	uint64_t *v, *a;
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
	a = malloc((n ? n : 1) * sizeof(*a));
	if (!v || !a) {
		free(v);
		free(a);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		int32_t loc, fde;

		memcpy(&loc, d + pos + 8 * i, 4);
		memcpy(&fde, d + pos + 8 * i + 4, 4);
		v[i] = vaddr + (int64_t)loc;
		a[i] = vaddr + (int64_t)fde;
	}
	*out = v;
	*fde_addrs = a;
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
	struct fast_cfi fast = { 0 };
	uint64_t *starts = NULL, *addrs = NULL;
	Dwarf_CFI *cfi;
	size_t n = 0;
	int err;

	err = eh_frame_hdr_starts(elf, &starts, &addrs, &n);
	if (err)
		return err;
	cfi = dwarf_getcfi_elf(elf);
	if (cfi && !ap_cfi_libdw_only)
		fast_cfi_load(elf, starts, addrs, n, &fast);
	free(addrs);
	err = cfi ? compile_starts(cfi, &fast, starts, n, t, until) : -ENOENT;
	fast_cfi_free(&fast);
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
	err = cfi ? compile_starts(cfi, NULL, starts, n, t, until) : -ENOENT;
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
