// SPDX-License-Identifier: GPL-2.0
#include "unwind/unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "aperture.h"
#include "unwind/cfi.h"
#include "unwind/tabcache.h"
#include "symbols/debugfile.h"
#include "gpu/libs.h"
#include "record/bidcache.h"
#include "util/hmap.h"
#include "util/safefile.h"
#include "util/vec.h"
#include "symbols/symbolizer.h"

#define MAX_LOADS	16

/* one file's table: rows [row_start, row_start + row_nr) of the map */
struct ftab {
	char *key;			/* "b:BUILD-ID", else "inode:path" */
	char *path;			/* where it was first mapped from */
	uint64_t inode;
	uint8_t build_id[AP_BUILD_ID_MAX];
	uint32_t build_id_len;		/* 0: none known */
	int from_debug;			/* rows from a separate debug file */
	int cache_tried;		/* the disk cache had none */
	uint32_t row_start, row_nr;	/* row_nr 0: no table */
	uint32_t refs;			/* mirrored mappings using it */
	int wanted;			/* lazy: a stack needed it */
	uint64_t last_used;		/* for eviction once unused */
	/* the files with its build-id (copies, a container's own) in the
	 * files map */
	struct ap_ufile_key *fkeys;
	size_t nr_fkeys, cap_fkeys;
	int nloads;
	struct {
		uint64_t vaddr, offset, filesz;
		int exec;
	} loads[MAX_LOADS];		/* PT_LOAD: file offset -> address */
};

struct uproc {
	uint32_t nr;
	uint32_t gen;			/* generation in the BPF maps */
	uint32_t pub_nr;		/* mappings of gen in the BPF maps */
	int dirty;			/* m changed since it was published */
	int pending;			/* some files' tables are not built yet */
	uint64_t publishes;		/* mirrors written */
	/* cap entries each, grown up to AP_UMAP_MAX as the process maps
	 * code: most processes have a few dozen, and 256 of each (12 KiB a
	 * process) added up under -a */
	uint32_t cap;
	struct ap_umap *m;		/* sorted by start */
	struct ftab **files;		/* parallel to m */
	uint64_t *pgoff;
};

static void uproc__free(struct uproc *p)
{
	if (!p)
		return;
	free(p->m);
	free(p->files);
	free(p->pgoff);
	free(p);
}

