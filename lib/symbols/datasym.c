// SPDX-License-Identifier: GPL-2.0
/*
 * Variables by address, from ELF symbol tables (libelf).  One table per
 * file (path and inode), read on first use: the STT_OBJECT symbols of
 * .symtab and .dynsym with their sizes, plus the PT_LOAD segments that
 * turn a file offset into the address the symbols use.  With a
 * symbolizer, the file is the one it reads for the mapping (under
 * --symfs, the build-id cache, the servers), never the recorded path as
 * it is.
 */
#include "symbols/datasym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/buildid.h"
#include "symbols/symbolizer.h"
#include "util/hmap.h"
#include "util/safefile.h"

struct dsym {
	uint64_t addr;
	uint64_t size;
	char *name;
};

struct seg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t memsz;
};

struct dfile {
	char *path;
	uint64_t inode;
	int err;			/* 0, or why the file has no table */
	struct dsym *syms;		/* sorted by addr */
	size_t nr;
	struct seg *segs;
	size_t nr_segs;
};

struct ap_datasym {
	struct ap_symbolizer *sym;	/* NULL: paths as recorded */
	struct dfile *files;
	size_t nr, cap;
	struct ap_hmap by_key;		/* hash(path, inode) -> index */
};

struct ap_datasym *ap_datasym__new(struct ap_symbolizer *sym)
{
	struct ap_datasym *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->sym = sym;
	ap_hmap__init(&d->by_key);
	return d;
}

static void dfile_free(struct dfile *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->syms[i].name);
	free(f->syms);
	free(f->segs);
	free(f->path);
}

void ap_datasym__free(struct ap_datasym *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr; i++)
		dfile_free(&d->files[i]);
	free(d->files);
	ap_hmap__free(&d->by_key);
	free(d);
}