/* room for one more entry (below AP_UMAP_MAX); 0 or -ENOMEM */
static int uproc__reserve(struct uproc *p, uint32_t nr)
{
	uint32_t cap;
	void *a;

	if (nr < p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 16;
	if (cap > AP_UMAP_MAX)
		cap = AP_UMAP_MAX;
	a = realloc(p->m, cap * sizeof(*p->m));
	if (!a)
		return -ENOMEM;
	p->m = a;
	a = realloc(p->files, cap * sizeof(*p->files));
	if (!a)
		return -ENOMEM;
	p->files = a;
	a = realloc(p->pgoff, cap * sizeof(*p->pgoff));
	if (!a)
		return -ENOMEM;
	p->pgoff = a;
	p->cap = cap;
	return 0;
}

/* once recording runs, compiling tables may take BUILD_BUDGET_PCT % of
 * the recorder's time, with at most one BUILD_WINDOW_NS's share saved up;
 * what exceeds it waits (those frames go by frame pointer meanwhile).  A
 * table that took longer than the share is paid back before the next. */
#define BUILD_WINDOW_NS		(100 * 1000 * 1000ll)
#define BUILD_BUDGET_PCT	30

/* free extents of the rows array, sorted by start */
struct extent {
	uint32_t start, len;
};

struct ap_unwind {
	int rows_fd;
	uint32_t rows_max;
	int procs_fd;
	int maps_fd;
	int files_fd;
	struct ftab **tabs;
	size_t nr_tabs, cap_tabs;
	struct ap_hmap by_key;		/* hash of key -> index in tabs */
	struct ap_hmap procs;		/* pid -> struct uproc * */
	struct extent *free;
	size_t nr_free, cap_free;
	uint64_t tick;
	int live;			/* recording: compile within the budget */
	int lazy;			/* compile only what stacks need (-a) */
	uint32_t budget_pct;		/* of the time, once live */
	int64_t tokens;			/* ns of compiling allowed now */
	uint64_t until_ns;		/* no compiling from then on; 0: none */
	uint64_t eager_until;		/* lazy or not, compile until then */
	uint64_t tokens_ts;		/* when tokens were last added */
	uint32_t *dirty;		/* pids whose mirror waits for flush */
	size_t nr_dirty, cap_dirty;
	char *cache_dir;		/* tables on disk by build-id; NULL: none */
	struct ap_unwind_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct ap_unwind *ap_unwind__new(int rows_fd, uint32_t rows_max, int procs_fd,
				 int maps_fd, int files_fd)
{
	struct ap_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->rows_fd = rows_fd;
	u->rows_max = rows_max;
	u->procs_fd = procs_fd;
	u->maps_fd = maps_fd;
	u->files_fd = files_fd;
	ap_hmap__init(&u->by_key);
	ap_hmap__init(&u->procs);
	u->free = malloc(sizeof(*u->free));
	if (!u->free) {
		free(u);
		return NULL;
	}
	u->free[0] = (struct extent){ 0, rows_max };
	u->nr_free = 1;
	u->cap_free = 1;
	u->st.rows_max = rows_max;
	u->budget_pct = BUILD_BUDGET_PCT;
	return u;
}

void ap_unwind__free(struct ap_unwind *u)
{
	uint64_t k, v;
	size_t i;

	if (!u)
		return;
	for (i = 0; ap_hmap__next(&u->procs, &i, &k, &v);)
		uproc__free((struct uproc *)(uintptr_t)v);
	for (i = 0; i < u->nr_tabs; i++) {
		free(u->tabs[i]->key);
		free(u->tabs[i]->path);
		free(u->tabs[i]->fkeys);
		free(u->tabs[i]);
	}
	free(u->tabs);
	free(u->free);
	free(u->dirty);
	free(u->cache_dir);
	ap_hmap__free(&u->by_key);
	ap_hmap__free(&u->procs);
	free(u);
}

/* first fit; the start of the extent or UINT32_MAX */
static uint32_t rows_alloc(struct ap_unwind *u, uint32_t n)
{
	size_t i;

	for (i = 0; i < u->nr_free; i++) {
		struct extent *e = &u->free[i];
		uint32_t start = e->start;

		if (e->len < n)
			continue;
		e->start += n;
		e->len -= n;
		if (!e->len) {
			memmove(e, e + 1, (u->nr_free - i - 1) * sizeof(*e));
			u->nr_free--;
		}
		return start;
	}
	return UINT32_MAX;
}

static void rows_release(struct ap_unwind *u, uint32_t start, uint32_t n)
{
	size_t i = 0;

	while (i < u->nr_free && u->free[i].start < start)
		i++;
	/* joins the extent before it, the one after it, or stands alone */
	if (i > 0 && u->free[i - 1].start + u->free[i - 1].len == start) {
		u->free[i - 1].len += n;
		if (i < u->nr_free && start + n == u->free[i].start) {
			u->free[i - 1].len += u->free[i].len;
			memmove(&u->free[i], &u->free[i + 1],
				(u->nr_free - i - 1) * sizeof(u->free[0]));
			u->nr_free--;
		}
		return;
	}
	if (i < u->nr_free && start + n == u->free[i].start) {
		u->free[i].start = start;
		u->free[i].len += n;
		return;
	}
	if (u->nr_free == u->cap_free) {
		size_t cap = u->cap_free * 2;
		struct extent *v = realloc(u->free, cap * sizeof(*v));

		if (!v)
			return;		/* those rows stay unused */
		u->free = v;
		u->cap_free = cap;
	}
	memmove(&u->free[i + 1], &u->free[i],
		(u->nr_free - i) * sizeof(u->free[0]));
	u->free[i] = (struct extent){ start, n };
	u->nr_free++;
}

/* room for n rows, evicting tables no process maps any more, least
 * recently used first */
static uint32_t rows_get(struct ap_unwind *u, uint32_t n)
{
	uint32_t start;

	if (n > u->rows_max)
		return UINT32_MAX;	/* evicting all would not make room */
	while ((start = rows_alloc(u, n)) == UINT32_MAX) {
		struct ftab *old = NULL;
		size_t i;

		for (i = 0; i < u->nr_tabs; i++) {
			struct ftab *t = u->tabs[i];

			if (!t->refs && t->row_nr &&
			    (!old || t->last_used < old->last_used))
				old = t;
		}
		if (!old)
			return UINT32_MAX;
		rows_release(u, old->row_start, old->row_nr);
		for (i = 0; i < old->nr_fkeys; i++)
			bpf_map_delete_elem(u->files_fd, &old->fkeys[i]);
		old->nr_fkeys = 0;
		u->st.rows -= old->row_nr;
		u->st.tables--;
		/* rebuilt if a process maps it again */
		old->row_nr = 0;
		old->nloads = -1;
		old->cache_tried = 0;
	}
	return start;
}

/*
 * n rows into the rows map from row start, through a mapping of just the
 * pages they cover: the kernel maps every page of a BPF array at mmap, so
 * the whole map kept mapped (16 MiB) would count whole in our RSS.
 */
static int rows_write(int fd, uint32_t start, const struct ap_cfi_row *v,
		      size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t off = (size_t)start * sizeof(*v), len = n * sizeof(*v);
	size_t lo = off & ~(page - 1);
	size_t hi = (off + len + page - 1) & ~(page - 1);
	void *p;

	p = mmap(NULL, hi - lo, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)lo);
	if (p == MAP_FAILED)
		return -errno;
	memcpy((char *)p + (off - lo), v, len);
	munmap(p, hi - lo);
	return 0;
}

static int read_loads(Elf *elf, struct ftab *t)
{
	size_t phnum, i;
	GElf_Phdr ph;

	t->nloads = 0;
	if (elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	for (i = 0; i < phnum && t->nloads < MAX_LOADS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->loads[t->nloads].vaddr = ph.p_vaddr;
		t->loads[t->nloads].offset = ph.p_offset;
		t->loads[t->nloads].filesz = ph.p_filesz;
		t->loads[t->nloads].exec = !!(ph.p_flags & PF_X);
		t->nloads++;
	}
	return 0;
}

/* the table by device and inode too, for code that is not mirrored yet
 * (each file of its build-id): the first code segment says where the
 * file's addresses are */
static void publish_file(struct ap_unwind *u, struct ftab *t,
			 const struct stat *st)
{
	struct ap_ufile f = { t->row_start, t->row_nr, 0 };
	struct ap_ufile_key k = {
		.ino = st->st_ino,
		.dev = major(st->st_dev) << 20 | minor(st->st_dev),
	};
	size_t i;

	if (!t->row_nr)
		return;
	for (i = 0; i < t->nr_fkeys; i++)
		if (t->fkeys[i].ino == k.ino && t->fkeys[i].dev == k.dev)
			return;
	for (i = 0; i < (size_t)t->nloads; i++)
		if (t->loads[i].exec)
			break;
	if (i == (size_t)t->nloads)
		return;
	f.delta = (int64_t)(t->loads[i].vaddr - t->loads[i].offset);
	if (ap_grow((void **)&t->fkeys, &t->cap_fkeys, t->nr_fkeys,
		    sizeof(*t->fkeys), 4))
		return;
	if (bpf_map_update_elem(u->files_fd, &k, &f, BPF_ANY))
		return;
	t->fkeys[t->nr_fkeys++] = k;
}

/* code that no FDE of the file covers (all of it, for a file without
 * .eh_frame) gets the rules of its separate debug file's .debug_frame: the
 * same addresses.  Without a debug file (the common case) this costs one
 * failed open.  1 when the debug file gave rows, else 0. */
static int fill_from_debug_file(struct ap_unwind *u, Elf *elf,
				const char *path, struct ap_cfi_table *ct)
{
	struct ap_cfi_table dt = { 0 };
	int fd = ap_debugfile__open(elf, path, NULL), used = 0;
	Elf *dbg;

	if (fd < 0)
		return 0;
	dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (dbg && elf_kind(dbg) == ELF_K_ELF &&
	    !ap_cfi__compile_debug_frame_by(dbg, &dt, u->until_ns) &&
	    !ap_cfi_table__fill(ct, &dt))
		used = 1;
	ap_cfi_table__free(&dt);
	elf_end(dbg);
	close(fd);
	return used;
}

/* rows[0..nr) into the rows array as t's table; 0 or -ENOSPC */
static int install_rows(struct ap_unwind *u, struct ftab *t,
			const struct ap_cfi_row *rows, size_t nr, uint64_t bad)
{
	uint32_t start = rows_get(u, (uint32_t)nr);

	if (start == UINT32_MAX) {
		u->st.no_room++;
		return -ENOSPC;
	}
	if (rows_write(u->rows_fd, start, rows, nr)) {
		rows_release(u, start, (uint32_t)nr);
		u->st.no_room++;
		return -ENOSPC;
	}
	t->row_start = start;
	t->row_nr = (uint32_t)nr;
	u->st.debug_files += t->from_debug;
	u->st.tables++;
	u->st.rows += nr;
	u->st.bad_rows += bad;
	return 0;
}

/* t's table, just compiled, kept on disk for the next recordings */
static void cache_save(struct ap_unwind *u, const struct ftab *t,
		       const struct ap_cfi_table *ct)
{
	struct ap_tabcache_entry *e;
	int i;

	if (!u->cache_dir || !t->build_id_len || t->nloads > MAX_LOADS)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	memcpy(e->build_id, t->build_id, t->build_id_len);
	e->build_id_len = t->build_id_len;
	snprintf(e->path, sizeof(e->path), "%s", t->path);
	e->nloads = (uint32_t)t->nloads;
	for (i = 0; i < t->nloads; i++) {
		e->loads[i].vaddr = t->loads[i].vaddr;
		e->loads[i].offset = t->loads[i].offset;
		e->loads[i].filesz = t->loads[i].filesz;
		e->loads[i].exec = (uint32_t)t->loads[i].exec;
	}
	e->flags = t->from_debug ? AP_TABCACHE_DEBUG : 0;
	e->bad = ct->bad;
	e->nr = ct->nr;
	e->rows = ct->rows;
	if (!ap_tabcache__save(u->cache_dir, e))
		u->st.cache_saved++;
	free(e);
}

/* the file at path has a separate debug file now: an entry built
 * without one lacks its rows (a -dbg package installed since) */
static int debug_file_now(const char *path)
{
	int fd = ap_open_regular(path, 0), dfd = -1;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		dfd = ap_debugfile__open(elf, path, NULL);
	elf_end(elf);
	close(fd);
	if (dfd < 0)
		return 0;
	close(dfd);
	return 1;
}

/* t's table from the cache's entry e; 0 or -EINVAL (-ESTALE: the
 * file's debug file came since, the table is to be built again) */
static int tab_from_entry(struct ap_unwind *u, struct ftab *t,
			  const struct ap_tabcache_entry *e)
{
	uint32_t i;

	if (e->nloads > MAX_LOADS)
		return -EINVAL;
	if (!(e->flags & AP_TABCACHE_DEBUG) && t->path[0] == '/' &&
	    debug_file_now(t->path))
		return -ESTALE;
	t->nloads = (int)e->nloads;
	for (i = 0; i < e->nloads; i++) {
		t->loads[i].vaddr = e->loads[i].vaddr;
		t->loads[i].offset = e->loads[i].offset;
		t->loads[i].filesz = e->loads[i].filesz;
		t->loads[i].exec = !!e->loads[i].exec;
	}
	t->row_nr = 0;
	t->from_debug = !!(e->flags & AP_TABCACHE_DEBUG);
	if (!install_rows(u, t, e->rows, e->nr, e->bad))
		u->st.cache_loaded++;
	return 0;
}

/* t's table from the disk cache: 0, or -errno when it has none */
static int cache_load(struct ap_unwind *u, struct ftab *t)
{
	struct ap_tabcache_entry *e;
	int err;

	if (!u->cache_dir || !t->build_id_len)
		return -ENOENT;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	err = ap_tabcache__load(u->cache_dir, t->build_id, t->build_id_len,
				e, 1);
	if (!err)
		err = tab_from_entry(u, t, e);
	free(e->rows);
	free(e);
	return err;
}

/* compile elf's table into the rows array */
static void load_table(struct ap_unwind *u, struct ftab *t, Elf *elf, int fd,
		       const char *path)
{
	struct ap_cfi_table ct = { 0 };
	uint64_t t0 = now_ns();
	struct stat st;
	int err;

	t->row_nr = 0;
	if (read_loads(elf, t))
		return;
	err = ap_cfi__compile_by(elf, &ct, u->until_ns);
	if (err == -ETIME) {
		/* the recording ended meanwhile: no table, none needed */
		u->st.build_ns += now_ns() - t0;
		t->nloads = -1;
		return;
	}
	if (!err || err == -ENOENT) {
		t->from_debug = fill_from_debug_file(u, elf, path, &ct);
		err = ct.nr ? 0 : -ENOENT;
	}
	u->st.build_ns += now_ns() - t0;
	if (err || !ct.nr || ct.nr > UINT32_MAX) {
		u->st.no_cfi++;
		ap_cfi_table__free(&ct);
		return;
	}
	cache_save(u, t, &ct);
	if (!install_rows(u, t, ct.rows, ct.nr, ct.bad) && fd >= 0 &&
	    !fstat(fd, &st))
		publish_file(u, t, &st);
	ap_cfi_table__free(&ct);
}

/* the vDSO is one image per kernel: aperture's own is the target's */
static Elf *open_vdso(void)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t size;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return NULL;
	/* the section headers come last in the image */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > 64 * 1024)
		return NULL;
	return elf_memory((char *)base, size);
}

/* /proc/PID/map_files/START-END of m: the mapped file itself */
static void map_files_path(const struct ap_mmap *m, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/%u/map_files/%llx-%llx", m->pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
}

/* open the file of mapping m: through /proc/PID/map_files (another mount
 * namespace, a deleted file) or its path; the Elf and its fd (or -1) */
static Elf *open_mapped(const struct ap_mmap *m, int *fdp)
{
	char path[64];
	Elf *elf;
	int fd = -1;

	*fdp = -1;
	if (!strcmp(m->path, "[vdso]"))
		return open_vdso();
	if (m->path[0] != '/')
		return NULL;
	map_files_path(m, path, sizeof(path));
	fd = ap_open_regular(path, 0);
	if (fd < 0)
		fd = ap_open_regular(m->path, 0);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return elf;
}

static struct ftab *find_tab(struct ap_unwind *u, const char *key,
			     uint64_t *hash)
{
	uint64_t *idx;

	*hash = ap_hash_bytes(key, strlen(key), 0x756e77);
	/* a collision of two keys: the later file goes without a table */
	idx = ap_hmap__find(&u->by_key, *hash);
	if (idx && !strcmp(u->tabs[*idx]->key, key))
		return u->tabs[*idx];
	return NULL;
}

static struct ftab *new_tab(struct ap_unwind *u, const char *key,
			    uint64_t hash, const struct ap_mmap *m)
{
	struct ftab *t;
	uint64_t *idx;
	int fresh;

	if (u->nr_tabs == u->cap_tabs) {
		size_t cap = u->cap_tabs ? u->cap_tabs * 2 : 64;
		struct ftab **v = realloc(u->tabs, cap * sizeof(*v));

		if (!v)
			return NULL;
		u->tabs = v;
		u->cap_tabs = cap;
	}
	idx = ap_hmap__upsert(&u->by_key, hash, &fresh);
	if (!idx || !fresh)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->key = strdup(key)) || !(t->path = strdup(m->path))) {
		if (t)
			free(t->key);
		free(t);
		ap_hmap__remove(&u->by_key, hash);
		return NULL;
	}
	t->inode = m->inode;
	if (m->build_id_len && m->build_id_len <= AP_BUILD_ID_MAX) {
		memcpy(t->build_id, m->build_id, m->build_id_len);
		t->build_id_len = m->build_id_len;
	}
	t->nloads = -1;
	*idx = u->nr_tabs;
	u->tabs[u->nr_tabs++] = t;
	return t;
}