static int by_addr(const void *a, const void *b)
{
	const struct dsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* the sized one first: it is the one that can cover an address */
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int add_sym(struct dfile *f, size_t *cap, uint64_t addr,
		   uint64_t size, const char *name)
{
	if (f->nr == *cap) {
		size_t n = *cap ? *cap * 2 : 256;
		struct dsym *v = realloc(f->syms, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->syms = v;
		*cap = n;
	}
	f->syms[f->nr].name = strdup(name);
	if (!f->syms[f->nr].name)
		return -ENOMEM;
	f->syms[f->nr].addr = addr;
	f->syms[f->nr].size = size;
	f->nr++;
	return 0;
}

/* the symbols of an ELF file's symbol tables (.symtab, .dynsym) */
struct symiter {
	Elf *elf;
	Elf_Scn *scn;
	Elf_Data *data;
	size_t link, n, j;
	int end;
};

/* the next symbol of type (STT_*) that is defined (not SHN_UNDEF), its
 * name (NULL when it has none): 1, or 0 after the last */
static int next_sym(struct symiter *it, int type, GElf_Sym *s,
		    const char **name)
{
	for (;;) {
		while (it->j >= it->n) {
			GElf_Shdr sh;

			if (!it->end)
				it->scn = elf_nextscn(it->elf, it->scn);
			if (it->end || !it->scn) {
				it->end = 1;
				return 0;
			}
			it->n = it->j = 0;
			if (!gelf_getshdr(it->scn, &sh) ||
			    (sh.sh_type != SHT_SYMTAB &&
			     sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
				continue;
			it->data = elf_getdata(it->scn, NULL);
			if (!it->data)
				continue;
			it->link = sh.sh_link;
			it->n = sh.sh_size / sh.sh_entsize;
		}
		if (!gelf_getsym(it->data, it->j++, s) ||
		    GELF_ST_TYPE(s->st_info) != type ||
		    s->st_shndx == SHN_UNDEF)
			continue;
		*name = elf_strptr(it->elf, it->link, s->st_name);
		return 1;
	}
}

static int load_file(struct dfile *f)
{
	size_t cap = 0, phnum, i;
	struct symiter it = { 0 };
	const char *name;
	GElf_Sym s;
	Elf *elf;
	int fd, err;

	err = ap_elf__open(f->path, &fd, &elf);
	if (err)
		return err;
	if (elf_getphdrnum(elf, &phnum)) {
		err = -ENOEXEC;
		goto out;
	}
	f->segs = calloc(phnum ? phnum : 1, sizeof(*f->segs));
	if (!f->segs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nr_segs++] = (struct seg){ ph.p_vaddr, ph.p_offset,
						      ph.p_memsz };
	}
	it.elf = elf;
	while (next_sym(&it, STT_OBJECT, &s, &name)) {
		if (s.st_shndx >= SHN_LORESERVE || !name || !*name)
			continue;
		err = add_sym(f, &cap, s.st_value, s.st_size, name);
		if (err)
			goto out;
	}
	/* a file without variables has no table: qsort takes no NULL */
	if (f->nr)
		qsort(f->syms, f->nr, sizeof(*f->syms), by_addr);
	err = 0;
out:
	elf_end(elf);
	close(fd);
	return err;
}

/* check_inode: path is the recorded one, no build-id vouching for it */
static struct dfile *get_file(struct ap_datasym *d, const char *path,
			      uint64_t inode, int check_inode)
{
	uint64_t key = ap_hash_bytes(path, strlen(path), inode);
	uint64_t *slot;
	struct dfile *f;
	struct stat st;
	int fresh;

	slot = ap_hmap__upsert(&d->by_key, key, &fresh);
	if (!slot)
		return NULL;
	if (!fresh) {
		f = &d->files[*slot];
		/* two files with one hash: the slot moves to this one */
		if (f->inode == inode && !strcmp(f->path, path))
			return f;
	}
	if (d->nr == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct dfile *v = realloc(d->files, cap * sizeof(*v));

		if (!v)
			return NULL;
		d->files = v;
		d->cap = cap;
	}
	f = &d->files[d->nr];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->inode = inode;
	if (!f->path)
		return NULL;
	if (stat(path, &st))
		f->err = -errno;
	else if (inode && st.st_ino != inode && check_inode)
		f->err = -ESTALE;
	else
		f->err = load_file(f);
	*slot = d->nr++;
	return f;
}

int ap_datasym__lookup(struct ap_datasym *d, const struct ap_mmap *m,
		       uint64_t addr, char *name, size_t len,
		       uint64_t *offset)
{
	uint64_t fileoff, vaddr = 0;
	const char *path = m ? m->path : NULL;
	const struct seg *best = NULL;
	struct dfile *f;
	size_t lo = 0, hi, i;

	if (!d || !m || m->path[0] != '/' || addr < m->start)
		return -ENOENT;
	if (d->sym) {
		path = ap_symbolizer__file(d->sym, m);
		if (!path)
			return -ENOENT;
	}
	f = get_file(d, path, m->inode,
		     !m->build_id_len && !strcmp(path, m->path));
	if (!f)
		return -ENOMEM;
	if (f->err)
		return f->err;
	/* the file offset of addr, then the segment that loads it: the
	 * last one starting at or before it (.bss lies past p_filesz) */
	fileoff = addr - m->start + m->pgoff;
	for (i = 0; i < f->nr_segs; i++)
		if (f->segs[i].offset <= fileoff &&
		    (!best || f->segs[i].offset >= best->offset))
			best = &f->segs[i];
	if (!best || fileoff - best->offset >= best->memsz)
		return -ENOENT;
	vaddr = fileoff - best->offset + best->vaddr;

	/* the first symbol above vaddr; candidates lie before it */
	hi = f->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		const struct dsym *s = &f->syms[i];

		if (vaddr < s->addr + (s->size ? s->size : 1)) {
			snprintf(name, len, "%s", s->name);
			*offset = vaddr - s->addr;
			return 0;
		}
		/* symbols are small: do not walk a whole table back */
		if (lo - i > 64)
			break;
	}
	return -ENOENT;
}

const char *ap_datasym__region(const struct ap_mmap *m)
{
	const char *slash;

	if (!m)
		return "unmapped";
	if (!m->path[0])
		return "anon";
	if (!strcmp(m->path, "[heap]"))
		return "heap";
	if (!strncmp(m->path, "[stack", 6))
		return "stack";
	if (m->path[0] == '[')
		return m->path;
	slash = strrchr(m->path, '/');
	return slash ? slash + 1 : m->path;
}

/* the file offset of virtual address value in an executable segment */
static int vaddr_offset(Elf *elf, uint64_t value, uint64_t *off)
{
	size_t phnum, i;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (value >= ph.p_vaddr && value < ph.p_vaddr + ph.p_filesz) {
			*off = value - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int ap_elf_func_offset2(const char *path, const char *symfile,
			const char *func, uint64_t *off)
{
	struct symiter it = { 0 };
	uint64_t value = 0;
	int fd, err, found = 0;
	const char *name;
	GElf_Sym s;
	Elf *elf;

	err = ap_elf__open(symfile ? symfile : path, &fd, &elf);
	if (err)
		return err;
	it.elf = elf;
	while (!found && next_sym(&it, STT_FUNC, &s, &name)) {
		/* versioned duplicates (@GLIBC_2.2.5, @@GLIBC_2.34)
		 * share one address: the first is as good */
		if (s.st_value && name && !strcmp(name, func)) {
			value = s.st_value;
			found = 1;
		}
	}
	elf_end(elf);
	close(fd);
	if (!found)
		return -ENOENT;
	/* a debug file's segments have no file contents: the offsets are
	 * the executable's, at the same addresses */
	err = ap_elf__open(path, &fd, &elf);
	if (err)
		return err;
	err = vaddr_offset(elf, value, off);
	elf_end(elf);
	close(fd);
	return err;
}

int ap_elf_func_offset(const char *path, const char *func, uint64_t *off)
{
	return ap_elf_func_offset2(path, NULL, func, off);
}