/* the file m maps, as the kernel names it (device, inode); 0 or -errno */
static int stat_mapped(const struct ap_mmap *m, struct stat *st)
{
	char path[64];

	if (m->path[0] != '/')
		return -ENOENT;
	map_files_path(m, path, sizeof(path));
	if (!stat(path, st) || !stat(m->path, st))
		return 0;
	return -errno;
}

/* m's inode: the kernel's mapping records carry a build-id instead */
static uint64_t inode_of(const struct ap_mmap *m)
{
	struct stat st;

	if (m->inode || m->path[0] != '/')
		return m->inode;
	return stat_mapped(m, &st) ? 0 : st.st_ino;
}

/* the key of m's table: its build-id, shared by every copy of the file
 * (a library in each container, a plugin copied under other names),
 * else the file itself */
static void key_of(const struct ap_mmap *m, char *key, size_t len)
{
	uint32_t i, n = m->build_id_len;
	size_t o;

	if (!n || n > AP_BUILD_ID_MAX || len < 2 * n + 3) {
		snprintf(key, len, "%llu:%s",
			 (unsigned long long)inode_of(m), m->path);
		return;
	}
	o = (size_t)snprintf(key, len, "b:");
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(key + o, len - o, "%02x",
				      m->build_id[i]);
}

/* t, the table of m's file, compiled if it is not yet (or was evicted)
 * and the budget allows */
static struct ftab *tab_of_key(struct ap_unwind *u, const struct ap_mmap *m,
			       struct ftab *t)
{
	Elf *elf;
	int fd;

	/* a read, not a compile: lazy or not, what the cache has is
	 * loaded when the file is first mapped */
	if (t->nloads < 0 && !t->cache_tried && cache_load(u, t))
		t->cache_tried = 1;
	if (t->nloads < 0 && (!u->lazy || t->wanted ||
			      u->eager_until > now_ns())) {
		uint64_t now = now_ns(), until = u->until_ns;

		/* eager: the tables of the processes running at the start,
		 * given up at its end */
		if (u->eager_until > now && (!until || u->eager_until < until))
			until = u->eager_until;
		if (until && now >= until)
			return t;

		if (u->live) {
			int64_t cap = BUILD_WINDOW_NS / 100 * u->budget_pct;

			u->tokens += (int64_t)(now - u->tokens_ts) / 100 *
				     u->budget_pct;
			u->tokens_ts = now;
			if (u->tokens > cap)
				u->tokens = cap;
			if (u->tokens <= 0)
				return t;	/* later: ap_unwind__work */
		}
		u->st.builds++;
		elf = open_mapped(m, &fd);
		if (elf) {
			uint64_t window_end = u->until_ns;

			u->until_ns = until;	/* load_table's deadline */
			load_table(u, t, elf, fd, m->path);
			u->until_ns = window_end;
			elf_end(elf);
		} else {
			t->nloads = 0;
		}
		if (fd >= 0)
			close(fd);
		if (u->live)
			u->tokens -= (int64_t)(now_ns() - now);
	}
	t->last_used = ++u->tick;
	return t;
}

/* the table of m's file, compiled the first time (or after eviction) */
static struct ftab *tab_of(struct ap_unwind *u, const struct ap_mmap *m)
{
	char key[AP_PATH_MAX + 32];
	struct ftab *t;
	uint64_t hash;

	/* one key for the preloaded file and its mappings, whichever source
	 * (kernel records, /proc) told us of them */
	key_of(m, key, sizeof(key));
	t = find_tab(u, key, &hash);
	if (!t) {
		t = new_tab(u, key, hash, m);
		if (!t)
			return NULL;
	}
	return tab_of_key(u, m, t);
}

/* a copy of t's file (its build-id, another inode) is found by its own
 * device and inode too */
static void file_seen(struct ap_unwind *u, struct ftab *t,
		      const struct ap_mmap *m)
{
	struct stat st;
	size_t i;

	if (!t->row_nr || m->path[0] != '/')
		return;
	for (i = 0; m->inode && i < t->nr_fkeys; i++)
		if (t->fkeys[i].ino == m->inode)
			return;
	if (!stat_mapped(m, &st))
		publish_file(u, t, &st);
}

/* runtime address - ELF address for mapping m of t's file */
static int bias_of(const struct ftab *t, const struct ap_mmap *m,
		   uint64_t *bias)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < t->nloads; i++) {
		uint64_t off = t->loads[i].offset & ~((uint64_t)page - 1);

		if (m->pgoff < off ||
		    m->pgoff >= t->loads[i].offset + t->loads[i].filesz)
			continue;
		*bias = m->start - (t->loads[i].vaddr - t->loads[i].offset +
				    m->pgoff);
		return 0;
	}
	return -ENOENT;
}

static struct uproc *uproc_of(struct ap_unwind *u, uint32_t pid)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&u->procs, pid, &fresh);
	if (!slot)
		return NULL;
	if (fresh) {
		*slot = (uintptr_t)calloc(1, sizeof(struct uproc));
		if (!*slot) {
			ap_hmap__remove(&u->procs, pid);
			return NULL;
		}
		u->st.procs++;
	}
	return (struct uproc *)(uintptr_t)*slot;
}

/* the other generation gets the new mirror, then the process switches
 * to it: a walk in progress sees one whole generation or fails a lookup */
static void publish(struct ap_unwind *u, uint32_t pid, struct uproc *p)
{
	struct ap_uproc up = { p->nr, p->gen ^ 1 };
	struct ap_umap_key k = { pid, 0 };
	uint32_t i;

	u->st.publishes++;
	if (++p->publishes > u->st.publishes_max)
		u->st.publishes_max = p->publishes;
	for (i = 0; i < p->nr; i++) {
		k.idx = up.gen << 31 | i;
		if (bpf_map_update_elem(u->maps_fd, &k, &p->m[i], BPF_ANY)) {
			up.nr = i;	/* full: the rest unwinds by fp */
			break;
		}
	}
	bpf_map_update_elem(u->procs_fd, &pid, &up, BPF_ANY);
	for (i = 0; i < p->pub_nr; i++) {
		k.idx = p->gen << 31 | i;
		bpf_map_delete_elem(u->maps_fd, &k);
	}
	p->pub_nr = up.nr;
	p->gen = up.gen;
	p->dirty = 0;
}

/* A process's mappings come one at a time (its whole maps file at once
 * when it is first seen, a burst of them at each exec): each changes the
 * mirror in memory, and the mirror goes to the kernel once per burst, as
 * publishing all of them at each would cost O(n^2) map updates. */
static void mark_dirty(struct ap_unwind *u, uint32_t pid, struct uproc *p)
{
	if (p->dirty)
		return;
	if (ap_grow((void **)&u->dirty, &u->cap_dirty, u->nr_dirty,
		    sizeof(*u->dirty), 64)) {
		publish(u, pid, p);	/* no room to defer: now */
		return;
	}
	u->dirty[u->nr_dirty++] = pid;
	p->dirty = 1;
}

void ap_unwind__flush(struct ap_unwind *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_dirty; i++) {
		uint64_t *slot = ap_hmap__find(&u->procs, u->dirty[i]);
		struct uproc *p;

		if (!slot)
			continue;	/* gone since */
		p = (struct uproc *)(uintptr_t)*slot;
		if (p->dirty)
			publish(u, u->dirty[i], p);
	}
	u->nr_dirty = 0;
}

static void unref(struct ap_unwind *u, struct ftab *t)
{
	if (t && t->refs)
		t->refs--;
}

void ap_unwind__mapping(struct ap_unwind *u, const struct ap_mmap *m)
{
	struct ap_umap e = { m->start, m->end, 0, 0, 0 };
	struct ftab *t = NULL;
	struct uproc *p;
	uint32_t i, j, n;

	if (!u || !(m->prot & PROT_EXEC) || m->end <= m->start)
		return;
	p = uproc_of(u, m->pid);
	if (!p)
		return;
	/* a file with a table; anonymous code (JIT) unwinds by frame
	 * pointer, but is known code */
	if (m->path[0] == '/' || !strcmp(m->path, "[vdso]")) {
		uint64_t bias;

		t = tab_of(u, m);
		if (t)
			file_seen(u, t, m);
		if (t && t->row_nr && !bias_of(t, m, &bias)) {
			e.bias = bias;
			e.row_start = t->row_start;
			e.row_nr = t->row_nr;
		}
	}
	/* what the new mapping overlaps is gone */
	n = p->nr;
	for (i = j = 0; i < n; i++) {
		if (p->m[i].start < m->end && m->start < p->m[i].end) {
			unref(u, p->files[i]);
			continue;
		}
		p->m[j] = p->m[i];
		p->pgoff[j] = p->pgoff[i];
		p->files[j++] = p->files[i];
	}
	if (j == AP_UMAP_MAX) {
		/* nothing replaced, nothing added: the mirror the kernel has
		 * is this one, not to be written again (a process mapping
		 * 20,000 times made every mapping past the limit rewrite
		 * all 256 entries) */
		u->st.maps_full++;
		return;
	}
	if (uproc__reserve(p, j)) {
		/* no room: the mapping unwinds by frame pointer */
		p->nr = j;
		mark_dirty(u, m->pid, p);
		return;
	}
	for (i = j; i > 0 && p->m[i - 1].start > m->start; i--) {
		p->m[i] = p->m[i - 1];
		p->files[i] = p->files[i - 1];
		p->pgoff[i] = p->pgoff[i - 1];
	}
	p->m[i] = e;
	p->files[i] = t;
	p->pgoff[i] = m->pgoff;
	if (t) {
		t->refs++;
		if (t->nloads < 0)
			p->pending = 1;
	}
	p->nr = j + 1;
	mark_dirty(u, m->pid, p);
}

void ap_unwind__go_live(struct ap_unwind *u)
{
	if (!u)
		return;
	u->live = 1;
	u->tokens = BUILD_WINDOW_NS / 100 * u->budget_pct;
	u->tokens_ts = now_ns();
}

void ap_unwind__set_until(struct ap_unwind *u, uint64_t until_ns)
{
	if (u)
		u->until_ns = until_ns;
}

void ap_unwind__set_eager(struct ap_unwind *u, uint64_t until_ns)
{
	if (u)
		u->eager_until = until_ns;
}

void ap_unwind__set_lazy(struct ap_unwind *u, int lazy)
{
	if (u)
		u->lazy = lazy;
}

void ap_unwind__set_budget(struct ap_unwind *u, uint32_t pct)
{
	if (u && pct && pct <= 100)
		u->budget_pct = pct;
}

void ap_unwind__want(struct ap_unwind *u, uint32_t pid, const uint64_t *ips,
		     size_t n)
{
	uint64_t *slot;
	struct uproc *p;
	size_t k;

	if (!u || !u->lazy || !(slot = ap_hmap__find(&u->procs, pid)))
		return;
	p = (struct uproc *)(uintptr_t)*slot;
	for (k = 0; k < n; k++) {
		uint32_t lo = 0, hi = p->nr;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (p->m[mid].start <= ips[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && ips[k] < p->m[lo - 1].end && p->files[lo - 1] &&
		    p->files[lo - 1]->nloads < 0) {
			p->files[lo - 1]->wanted = 1;
			p->pending = 1;
		}
	}
}

/* the tables of p's files that waited for the budget, if it allows now */
static void finish_pending(struct ap_unwind *u, uint32_t pid,
			   struct uproc *p)
{
	uint32_t i;
	int changed = 0, left = 0;

	for (i = 0; i < p->nr; i++) {
		struct ftab *t = p->files[i];
		struct ap_mmap m;
		uint64_t bias;

		if (!t || t->nloads >= 0)
			continue;
		memset(&m, 0, sizeof(m));
		m.pid = pid;
		m.start = p->m[i].start;
		m.end = p->m[i].end;
		m.pgoff = p->pgoff[i];
		m.prot = PROT_EXEC;
		m.inode = t->inode;
		snprintf(m.path, sizeof(m.path), "%s", t->path);
		tab_of_key(u, &m, t);
		file_seen(u, t, &m);
		if (t->nloads < 0) {
			left = 1;
			continue;
		}
		if (t->row_nr && !bias_of(t, &m, &bias)) {
			p->m[i].bias = bias;
			p->m[i].row_start = t->row_start;
			p->m[i].row_nr = t->row_nr;
			changed = 1;
		}
	}
	p->pending = left;
	if (changed)
		publish(u, pid, p);
}

void ap_unwind__work(struct ap_unwind *u)
{
	uint64_t pid, v;
	size_t it;

	if (!u)
		return;
	ap_unwind__flush(u);
	for (it = 0; ap_hmap__next(&u->procs, &it, &pid, &v);) {
		struct uproc *p = (struct uproc *)(uintptr_t)v;

		if (p->pending)
			finish_pending(u, (uint32_t)pid, p);
	}
}

void ap_unwind__image_gone(struct ap_unwind *u, uint32_t pid)
{
	uint64_t *slot;
	struct uproc *p;
	uint32_t i;

	if (!u || !(slot = ap_hmap__find(&u->procs, pid)))
		return;
	p = (struct uproc *)(uintptr_t)*slot;
	bpf_map_delete_elem(u->procs_fd, &pid);
	for (i = 0; i < p->pub_nr; i++) {
		struct ap_umap_key k = { pid, p->gen << 31 | i };

		bpf_map_delete_elem(u->maps_fd, &k);
	}
	for (i = 0; i < p->nr; i++)
		unref(u, p->files[i]);
	uproc__free(p);
	ap_hmap__remove(&u->procs, pid);
	u->st.procs--;
}

int ap_unwind__preload(struct ap_unwind *u, const char *path)
{
	struct ap_mmap m;
	struct stat st;
	char *real;
	int n;

	if (!u)
		return 0;
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	memset(&m, 0, sizeof(m));
	if (stat(real, &st) || strlen(real) >= sizeof(m.path)) {
		free(real);
		return -ENOENT;
	}
	m.inode = st.st_ino;
	m.pid = (uint32_t)getpid();
	snprintf(m.path, sizeof(m.path), "%s", real);
	free(real);
	n = ap_read_build_id_safe(m.path, m.build_id, sizeof(m.build_id));
	m.build_id_len = n > 0 ? (uint32_t)n : 0;
	/* no mapping of ours: open_mapped falls back to the path */
	return tab_of(u, &m) ? 0 : -ENOMEM;
}

/* the cache fills at most this share of the rows at start: the rest is
 * for what the targets map that it lacks */
#define CACHE_START_PCT		50

/* one entry of the cache at start: its table, if the file it was built
 * from is still there with that build-id */
static int cache_start_one(void *ctx, const uint8_t *id, uint32_t n)
{
	struct ap_unwind *u = ctx;
	struct ap_tabcache_entry *e;
	uint8_t got[AP_BUILD_ID_MAX];
	char key[2 * AP_BUILD_ID_MAX + 8];
	struct ap_mmap *m;
	struct ftab *t = NULL;
	struct stat st;
	uint64_t hash;

	if (u->st.rows >= (uint64_t)u->rows_max / 100 * CACHE_START_PCT)
		return 1;
	e = malloc(sizeof(*e));
	m = calloc(1, sizeof(*m));
	if (!e || !m)
		goto out;
	e->rows = NULL;
	/* the header first: the rows only for a file still there */
	if (ap_tabcache__load(u->cache_dir, id, n, e, 0) ||
	    e->path[0] != '/' ||
	    ap_read_build_id_safe(e->path, got, sizeof(got)) != (int)n ||
	    memcmp(got, id, n) || stat(e->path, &st) ||
	    ap_tabcache__load(u->cache_dir, id, n, e, 1))
		goto out;
	memcpy(m->build_id, id, n);
	m->build_id_len = n;
	m->inode = st.st_ino;
	snprintf(m->path, sizeof(m->path), "%s", e->path);
	key_of(m, key, sizeof(key));
	if (find_tab(u, key, &hash))
		goto out;
	t = new_tab(u, key, hash, m);
	if (!t || tab_from_entry(u, t, e))
		goto out;
	t->last_used = ++u->tick;
	publish_file(u, t, &st);
out:
	if (e)
		free(e->rows);
	free(e);
	free(m);
	return 0;
}

int ap_unwind__use_cache(struct ap_unwind *u, const char *dir)
{
	uint64_t t0 = now_ns();

	if (!u || !dir)
		return 0;
	free(u->cache_dir);
	u->cache_dir = strdup(dir);
	if (!u->cache_dir)
		return -ENOMEM;
	ap_tabcache__each(dir, AP_TABCACHE_BYTES, cache_start_one, u);
	u->st.cache_start_ns = now_ns() - t0;
	return 0;
}

void ap_unwind__stats(const struct ap_unwind *u, struct ap_unwind_stats *st)
{
	if (!u) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = u->st;
}

struct needed_ctx {
	struct ap_unwind *u;
	const char *name;
	int found;
};

static int try_dir(void *ctx, const char *dir)
{
	struct needed_ctx *n = ctx;
	char path[AP_PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, n->name);
	if (access(path, R_OK))
		return 0;
	ap_unwind__preload(n->u, path);
	n->found = 1;
	return 1;
}

int ap_unwind__preload_command(struct ap_unwind *u, const char *cmd)
{
	char exe[AP_PATH_MAX];
	Elf_Scn *scn = NULL;
	size_t phnum, i;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	if (!u || ap_gpu_which(cmd, getenv("PATH"), exe, sizeof(exe)))
		return -ENOENT;
	ap_unwind__preload(u, exe);
	fd = ap_open_regular(exe, 0);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getphdrnum(elf, &phnum)) {
		elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	/* the dynamic loader, then the libraries the program names */
	for (i = 0; i < phnum; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					 ELF_T_BYTE);
		if (d && d->d_size && ((char *)d->d_buf)[d->d_size - 1] == 0)
			ap_unwind__preload(u, d->d_buf);
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Dyn dyn;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			struct needed_ctx n = { u, NULL, 0 };

			if (!gelf_getdyn(d, (int)k, &dyn) ||
			    dyn.d_tag != DT_NEEDED)
				continue;
			n.name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (n.name && !strchr(n.name, '/'))
				ap_gpu_search_dirs(exe, getenv("LD_LIBRARY_PATH"),
						   "/etc/ld.so.conf", 1,
						   try_dir, &n);
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}
