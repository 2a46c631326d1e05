// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer: recorded mappings -> modules -> libdw.
 *
 * Each address space (pid, start_ticks) keeps its mappings in a sorted
 * array.  A mapping points at a module, one per (path, build-id) across
 * every address space, so a library shared by all processes is opened once.
 * A module is opened on its first lookup: libdwfl reports the ELF file
 * alone in its own Dwfl at its link-time addresses (module address == ELF
 * virtual address), and the standard callbacks find separate debuginfo
 * (/usr/lib/debug/.build-id, debuglink, debuginfod where configured).
 *
 * A user address becomes a file offset (ip - start + pgoff), then an ELF
 * virtual address through the PT_LOAD segment holding that offset.  Results
 * are cached per (module, file offset) and kernel results per address, so
 * the work done grows with unique addresses, not with samples.  The strings
 * of every result are interned and live as long as the symbolizer.
 *
 * Conventions: dso_offset is the ELF virtual address (what objdump and
 * addr2line take) when the file is usable, else the file offset; kernel
 * dso_offset is the address itself.  A return address is looked up, and
 * its offsets reported, as ip - 1.  Stats: lookups counts the resolutions
 * actually done (cache misses, and addresses outside every mapping, which
 * are not cached), cache_hits the rest, unresolved the lookups that found
 * no symbol, modules the distinct (path, build-id) pairs seen.
 *
 * Not thread-safe: one symbolizer per thread.
 */
#include "symbols/symbolizer.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "python/names.h"
#include "record/bidcache.h"
#include "symbols/debuginfod.h"
#include "symbols/demangle.h"
#include "symbols/dwcache.h"
#include "util/hmap.h"
#include "util/safefile.h"
#include "util/vec.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define KERNEL_DSO	"[kernel.kallsyms]"
#define DELETED_SUFFIX	" (deleted)"
/* warnings said, the rest counted */
#define WARN_MAX	20

/* ---- a chained hash table; nodes are embedded in their entries ---- */

struct hnode {
	struct hnode *next;
	uint64_t hash;
};

struct htab {
	struct hnode **buckets;
	size_t nr_buckets;	/* 0 or a power of two */
	size_t nr;
};

/* a process by its pid and start time */
static uint64_t proc_hash(uint32_t pid, uint64_t start_ticks)
{
	return ap_hash64(((uint64_t)pid << 32) ^ ap_hash64(start_ticks));
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	/* FNV-1a */
	h ^= 0xcbf29ce484222325ULL;
	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int htab__grow(struct htab *h)
{
	size_t nr = h->nr_buckets ? h->nr_buckets * 2 : 64, i;
	struct hnode **b = calloc(nr, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < h->nr_buckets; i++) {
		struct hnode *n = h->buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			n->next = b[n->hash & (nr - 1)];
			b[n->hash & (nr - 1)] = n;
		}
	}
	free(h->buckets);
	h->buckets = b;
	h->nr_buckets = nr;
	return 0;
}

static int htab__insert(struct htab *h, struct hnode *n, uint64_t hash)
{
	struct hnode **slot;

	if (h->nr >= h->nr_buckets && htab__grow(h))
		return -ENOMEM;
	slot = &h->buckets[hash & (h->nr_buckets - 1)];
	n->hash = hash;
	n->next = *slot;
	*slot = n;
	h->nr++;
	return 0;
}

static void htab__remove(struct htab *h, struct hnode *n)
{
	struct hnode **pp;

	if (!h->nr_buckets)
		return;
	for (pp = &h->buckets[n->hash & (h->nr_buckets - 1)]; *pp;
	     pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			h->nr--;
			return;
		}
	}
}

static struct hnode *htab__bucket(const struct htab *h, uint64_t hash)
{
	return h->nr_buckets ? h->buckets[hash & (h->nr_buckets - 1)] : NULL;
}

/* Empties the table, calling fn on every node. */
static void htab__clear(struct htab *h, void (*fn)(struct hnode *n))
{
	size_t i;

	for (i = 0; i < h->nr_buckets; i++) {
		struct hnode *n = h->buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			fn(n);
		}
	}
	free(h->buckets);
	h->buckets = NULL;
	h->nr_buckets = 0;
	h->nr = 0;
}

static void hnode__free(struct hnode *n)
{
	free(n);	/* the node is the first member of its entry */
}

/* ---- objects ---- */

enum module_state {
	MODULE_UNOPENED,
	MODULE_OK,
	MODULE_UNUSABLE,	/* missing, mismatched or unreadable: dso+off */
	MODULE_PSEUDO,		/* "[vdso]", "[heap]"...: no file to read */
};

struct load_seg {
	uint64_t offset;
	uint64_t filesz;
	uint64_t vaddr;
};

/* a function symbol; sizeless ones (assembly labels) end at the next */
struct func_sym {
	uint64_t start;			/* module address */
	uint64_t end;
	const char *name;		/* in the ELF's string table */
	int sized;
	int rank;			/* binding: global 2, weak 1, local 0 */
	int idx;			/* in the symbol table */
};

struct module {
	struct hnode node;		/* first: freed through it */
	const char *path;		/* interned */
	const char *dso;		/* basename, interned */
	const char *file;		/* the file read (interned): path or
					 * its copy in the build-id cache */
	uint32_t build_id_len;
	uint8_t build_id[AP_BUILD_ID_MAX];
	enum module_state state;
	Dwfl *dwfl;
	Dwfl_Module *dwmod;
	Dwarf_Addr bias;
	struct load_seg *loads;
	size_t nr_loads;
	struct func_sym *syms;		/* sorted by start */
	size_t nr_syms;
	bool dwarf_read;		/* module__dwarf ran */
	bool no_dwarf;			/* its DWARF was refused */
	bool alt_found;			/* its dwz file was ours, checked */
	struct ap_symbolizer *owner;	/* for libdw's callbacks */
};

/* shared by the versions of an address space that hold it */
struct as_map {
	struct module *mod;		/* set on first lookup */
	unsigned int refs;
	/* last: allocated only as far as the end of its path (a process
	 * has hundreds of mappings, and AP_PATH_MAX is 4 KB) */
	struct ap_mmap m;
};

/* the bytes of an as_map whose path is len bytes long */
#define AS_MAP_SIZE(len) \
	(offsetof(struct as_map, m) + offsetof(struct ap_mmap, path) + (len) + 1)

struct ap_addrspace {
	struct hnode node;		/* first: freed through it */
	struct ap_symbolizer *s;
	struct ap_addrspace *next_version;	/* clones, freed with s */
	uint32_t pid;
	uint64_t start_ticks;
	struct as_map **maps;		/* sorted by start, disjoint */
	size_t nr;
	size_t cap;
	uint64_t stamp;			/* ap_addrspace__stamp */
};

struct cache_ent {
	struct hnode node;		/* first: freed through it */
	const void *mod;		/* user: module; kernel: NULL */
	uint64_t addr;			/* user: file offset; kernel: ip */
	struct ap_sym_loc *loc;		/* in the same allocation */
};

struct istr {
	struct hnode node;		/* first: freed through it */
	char s[];
};

/* code a process generated, named by its perf map */
struct jit_sym {
	uint64_t start, end;
	const char *name;		/* interned */
	size_t seq;			/* order read: the later one wins */
};

struct jittab {
	struct hnode node;		/* first: freed through it */
	uint32_t pid;
	uint64_t start_ticks;
	const char *dso;		/* "perf-PID.map", interned */
	struct jit_sym *v;
	size_t nr, cap;
	int sorted;
};

struct ap_symbolizer {
	struct ap_symbolizer_opts opts;
	struct ap_pynames *py;		/* Python frames (lib/python) */
	struct htab spaces;
	struct ap_addrspace *versions;	/* made by ap_addrspace__clone */
	uint64_t as_stamps;		/* the last ap_addrspace.stamp given */
	struct htab modules;
	struct htab strings;
	struct htab cache;		/* user results */
	struct htab kcache;		/* kernel results */
	struct ap_kallsyms *ksyms;
	struct ap_symbolizer_stats stats;
	uint64_t warned;		/* warnings, said or not */
	struct htab jits;		/* JIT symbols per process */
	int vdso_fd;			/* the vDSO image (memfd), or -1 */
	char vdso_path[64];		/* /proc/self/fd/N */
	struct dw_alias *aliases;	/* debug files read through the cache */
	int cache_err;			/* the debug cache's last error, said */
	uint64_t inflate_left;		/* of opts.debug_limits.inflate */
	int servers_err;		/* the servers' last failure, said */
};

/* a debug file read through its copy in the debug cache: where a dwz
 * link relative to it points */
struct dw_alias {
	struct dw_alias *next;
	char *copy, *orig;
};

/* what an address resolves to when nothing is known about it */
static const struct ap_sym_loc unknown_loc;

/* fd is the debug file of a module with build-id bid (n bytes), or,
 * without one, of debuglink CRC crc */
static int debugfile_matches(int fd, const unsigned char *bid, int n,
			     GElf_Word crc)
{
	Elf *elf;
	int ok = 0;

	if (n > 0) {
		const void *id;

		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!elf)
			return 0;
		ok = dwelf_elf_gnu_build_id(elf, &id) == n &&
		     !memcmp(id, bid, (size_t)n);
		elf_end(elf);
		return ok;
	} else {
		unsigned char buf[65536];
		uLong c = crc32(0L, Z_NULL, 0);
		off_t off = 0;
		ssize_t got;

		while ((got = pread(fd, buf, sizeof(buf), off)) > 0) {
			c = crc32(c, buf, (uInt)got);
			off += got;
		}
		return !got && (GElf_Word)c == crc;
	}
}

static int try_debugfile(const char *path, const unsigned char *bid, int n,
			 GElf_Word crc, char **name)
{
	int fd = ap_open_regular(path, 0);

	if (fd < 0)
		return -1;
	if (!debugfile_matches(fd, bid, n, crc)) {
		close(fd);
		return -1;
	}
	*name = strdup(path);
	return fd;
}

#define ALT_ID_MAX	64

/*
 * The .gnu_debugaltlink of path (a module or its debug file): the name
 * of the dwz file that holds what its DWARF shares with other files, and
 * that file's build-id.  0, or -1 when it has none that names name.
 */
static int altlink_of(const char *path, const char *name, unsigned char *id,
		      int *id_len)
{
	int fd = ap_open_regular(path, 0), ret = -1;
	size_t shstrndx, n;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sn, *p;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".gnu_debugaltlink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			break;
		p = d->d_buf;
		n = strnlen(p, d->d_size);
		if (n >= d->d_size || strcmp(p, name) ||
		    d->d_size - n - 1 == 0 ||
		    d->d_size - n - 1 > ALT_ID_MAX)
			break;
		*id_len = (int)(d->d_size - n - 1);
		memcpy(id, p + n + 1, (size_t)*id_len);
		ret = 0;
		break;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

/* path of build-id id under SYMFS/usr/lib/debug/.build-id; 0 or -1 */
static int build_id_path(char *path, size_t len, const char *symfs,
			 const unsigned char *id, int n)
{
	size_t off;
	int i;

	if (n < 2)
		return -1;
	off = (size_t)snprintf(path, len, "%s/usr/lib/debug/.build-id/%02x/",
			       symfs, id[0]);
	if (off >= len)
		return -1;
	for (i = 1; i < n && off + 3 < len; i++)
		off += (size_t)snprintf(path + off, len - off, "%02x", id[i]);
	return i == n && (size_t)snprintf(path + off, len - off, ".debug") <
			 len - off ? 0 : -1;
}

static void symbolizer__warn(struct ap_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void build_id__hex(const uint8_t *id, size_t len, char *buf,
			  size_t size);

/*
 * What the servers did for the file (kind) of build-id id, err from
 * lib/symbols/debuginfod.h, said: an answer of another build-id (the file
 * at path; err 0) each time, a budget spent or a server's failure once;
 * "not on the servers" is the caller's to say.  -ESRCH for the answer of
 * another build-id, else err.
 */
static int servers_said(struct ap_symbolizer *s, int err, const char *kind,
			const unsigned char *id, int n, const char *path)
{
	char want[2 * AP_BUILD_ID_MAX + 1], have[2 * AP_BUILD_ID_MAX + 1];
	struct ap_debuginfod_stats st;
	uint8_t got[AP_BUILD_ID_MAX];
	int len;

	if (!s || err == -ENOENT || err == -ENOSYS)
		return err;
	build_id__hex(id, n > 0 ? (size_t)n : 0, want, sizeof(want));
	if (!err) {
		len = ap_read_build_id_safe(path, got, sizeof(got));
		build_id__hex(got, len > 0 ? (size_t)len : 0, have,
			      sizeof(have));
		symbolizer__warn(s, "the debuginfod servers' answer for the %s of build-id %s is a file of build-id %s ('%s'); not using it",
				 kind, want, have, path);
		return -ESRCH;
	}
	if (err == s->servers_err)
		return err;
	s->servers_err = err;
	ap_debuginfod__stats(&st);
	if (err == -ETIME)
		symbolizer__warn(s, "debuginfod: the servers have had the %" PRIu64 " s a report gives them (--debuginfod-time, DEBUGINFOD_MAXTIME): the %s of build-id %s and any build-id after it are not looked up",
				 st.time, kind, want);
	else if (err == -EFBIG)
		symbolizer__warn(s, "debuginfod: the %s of build-id %s is larger than what is left of the %" PRIu64 " bytes a report may download (--debuginfod-size, DEBUGINFOD_MAXSIZE); not downloaded",
				 kind, want, st.size);
	else if (err == -ELOOP)
		symbolizer__warn(s, "debuginfod: the servers redirected the lookup of the %s of build-id %s more than %d times a server; stopped",
				 kind, want, AP_DEBUGINFOD_REDIRS);
	else
		symbolizer__warn(s, "debuginfod: the servers failed for the %s of build-id %s: %s",
				 kind, want, strerror(-err));
	return err;
}

/* last: the debuginfod servers of DEBUGINFOD_URLS (none: -1) */
static int servers_debugfile(struct ap_symbolizer *s, const unsigned char *id,
			     int n, char **name)
{
	char path[AP_PATH_MAX];
	int fd, err;

	if (n <= 0 || !ap_debuginfod__enabled())
		return -1;
	err = ap_debuginfod__find_debuginfo(id, (size_t)n, path,
					    sizeof(path));
	if (err) {
		servers_said(s, err, "debug file", id, n, NULL);
		return -1;
	}
	fd = try_debugfile(path, id, n, 0, name);
	if (fd < 0)
		servers_said(s, 0, "debug file", id, n, path);
	return fd;
}

/*
 * The dwz file of a module's DWARF (file_name: the debug file, or the
 * module itself, with the .gnu_debugaltlink): by its build-id, at the
 * path the link names (under --symfs when absolute, beside file_name
 * when relative), and on the servers; it must carry the link's build-id.
 */
static int find_altfile(struct ap_symbolizer *s, const char *symfs,
			const char *file_name, const char *link,
			const unsigned char *id, int n, char **name)
{
	char path[AP_PATH_MAX + 64];
	const char *slash;
	int fd;

	if (!build_id_path(path, sizeof(path), symfs, id, n)) {
		fd = try_debugfile(path, id, n, 0, name);
		if (fd >= 0)
			return fd;
	}
	if (link[0] == '/') {
		fd = -1;
		if ((size_t)snprintf(path, sizeof(path), "%s%s", symfs,
				     link) < sizeof(path))
			fd = try_debugfile(path, id, n, 0, name);
	} else {
		slash = strrchr(file_name, '/');
		fd = -1;
		if (slash && (size_t)snprintf(path, sizeof(path), "%.*s/%s",
					      (int)(slash - file_name),
					      file_name, link) < sizeof(path))
			fd = try_debugfile(path, id, n, 0, name);
	}
	if (fd >= 0)
		return fd;
	return servers_debugfile(s, id, n, name);
}

/*
 * libdwfl's standard search for a module's debug file, done through
 * ap_open_regular: it opens what a debuglink names (next to the module,
 * in its .debug directory) with a plain open(), and a FIFO planted there
 * by whoever can write that directory hung report; with DEBUGINFOD_URLS
 * set, it searched them again before asking the servers.  The build-id
 * directory, then the debuglink in the module's directory, its .debug,
 * and under /usr/lib/debug, all under --symfs when given (perf's), then
 * the servers; a candidate must carry the module's build-id (or the
 * debuglink's CRC where the module has none).  libdwfl asks the same
 * callback for the dwz file that the DWARF found names
 * (.gnu_debugaltlink): the link's name with CRC 0 (*found_id is alt_id
 * then); module__dwarf reads no DWARF that needs one it was not given.
 */
static int find_debugfile(struct ap_symbolizer *s, Dwfl_Module *mod,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name,
			  unsigned char *alt_id, const unsigned char **found_id,
			  int *found_len)
{
	static const char *const fmts[] = {
		"%s%.*s/%s", "%s%.*s/.debug/%s", "%s/usr/lib/debug%.*s/%s",
	};
	const char *symfs = s && s->opts.symfs ? s->opts.symfs : "";
	size_t symfs_len = strlen(symfs);
	const unsigned char *bid = NULL;
	char path[AP_PATH_MAX + 64];
	const char *slash, *dir;
	struct dw_alias *a;
	GElf_Addr vaddr;
	int n, i, fd, dirlen, alt_len;

	/* a debug file read through the debug cache: its dwz file is
	 * beside the original */
	for (a = s ? s->aliases : NULL; a && file_name; a = a->next)
		if (!strcmp(a->copy, file_name)) {
			file_name = a->orig;
			break;
		}
	if (debuglink_file && debuglink_file[0] && !debuglink_crc &&
	    file_name &&
	    !altlink_of(file_name, debuglink_file, alt_id, &alt_len)) {
		*found_id = alt_id;
		*found_len = alt_len;
		return find_altfile(s, symfs, file_name, debuglink_file, alt_id,
				    alt_len, debuginfo_file_name);
	}
	n = dwfl_module_build_id(mod, &bid, &vaddr);
	*found_id = bid;
	*found_len = n;
	if (n > 0 && !build_id_path(path, sizeof(path), symfs, bid, n)) {
		fd = try_debugfile(path, bid, n, 0, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!debuglink_file || !file_name || !debuglink_file[0] ||
	    strchr(debuglink_file, '/'))
		goto out_servers;
	slash = strrchr(file_name, '/');
	for (i = 0; i < (int)(sizeof(fmts) / sizeof(fmts[0])); i++) {
		/* the module's directory as the target saw it: under
		 * /usr/lib/debug of the same root */
		dir = file_name;
		if (i == 2 && symfs_len && !strncmp(dir, symfs, symfs_len))
			dir += symfs_len;
		dirlen = slash ? (int)(slash - dir) : 0;
		if ((size_t)snprintf(path, sizeof(path), fmts[i],
				     i == 2 ? symfs : "", dirlen, dir,
				     debuglink_file) >= sizeof(path))
			continue;
		/* the module itself is not its debug file */
		if (!strcmp(path, file_name))
			continue;
		fd = try_debugfile(path, bid, n, debuglink_crc,
				   debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
out_servers:
	fd = servers_debugfile(s, bid, n, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	errno = ENOENT;
	return -1;
}

/*
 * The bytes the compressed sections of file fd inflate to; -1 when they
 * claim more than they can hold (or are malformed), said once: libdw would
 * allocate what they claim.
 */
static int64_t dwarf_checked(struct ap_symbolizer *s, int fd,
			     const char *name)
{
	uint64_t claim;
	int64_t ret;
	int bad;

	ret = ap_dwcache__check(fd, &bad, &claim);
	if (ret >= 0)
		return ret;
	if (ret == -EFBIG && bad >= 0)
		symbolizer__warn(s, "debug file '%s' refused: its compressed section %d claims %" PRIu64 " bytes once inflated, more than it can hold; symbols only",
				 name, bad, claim);
	else if (ret == -EFBIG)
		symbolizer__warn(s, "debug file '%s' refused: its compressed sections claim %" PRIu64 " bytes once inflated, more than 4 GiB; symbols only",
				 name, claim);
	else
		symbolizer__warn(s, "debug file '%s' refused: its compressed sections are malformed; symbols only",
				 name);
	s->stats.debug_refused++;
	return -1;
}

/*
 * bytes more inflated by this symbolizer, within what one may inflate:
 * 0, or -1 with the file refused, said
 */
static int inflate_charge(struct ap_symbolizer *s, uint64_t bytes,
			  const char *name)
{
	if (bytes <= s->inflate_left) {
		s->inflate_left -= bytes;
		return 0;
	}
	symbolizer__warn(s, "debug file '%s' refused: its compressed sections claim %" PRIu64 " bytes once inflated, more than the %" PRIu64 " left of the %" PRIu64 " one report may inflate (--debug-inflate, APERTURE_DEBUG_INFLATE); symbols only",
			 name, bytes, s->inflate_left,
			 s->opts.debug_limits.inflate);
	s->stats.debug_refused++;
	return -1;
}

/*
 * The debug file found (fd, build-id id of n bytes), checked first: one
 * whose compressed sections claim more than they can hold is refused,
 * since libdw would allocate what they claim.  When DWARF is wanted, read
 * through its uncompressed copy in the debug cache (lib/symbols/dwcache.h): libdw
 * would inflate its compressed sections whole, every report.  What is
 * inflated, by libdw or into the cache, is charged to what one report
 * may inflate; a copy read from the cache inflates nothing.
 */
static int debug_checked(struct ap_symbolizer *s, int fd,
			 const unsigned char *id, int n, char **name)
{
	char path[AP_PATH_MAX + 64];
	struct dw_alias *a;
	uint64_t inflated;
	int64_t ret;
	int cfd;

	ret = dwarf_checked(s, fd, *name);
	if (ret < 0)
		goto refused;
	if (!ret || !s->opts.debug_cache || n <= 0 || !*name ||
	    (s->opts.no_inline && s->opts.no_srcline))
		goto by_libdw;
	cfd = ap_dwcache__open(s->opts.debug_cache, &s->opts.debug_limits,
			       s->inflate_left, fd, id, (size_t)n, path,
			       sizeof(path), &inflated);
	if (cfd == -EDQUOT)
		goto by_libdw;	/* refused there, said */
	if (cfd < 0) {
		/* said once, not for every debug file: a directory refused
		 * refuses them all */
		if (cfd != -ENODATA && cfd != s->cache_err)
			symbolizer__warn(s, "debug cache: cannot keep an uncompressed copy of '%s' in '%s': %s%s",
					 *name, s->opts.debug_cache,
					 ap_open_strerror(cfd),
					 cfd == -EPERM ? " (not a directory of this user's own that no one else can write)" :
					 cfd == -ENOSPC ? " (it would leave less than a tenth of the filesystem free)" :
					 cfd == -E2BIG ? " (more than the cache may hold: --debug-cache-size, --debug-cache-files)" : "");
		s->cache_err = cfd;
		goto by_libdw;
	}
	a = calloc(1, sizeof(*a));
	if (a) {
		a->copy = strdup(path);
		a->orig = strdup(*name);
	}
	if (!a || !a->copy || !a->orig) {
		if (a) {
			free(a->copy);
			free(a->orig);
		}
		free(a);
		close(cfd);
		goto by_libdw;
	}
	close(fd);
	free(*name);
	*name = strdup(path);
	a->next = s->aliases;
	s->aliases = a;
	if (inflated) {
		s->inflate_left -= inflated;
		s->stats.debug_cache_made++;
		s->stats.dwarf_inflated += inflated;
	} else {
		s->stats.debug_cache_used++;
	}
	return cfd;

by_libdw:
	/* libdw inflates what it reads of the file as it is */
	if (!inflate_charge(s, (uint64_t)ret, *name))
		return fd;
refused:
	close(fd);
	free(*name);
	*name = NULL;
	errno = EINVAL;
	return -1;
}

static int safe_find_debuginfo(Dwfl_Module *mod, void **userdata,
			       const char *modname, Dwarf_Addr base,
			       const char *file_name,
			       const char *debuglink_file,
			       GElf_Word debuglink_crc,
			       char **debuginfo_file_name)
{
	struct module *m = userdata ? *userdata : NULL;
	struct ap_symbolizer *s = m ? m->owner : NULL;
	unsigned char alt_id[ALT_ID_MAX];
	const unsigned char *id = NULL;
	int fd, n = 0;

	fd = find_debugfile(s, mod, file_name, debuglink_file, debuglink_crc,
			    debuginfo_file_name, alt_id, &id, &n);
	if (fd < 0 || !s)
		return fd;
	fd = debug_checked(s, fd, id, n, debuginfo_file_name);
	if (fd >= 0 && id == alt_id) {
		/* a dwz file libdwfl cannot read as DWARF (one that only
		 * carries the build-id) would leave libdw's dwarf_getalt to
		 * search for it itself, with a plain open(): refused here,
		 * and module__dwarf reads no DWARF that needs it */
		Dwarf *alt = dwarf_begin(fd, DWARF_C_READ);

		if (!alt) {
			close(fd);
			free(*debuginfo_file_name);
			*debuginfo_file_name = NULL;
			return -1;
		}
		dwarf_end(alt);
		m->alt_found = true;
	}
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = safe_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = NULL,		/* libdw's default search path */
};

static void symbolizer__say(struct ap_symbolizer *s, const char *msg)
{
	if (s->opts.warn)
		s->opts.warn(s->opts.warn_ctx, msg);
	else
		fprintf(stderr, "aperture: warning: %s\n", msg);
}

/* one a file at most, WARN_MAX in all: a file of 41 KB can name
 * thousands of missing files; the rest are counted, said at the end */
static void symbolizer__warn(struct ap_symbolizer *s, const char *fmt, ...)
{
	char msg[AP_PATH_MAX + 512];
	va_list ap;

	if (s->warned++ >= WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	symbolizer__say(s, msg);
}

/* Interned copy of str, valid until the symbolizer is freed; NULL for NULL
 * or when memory ran out (the caller then reports "unknown"). */
static const char *symbolizer__intern(struct ap_symbolizer *s,
				      const char *str)
{
	uint64_t hash;
	struct hnode *n;
	struct istr *is;
	size_t len;

	if (!str)
		return NULL;
	len = strlen(str);
	hash = hash_bytes(str, len, 0);
	for (n = htab__bucket(&s->strings, hash); n; n = n->next) {
		is = (struct istr *)n;
		if (n->hash == hash && strcmp(is->s, str) == 0)
			return is->s;
	}
	is = malloc(sizeof(*is) + len + 1);
	if (!is)
		return NULL;
	memcpy(is->s, str, len + 1);
	if (htab__insert(&s->strings, &is->node, hash)) {
		free(is);
		return NULL;
	}
	return is->s;
}

/* Interned demangled name (unless the options say not to). */
static const char *symbolizer__name(struct ap_symbolizer *s, const char *name)
{
	const char *ret;
	char *dem;

	if (!name || s->opts.no_demangle)
		return symbolizer__intern(s, name);
	dem = ap_demangle(name);
	if (dem && s->opts.no_params)
		ap_demangle_strip_params(dem);
	ret = symbolizer__intern(s, dem ? dem : name);
	free(dem);
	return ret;
}

struct ap_symbolizer *ap_symbolizer__new(const struct ap_symbolizer_opts *o)
{
	struct ap_symbolizer *s = calloc(1, sizeof(*s));
	const char *bad = NULL;

	if (!s)
		return NULL;
	if (o)
		s->opts = *o;
	s->vdso_fd = -1;
	if (ap_dwcache__limits(&s->opts.debug_limits, &bad))
		symbolizer__warn(s, "%s='%s' is not a count or size (as 512M, 2G): the default is used",
				 bad, getenv(bad));
	s->inflate_left = s->opts.debug_limits.inflate;
	return s;
}

int ap_symbolizer__set_vdso(struct ap_symbolizer *s, const void *image,
			    size_t len)
{
	const uint8_t *p = image;
	size_t off = 0;
	int fd;

	if (!s || !image || len < 4 || memcmp(image, "\177ELF", 4))
		return -EINVAL;
	if (s->vdso_fd >= 0)
		return 0;	/* the first one: one kernel per file */
	fd = memfd_create("aperture-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		off += n;
	}
	s->vdso_fd = fd;
	snprintf(s->vdso_path, sizeof(s->vdso_path), "/proc/self/fd/%d", fd);
	return 0;
}

static void jittab__free(struct hnode *n)
{
	free(((struct jittab *)n)->v);
	free(n);
}

static void module__free(struct hnode *n)
{
	struct module *mod = (struct module *)n;

	if (mod->dwfl)
		dwfl_end(mod->dwfl);
	free(mod->syms);
	free(mod->loads);
	free(mod);
}

static void addrspace__free(struct hnode *n)
{
	struct ap_addrspace *as = (struct ap_addrspace *)n;

	ap_addrspace__reset(as);
	free(as->maps);
	free(as);
}

void ap_symbolizer__free(struct ap_symbolizer *s)
{
	char msg[128];

	if (!s)
		return;
	if (s->warned > WARN_MAX) {
		snprintf(msg, sizeof(msg),
			 "%" PRIu64 " more warnings about the recorded files not shown (%d were)",
			 s->warned - WARN_MAX, WARN_MAX);
		symbolizer__say(s, msg);
	}
	while (s->versions) {
		struct ap_addrspace *as = s->versions;

		s->versions = as->next_version;
		addrspace__free(&as->node);
	}
	htab__clear(&s->spaces, addrspace__free);
	ap_pynames__free(s->py);
	htab__clear(&s->cache, hnode__free);
	htab__clear(&s->kcache, hnode__free);
	htab__clear(&s->modules, module__free);
	htab__clear(&s->jits, jittab__free);
	htab__clear(&s->strings, hnode__free);
	ap_kallsyms__free(s->ksyms);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	while (s->aliases) {
		struct dw_alias *a = s->aliases;

		s->aliases = a->next;
		free(a->copy);
		free(a->orig);
		free(a);
	}
	free(s);
}

void ap_symbolizer__stats(const struct ap_symbolizer *s,
			  struct ap_symbolizer_stats *st)
{
	if (!st)
		return;
	if (s)
		*st = s->stats;
	else
		memset(st, 0, sizeof(*st));
}

/* ---- address spaces ---- */

/* a new stamp: what was resolved through the old one is stale */
static void as_touch(struct ap_addrspace *as)
{
	as->stamp = ++as->s->as_stamps;
}

struct ap_addrspace *ap_symbolizer__addrspace(struct ap_symbolizer *s,
					      uint32_t pid,
					      uint64_t start_ticks)
{
	struct ap_addrspace *as;
	struct hnode *n;
	uint64_t hash;

	if (!s)
		return NULL;
	hash = proc_hash(pid, start_ticks);
	for (n = htab__bucket(&s->spaces, hash); n; n = n->next) {
		as = (struct ap_addrspace *)n;
		if (n->hash == hash && as->pid == pid &&
		    as->start_ticks == start_ticks)
			return as;
	}
	as = calloc(1, sizeof(*as));
	if (!as)
		return NULL;
	as->s = s;
	as_touch(as);
	as->pid = pid;
	as->start_ticks = start_ticks;
	if (htab__insert(&s->spaces, &as->node, hash)) {
		free(as);
		return NULL;
	}
	return as;
}

void ap_symbolizer__drop_addrspace(struct ap_symbolizer *s,
				   struct ap_addrspace *as)
{
	if (!s || !as || as->s != s)
		return;
	htab__remove(&s->spaces, &as->node);
	addrspace__free(&as->node);
}

static void as_map__put(struct as_map *map)
{
	if (map && !--map->refs)
		free(map);
}

void ap_addrspace__reset(struct ap_addrspace *as)
{
	size_t i;

	if (!as)
		return;
	for (i = 0; i < as->nr; i++)
		as_map__put(as->maps[i]);
	as->nr = 0;
	as_touch(as);
}

uint64_t ap_addrspace__stamp(const struct ap_addrspace *as)
{
	return as ? as->stamp : 0;
}

uint32_t ap_addrspace__pid(const struct ap_addrspace *as)
{
	return as ? as->pid : 0;
}

/* dst takes src's mappings, shared */
static int addrspace__assign(struct ap_addrspace *dst,
			     const struct ap_addrspace *src)
{
	size_t i;

	if (src->nr > dst->cap) {
		struct as_map **maps = realloc(dst->maps,
					       src->nr * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		dst->maps = maps;
		dst->cap = src->nr;
	}
	ap_addrspace__reset(dst);
	for (i = 0; i < src->nr; i++) {
		dst->maps[i] = src->maps[i];
		dst->maps[i]->refs++;
	}
	dst->nr = src->nr;	/* the reset gave it a new stamp */
	return 0;
}

struct ap_addrspace *ap_addrspace__clone(const struct ap_addrspace *as,
					 int keep_maps)
{
	struct ap_addrspace *v;

	if (!as)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->s = as->s;
	as_touch(v);
	v->pid = as->pid;
	v->start_ticks = as->start_ticks;
	if (keep_maps && addrspace__assign(v, as)) {
		free(v);
		return NULL;
	}
	v->next_version = as->s->versions;
	as->s->versions = v;
	return v;
}

int ap_addrspace__copy(struct ap_addrspace *dst,
		       const struct ap_addrspace *src)
{
	if (!dst || !src)
		return -EINVAL;
	if (dst == src)
		return 0;
	return addrspace__assign(dst, src);
}

size_t ap_addrspace__count(const struct ap_addrspace *as)
{
	return as ? as->nr : 0;
}

const struct ap_mmap *ap_addrspace__at(const struct ap_addrspace *as,
				       size_t i)
{
	return as && i < as->nr ? &as->maps[i]->m : NULL;
}

/* index of the first mapping ending above addr (as->nr if none) */
static size_t addrspace__lower(const struct ap_addrspace *as, uint64_t addr)
{
	size_t lo = 0, hi = as->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->maps[mid]->m.end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct as_map *as_map__clone(const struct as_map *src, uint64_t start,
				    uint64_t end)
{
	size_t sz = AS_MAP_SIZE(strlen(src->m.path));
	struct as_map *p = malloc(sz);

	if (!p)
		return NULL;
	memcpy(p, src, sz);
	p->refs = 1;
	p->m.pgoff += start - src->m.start;
	p->m.start = start;
	p->m.end = end;
	return p;
}

int ap_addrspace__add_mapping(struct ap_addrspace *as, const struct ap_mmap *m)
{
	struct as_map *map, *head = NULL, *tail = NULL;
	size_t i, j, k, nr_new, len;
	int err;

	if (!as || !m || m->start >= m->end)
		return -EINVAL;

	/* [i, j) overlap the new range: they go, their outer parts stay */
	i = addrspace__lower(as, m->start);
	for (j = i; j < as->nr && as->maps[j]->m.start < m->end; j++)
		;
	nr_new = as->nr - (j - i) + 1;

	err = -ENOMEM;
	len = strnlen(m->path, sizeof(m->path) - 1);
	map = malloc(AS_MAP_SIZE(len));
	if (!map)
		goto out_err;
	memcpy(&map->m, m, offsetof(struct ap_mmap, path));
	memcpy(map->m.path, m->path, len);
	map->m.path[len] = '\0';
	if (map->m.build_id_len > AP_BUILD_ID_MAX)
		map->m.build_id_len = AP_BUILD_ID_MAX;
	map->mod = NULL;
	map->refs = 1;
	if (i < j && as->maps[i]->m.start < m->start) {
		head = as_map__clone(as->maps[i], as->maps[i]->m.start,
				     m->start);
		if (!head)
			goto out_err;
		nr_new++;
	}
	if (i < j && as->maps[j - 1]->m.end > m->end) {
		tail = as_map__clone(as->maps[j - 1], m->end,
				     as->maps[j - 1]->m.end);
		if (!tail)
			goto out_err;
		nr_new++;
	}
	if (nr_new > as->cap) {
		size_t cap = as->cap ? as->cap * 2 : 32;
		struct as_map **maps;

		while (cap < nr_new)
			cap *= 2;
		maps = realloc(as->maps, cap * sizeof(*maps));
		if (!maps)
			goto out_err;
		as->maps = maps;
		as->cap = cap;
	}

	for (k = i; k < j; k++)
		as_map__put(as->maps[k]);
	k = i + !!head + 1 + !!tail;
	memmove(&as->maps[k], &as->maps[j], (as->nr - j) * sizeof(*as->maps));
	k = i;
	if (head)
		as->maps[k++] = head;
	as->maps[k++] = map;
	if (tail)
		as->maps[k++] = tail;
	as->nr = nr_new;
	as_touch(as);
	return 0;

out_err:
	free(tail);
	free(head);
	free(map);
	return err;
}

static struct as_map *addrspace__lookup(const struct ap_addrspace *as,
					uint64_t addr)
{
	size_t i = addrspace__lower(as, addr);

	if (i < as->nr && as->maps[i]->m.start <= addr)
		return as->maps[i];
	return NULL;
}

int ap_addrspace__overlaps(const struct ap_addrspace *as, uint64_t start,
			   uint64_t end)
{
	size_t i;

	if (!as)
		return 0;
	i = addrspace__lower(as, start);
	return i < as->nr && as->maps[i]->m.start < end;
}

int ap_addrspace__overlaps_code(const struct ap_addrspace *as,
				uint64_t start, uint64_t end)
{
	size_t i;

	if (!as)
		return 0;
	for (i = addrspace__lower(as, start);
	     i < as->nr && as->maps[i]->m.start < end; i++)
		if (as->maps[i]->m.prot & PROT_EXEC)
			return 1;
	return 0;
}

const struct ap_mmap *ap_addrspace__find(const struct ap_addrspace *as,
					 uint64_t addr)
{
	struct as_map *map;

	if (!as)
		return NULL;
	map = addrspace__lookup(as, addr);
	return map ? &map->m : NULL;
}

/* ---- modules ---- */

static void build_id__hex(const uint8_t *id, size_t len, char *buf,
			  size_t size)
{
	size_t i;

	if (!len) {
		snprintf(buf, size, "none");
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, size - 2 * i, "%02x", id[i]);
}

/* Orders by address; among aliases, the one to show first, as perf's
 * choose_best_symbol does: sized, global over weak over local, fewer
 * leading underscores ("malloc", not "__libc_malloc"), longer name. */
static int func_sym__cmp(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->sized != y->sized)
		return y->sized - x->sized;
	if (x->rank != y->rank)
		return y->rank - x->rank;
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->idx - y->idx;
}

/* ---- PLT stubs: named "puts@plt", as perf names them ---- */

/* a GOT slot and the dynamic symbol a relocation binds to it */
struct got_name {
	uint64_t slot;			/* ELF address */
	const char *name;		/* in the ELF's string table */
};

static int got_name__cmp(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* the GOT slots of elf bound to dynamic symbols: .rela.plt's JUMP_SLOT
 * (.plt, .plt.sec) and .rela.dyn's GLOB_DAT (.plt.got), sorted */
static int got_names(Elf *elf, struct got_name **out, size_t *nr)
{
	struct got_name *v = NULL;
	size_t cap = 0, n = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *rel, *syms;
		GElf_Rela r;
		GElf_Sym sym;
		int i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) ||
		    symsh.sh_type != SHT_DYNSYM)
			continue;
		rel = elf_getdata(scn, NULL);
		syms = elf_getdata(symscn, NULL);
		/* gelf_getrela fails past the section's end */
		for (i = 0; rel && syms && gelf_getrela(rel, i, &r); i++) {
			int type = (int)GELF_R_TYPE(r.r_info);
			const char *name;

			if ((type != R_X86_64_JUMP_SLOT &&
			     type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			if (ap_grow((void **)&v, &cap, n, sizeof(*v), 64)) {
				free(v);
				return -ENOMEM;
			}
			v[n].slot = r.r_offset;
			v[n++].name = name;
		}
	}
	ap_sort(v, n, sizeof(*v), got_name__cmp);
	*out = v;
	*nr = n;
	return 0;
}

/* the GOT slot a PLT entry at addr jumps through: jmp *disp32(%rip)
 * (ff 25), after a bnd prefix (f2), an endbr64 (f3 0f 1e fa) or both;
 * -1 for anything else (the lazy-binding PLT0, the pushes of .plt
 * beside .plt.sec) */
static int plt_slot(const uint8_t *p, size_t len, uint64_t addr,
		    uint64_t *slot)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = 0;
	int32_t disp;

	if (len >= 4 && !memcmp(p, endbr64, 4))
		at = 4;
	if (at < len && p[at] == 0xf2)
		at++;
	if (at + 6 > len || p[at] != 0xff || p[at + 1] != 0x25)
		return -1;
	memcpy(&disp, p + at + 2, 4);
	*slot = addr + at + 6 + (int64_t)disp;
	return 0;
}

/* a sized symbol "NAME@plt" for each entry of .plt, .plt.sec and
 * .plt.got that jumps through a slot bound to NAME: the stubs have no
 * symbol of their own, and perf shows them so */
static int module__plt_syms(struct module *mod, size_t *n, size_t *cap)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	struct got_name *got = NULL;
	size_t nr_got = 0, shstrndx;
	Elf_Scn *scn = NULL;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod->dwmod, &bias);
	int err;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	err = got_names(elf, &got, &nr_got);
	if (err || !nr_got)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		Elf_Data *d;
		GElf_Shdr sh;
		uint64_t ent, off;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		for (k = 0; sname && k < sizeof(plts) / sizeof(plts[0]); k++)
			if (!strcmp(sname, plts[k]))
				break;
		if (!sname || k == sizeof(plts) / sizeof(plts[0]))
			continue;
		ent = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ?
		      sh.sh_entsize : 16;
		d = elf_getdata(scn, NULL);
		for (off = 0; d && d->d_buf && off + ent <= d->d_size;
		     off += ent) {
			struct got_name key, *g;
			struct func_sym *fs;
			char buf[256];

			if (plt_slot((const uint8_t *)d->d_buf + off, ent,
				     sh.sh_addr + off, &key.slot))
				continue;
			g = bsearch(&key, got, nr_got, sizeof(*got),
				    got_name__cmp);
			if (!g)
				continue;
			if (ap_grow((void **)&mod->syms, cap, *n,
				    sizeof(*mod->syms), 64)) {
				err = -ENOMEM;
				goto out;
			}
			snprintf(buf, sizeof(buf), "%.240s@plt", g->name);
			fs = &mod->syms[*n];
			fs->name = symbolizer__intern(mod->owner, buf);
			if (!fs->name)
				continue;
			fs->start = sh.sh_addr + off + bias;
			fs->end = fs->start + ent;
			fs->sized = 1;
			fs->rank = 0;
			fs->idx = INT32_MAX;
			(*n)++;
		}
	}
out:
	free(got);
	return err;
}

/*
 * The function symbols of a module (.symtab, or .dynsym, from the file or
 * its debuginfo, as libdwfl picks), sorted once: dwfl_module_addrinfo
 * scans the whole table on every call, which made report time grow with
 * the size of libc times the number of addresses.  The choice follows
 * dwfl_module_addrinfo: a sized symbol holding the address, else the
 * closest sizeless one above every sized symbol below it.
 */
static int module__load_syms(struct module *mod)
{
	int i, nr = dwfl_module_getsymtab(mod->dwmod);
	size_t n = 0, j, cap = nr > 0 ? (size_t)nr : 0;

	if (cap) {
		mod->syms = calloc(cap, sizeof(*mod->syms));
		if (!mod->syms)
			return -ENOMEM;
	}
	for (i = 1; i < nr; i++) {
		struct func_sym *fs = &mod->syms[n];
		const char *name;
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Shdr shdr;
		GElf_Sym sym;
		Elf_Scn *scn;
		Dwarf_Addr bias;
		Elf *elf;
		int type, bind;

		name = dwfl_module_getsym_info(mod->dwmod, i, &sym, &addr,
					       &shndx, &elf, &bias);
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (!name || !name[0] || name[0] == '$' ||
		    strncmp(name, ".L", 2) == 0 || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC &&
		     type != STT_NOTYPE))
			continue;
		fs->start = addr;
		fs->end = addr + sym.st_size;
		fs->name = name;
		fs->sized = sym.st_size != 0;
		fs->rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK;
		fs->idx = i;
		if (!fs->sized) {
			/* a label: only in code, and not past its section */
			scn = elf ? elf_getscn(elf, shndx) : NULL;
			if (!scn || !gelf_getshdr(scn, &shdr) ||
			    !(shdr.sh_flags & SHF_EXECINSTR))
				continue;
			fs->end = shdr.sh_addr + shdr.sh_size + bias;
			if (fs->end <= fs->start)
				continue;
		}
		n++;
	}
	if (module__plt_syms(mod, &n, &cap))
		return -ENOMEM;
	ap_sort(mod->syms, n, sizeof(*mod->syms), func_sym__cmp);
	/* a label also ends at the next symbol */
	for (j = 0; j < n; j++) {
		size_t k;

		if (mod->syms[j].sized)
			continue;
		for (k = j + 1; k < n; k++) {
			if (mod->syms[k].start > mod->syms[j].start) {
				if (mod->syms[k].start < mod->syms[j].end)
					mod->syms[j].end = mod->syms[k].start;
				break;
			}
		}
	}
	mod->nr_syms = n;
	return 0;
}

/* how far back to look for a sized symbol that overlaps later ones */
#define SYM_LOOKBACK	16

static const struct func_sym *module__find_sym(const struct module *mod,
					       uint64_t addr)
{
	const struct func_sym *label = NULL;
	size_t lo = 0, hi = mod->nr_syms, i, stop;
	bool seen_sized = false;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* [0, lo) start at or below addr; walk back from the closest */
	stop = lo > SYM_LOOKBACK ? lo - SYM_LOOKBACK : 0;
	for (i = lo; i-- > stop;) {
		const struct func_sym *fs = &mod->syms[i];

		if (fs->sized) {
			/* aliases are sorted best first */
			if (addr < fs->end) {
				while (fs > mod->syms &&
				       fs[-1].start == fs->start &&
				       fs[-1].sized && addr < fs[-1].end)
					fs--;
				return fs;
			}
			/* a label it spans, or one below it, is not used */
			if (label && fs->end > label->start)
				label = NULL;
			seen_sized = true;
		} else if (!seen_sized && addr < fs->end &&
			   (!label || label->start == fs->start)) {
			label = fs;
		}
	}
	return label;
}

/* one place the file of mod may be: 1 when it is there with mod's
 * build-id (or mod has none), 0 when not, -1 when another build-id */
static int candidate(const struct module *mod, const char *path)
{
	uint8_t id[AP_BUILD_ID_MAX];
	int fd = ap_open_regular(path, 0), n;

	if (fd < 0)
		return 0;
	close(fd);
	if (!mod->build_id_len)
		return 1;
	n = ap_read_build_id_safe(path, id, sizeof(id));
	if (n == (int)mod->build_id_len && !memcmp(id, mod->build_id, n))
		return 1;
	return -1;
}

/*
 * Where the file of mod is, in perf's order: its path (under --symfs;
 * with " (deleted)" taken off) with the recorded build-id, the build-id
 * cache, /usr/lib/debug/.build-id, and last the debuginfod servers of
 * DEBUGINFOD_URLS.  A file of another build-id is never used.  0 with the
 * path in buf, or -ENOENT after one warning.
 */
static int module__find_file(struct ap_symbolizer *s, struct module *mod,
			     char *buf, size_t len)
{
	char hex[2 * AP_BUILD_ID_MAX + 1], have[2 * AP_BUILD_ID_MAX + 1];
	const char *symfs = s->opts.symfs ? s->opts.symfs : "";
	uint8_t id[AP_BUILD_ID_MAX];
	int mismatch = 0, srv = -ENOSYS, r, n;
	const char *why;
	size_t l;

	if (mod->path[0] == '[') {
		snprintf(buf, len, "%s", s->vdso_path);
		return 0;
	}
	snprintf(buf, len, "%s%s", symfs, mod->path);
	r = candidate(mod, buf);
	l = strlen(buf);
	if (!r && l > strlen(DELETED_SUFFIX) &&
	    !strcmp(buf + l - strlen(DELETED_SUFFIX), DELETED_SUFFIX)) {
		/* a file replaced after it was mapped: its name as it was */
		buf[l - strlen(DELETED_SUFFIX)] = '\0';
		r = candidate(mod, buf);
	}
	if (r > 0)
		return 0;
	mismatch = r < 0;
	if (mod->build_id_len) {
		if (s->opts.buildid_dir &&
		    !ap_bidcache__path(s->opts.buildid_dir, mod->build_id,
				       mod->build_id_len, buf, len) &&
		    candidate(mod, buf) > 0)
			return 0;
		build_id__hex(mod->build_id, mod->build_id_len, hex,
			      sizeof(hex));
		snprintf(buf, len, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			 symfs, hex, hex + 2);
		if (candidate(mod, buf) > 0)
			return 0;
		srv = ap_debuginfod__find_executable(mod->build_id,
						     mod->build_id_len, buf,
						     len);
		if (!srv) {
			r = candidate(mod, buf);
			if (r > 0)
				return 0;
			srv = r < 0 ? 0 : -ENOENT;
		}
		srv = servers_said(s, srv, "executable", mod->build_id,
				   (int)mod->build_id_len, buf);
	}
	/* "nor on the servers" only where they said so */
	why = srv == -ENOENT ? "" : srv == -ESRCH ?
	      " (their answer has another build-id)" :
	      srv == -ETIME ? " (out of time for them)" :
	      srv == -EFBIG ? " (too large to download)" :
	      srv == -ELOOP ? " (redirected too often)" :
	      " (they failed)";
	if (mismatch) {
		snprintf(buf, len, "%s%s", symfs, mod->path);
		n = ap_read_build_id_safe(buf, id, sizeof(id));
		build_id__hex(id, n > 0 ? n : 0, have, sizeof(have));
		symbolizer__warn(s, "build-id mismatch for '%s': recorded %s, on disk %s, none in the build-id cache%s%s; not using it",
				 mod->path, hex, have,
				 srv != -ENOSYS ?
				 " nor on the debuginfod servers" : "",
				 srv != -ENOSYS ? why : "");
	} else {
		int fd;

		snprintf(buf, len, "%s%s", symfs, mod->path);
		fd = ap_open_regular(buf, 0);
		if (fd >= 0)
			close(fd);
		symbolizer__warn(s, "cannot open '%s': %s%s%s%s; its frames show as %s+offset",
				 mod->path, ap_open_strerror(fd >= 0 ? -EIO : fd),
				 mod->build_id_len ?
				 ", nor its build-id in the cache" : "",
				 srv != -ENOSYS ?
				 " or on the debuginfod servers" : "",
				 srv != -ENOSYS ? why : "", mod->dso);
	}
	return -ENOENT;
}

/* Opens the file of a module; on any problem, warns once (modules are
 * opened once) and leaves it MODULE_UNUSABLE. */
static void module__open(struct ap_symbolizer *s, struct module *mod)
{
	char path[AP_PATH_MAX], want[2 * AP_BUILD_ID_MAX + 1];
	char have[2 * AP_BUILD_ID_MAX + 1];
	const unsigned char *bits;
	GElf_Addr bits_vaddr;
	Dwfl_Module *dwmod;
	size_t i, phnum;
	void **userdata;
	Dwarf_Addr bias;
	Dwfl *dwfl;
	Elf *elf;
	int fd, len;

	mod->state = MODULE_UNUSABLE;

	if (module__find_file(s, mod, path, sizeof(path)))
		return;
	fd = ap_open_regular(path, 0);
	if (fd < 0) {
		symbolizer__warn(s, "cannot open '%s': %s; its frames show as %s+offset",
				 path, ap_open_strerror(fd), mod->dso);
		return;
	}

	dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dwfl) {
		symbolizer__warn(s, "dwfl_begin: '%s': %s", path,
				 dwfl_errmsg(-1));
		close(fd);
		return;
	}
	dwfl_report_begin(dwfl);
	/* ET_DYN at base 0 plus p_vaddr: module addresses are ELF vaddrs;
	 * libdwfl reads the file checked above and owns fd on success */
	dwmod = dwfl_report_elf(dwfl, mod->dso, path, fd, 0, true);
	if (!dwmod) {
		symbolizer__warn(s, "dwfl_report_elf: '%s': %s", path,
				 dwfl_errmsg(-1));
		close(fd);
		goto out_end;
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
		symbolizer__warn(s, "dwfl_report_end: '%s': %s", path,
				 dwfl_errmsg(-1));
		goto out_end;
	}
	/* safe_find_debuginfo's: --symfs holds the debug files too */
	if (dwfl_module_info(dwmod, &userdata, NULL, NULL, NULL, NULL, NULL,
			     NULL) && userdata) {
		mod->owner = s;
		*userdata = mod;
	}

	if (mod->build_id_len) {
		len = dwfl_module_build_id(dwmod, &bits, &bits_vaddr);
		if (len < 0)
			len = 0;
		if ((uint32_t)len != mod->build_id_len ||
		    memcmp(bits, mod->build_id, len) != 0) {
			build_id__hex(mod->build_id, mod->build_id_len, want,
				      sizeof(want));
			build_id__hex(bits, len, have, sizeof(have));
			symbolizer__warn(s, "build-id mismatch for '%s': recorded %s, on disk %s; not using it",
					 mod->path, want, have);
			goto out_end;
		}
	}

	elf = dwfl_module_getelf(dwmod, &bias);
	if (!elf) {
		symbolizer__warn(s, "dwfl_module_getelf: '%s': %s", path,
				 dwfl_errmsg(-1));
		goto out_end;
	}
	if (elf_getphdrnum(elf, &phnum) != 0) {
		symbolizer__warn(s, "elf_getphdrnum: '%s': %s", path,
				 elf_errmsg(-1));
		goto out_end;
	}
	mod->loads = calloc(phnum ? phnum : 1, sizeof(*mod->loads));
	if (!mod->loads) {
		symbolizer__warn(s, "cannot read '%s': %s", path,
				 strerror(ENOMEM));
		goto out_end;
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_LOAD)
			continue;
		mod->loads[mod->nr_loads].offset = phdr.p_offset;
		mod->loads[mod->nr_loads].filesz = phdr.p_filesz;
		mod->loads[mod->nr_loads].vaddr = phdr.p_vaddr;
		mod->nr_loads++;
	}

	mod->dwmod = dwmod;
	if (module__load_syms(mod)) {
		symbolizer__warn(s, "cannot read the symbols of '%s': %s",
				 path, strerror(ENOMEM));
		goto out_end;
	}
	mod->dwfl = dwfl;
	mod->bias = bias;
	mod->file = symbolizer__intern(s, path);
	mod->state = MODULE_OK;
	return;

out_end:
	dwfl_end(dwfl);
}

static const char *path__basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The module of a mapping, created on first use; NULL for anonymous memory
 * (or when memory ran out). */
static struct module *symbolizer__module(struct ap_symbolizer *s,
					 const struct ap_mmap *m)
{
	uint32_t id_len = m->build_id_len;
	struct module *mod;
	struct hnode *n;
	uint64_t hash;

	if (!m->path[0])
		return NULL;
	hash = hash_bytes(m->path, strlen(m->path),
			  hash_bytes(m->build_id, id_len, id_len));
	for (n = htab__bucket(&s->modules, hash); n; n = n->next) {
		mod = (struct module *)n;
		if (n->hash == hash && mod->build_id_len == id_len &&
		    memcmp(mod->build_id, m->build_id, id_len) == 0 &&
		    strcmp(mod->path, m->path) == 0)
			return mod;
	}

	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return NULL;
	mod->path = symbolizer__intern(s, m->path);
	if (m->path[0] == '/')
		mod->dso = symbolizer__intern(s, path__basename(m->path));
	else
		mod->dso = mod->path;	/* "[vdso]", "[heap]", ... */
	if (!mod->path || !mod->dso) {
		free(mod);
		return NULL;
	}
	mod->build_id_len = id_len;
	memcpy(mod->build_id, m->build_id, id_len);
	mod->state = m->path[0] == '/' ? MODULE_UNOPENED : MODULE_PSEUDO;
	/* the vDSO: its image came with the file */
	if (!strcmp(m->path, "[vdso]") && s->vdso_fd >= 0)
		mod->state = MODULE_UNOPENED;
	if (htab__insert(&s->modules, &mod->node, hash)) {
		free(mod);
		return NULL;
	}
	s->stats.modules++;
	return mod;
}

/* ---- resolving ---- */

struct frames {
	struct ap_sym_frame *v;
	int nr;
	int cap;
	uint64_t sym_start;
	bool have_start;
};

static int frames__push(struct frames *f, const char *sym, const char *file,
			int line, int inlined)
{
	if (f->nr == f->cap) {
		int cap = f->cap ? f->cap * 2 : 8;
		struct ap_sym_frame *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->nr].sym = sym;
	f->v[f->nr].linkage = NULL;
	f->v[f->nr].file = file;
	f->v[f->nr].line = line;
	f->v[f->nr].start_line = 0;
	f->v[f->nr].inlined = inlined;
	f->nr++;
	return 0;
}

struct scopes {
	Dwarf_Die *v;			/* outermost first */
	int nr;
	int cap;
};

static bool tag__has_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_entry_point:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	default:
		return false;
	}
}

/*
 * Pushes the DIEs under parent that hold pc, outermost first: one descent
 * through the children whose ranges hold pc, and through namespaces, which
 * have none.  elfutils addr2line -i gets the same chain with
 * dwarf_getscopes then dwarf_getscopes_die, two walks of the CU; this is
 * one, pruned.  Returns 1 when something was found, 0, or -ENOMEM.
 */
static int scopes__search(struct scopes *sc, Dwarf_Die *parent, Dwarf_Addr pc,
			  int depth)
{
	Dwarf_Die child;
	int ret;

	if (depth > 128 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			ret = scopes__search(sc, &child, pc, depth + 1);
			if (ret)
				return ret;
			continue;
		}
		if (!tag__has_code(tag) || dwarf_haspc(&child, pc) != 1)
			continue;
		if (sc->nr == sc->cap) {
			int cap = sc->cap ? sc->cap * 2 : 8;
			Dwarf_Die *v = realloc(sc->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			sc->v = v;
			sc->cap = cap;
		}
		sc->v[sc->nr++] = child;
		ret = scopes__search(sc, &child, pc, depth + 1);
		return ret < 0 ? ret : 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* the linkage name (mangled, qualified) if any, else DW_AT_name */
static const char *die__name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &attr) ?:
				dwarf_attr_integrate(die,
						     DW_AT_MIPS_linkage_name,
						     &attr));
	return name ?: dwarf_diename(die);
}

/*
 * The inline chain at addr, innermost first, as elfutils addr2line -i
 * prints it: every DW_TAG_inlined_subroutine holding addr is a frame, and
 * its DW_AT_call_file:DW_AT_call_line is where its caller (the next frame)
 * is.  The outermost frame is the DW_TAG_subprogram.  Leaves f empty
 * without DWARF.
 */
static int module__inlines(struct ap_symbolizer *s, struct module *mod,
			   Dwarf_Addr addr, const char *file, int line,
			   struct frames *f)
{
	struct scopes sc = { 0 };
	Dwarf_Files *files = NULL;
	Dwarf_Die *cudie;
	Dwarf_Addr bias, low;
	int i, err, decl;

	cudie = dwfl_module_addrdie(mod->dwmod, addr, &bias);
	if (!cudie)
		return 0;
	err = scopes__search(&sc, cudie, addr - bias, 0);
	if (err <= 0)
		goto out;
	err = 0;
	/* the file table comes with the CU's whole line program: only
	 * where source lines are shown */
	if (s->opts.no_srcline || dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;

	for (i = sc.nr - 1; i >= 0; i--) {
		Dwarf_Die *die = &sc.v[i];
		int tag = dwarf_tag(die);
		Dwarf_Attribute attr;
		Dwarf_Word val;

		if (tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_entry_point)
			continue;
		err = frames__push(f, symbolizer__name(s, die__name(die)),
				   s->opts.no_srcline ? NULL : file,
				   s->opts.no_srcline ? 0 : line,
				   tag == DW_TAG_inlined_subroutine);
		if (err)
			goto out;
		/* pprof's start_line; an inlined instance's comes from its
		 * abstract origin */
		if (dwarf_decl_line(die, &decl) == 0 && decl > 0)
			f->v[f->nr - 1].start_line = decl;
		if (tag != DW_TAG_inlined_subroutine) {
			if (dwarf_lowpc(die, &low) == 0) {
				f->sym_start = low + bias;
				f->have_start = true;
			}
			break;
		}
		/* the caller's position: where this instance was inlined */
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file,
							&attr), &val) == 0)
			file = symbolizer__intern(s, dwarf_filesrc(files, val,
								   NULL, NULL));
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr),
				    &val) == 0)
			line = val;
	}
	/* a chain that ends without its function: the last is not inlined
	 * into anything we know */
	if (f->nr)
		f->v[f->nr - 1].inlined = 0;
out:
	free(sc.v);
	return err;
}

/* ELF virtual address of a file offset, through the PT_LOAD holding it */
static int module__vaddr(const struct module *mod, uint64_t off,
			 uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < mod->nr_loads; i++) {
		const struct load_seg *l = &mod->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

static struct cache_ent *cache_ent__new(const void *key_mod, uint64_t addr,
					const struct frames *f)
{
	struct cache_ent *ent;
	size_t sz = sizeof(*ent) + sizeof(*ent->loc) +
		    f->nr * sizeof(struct ap_sym_frame);

	ent = calloc(1, sz);
	if (!ent)
		return NULL;
	ent->mod = key_mod;
	ent->addr = addr;
	ent->loc = (struct ap_sym_loc *)(ent + 1);
	ent->loc->nr_frames = f->nr;
	if (f->nr)
		memcpy(ent->loc->frames, f->v, f->nr * sizeof(*f->v));
	return ent;
}

/*
 * Counts, once per module, the DWARF libdw reads for it: with compressed
 * debug sections (libc6-dbg's) it inflates them whole here, the main cost
 * of a report that needs inline frames or source lines.  DWARF that
 * shares a dwz file (.gnu_debugaltlink) that safe_find_debuginfo did not
 * give is not read at all: libdw's dwarf_getalt() would open the link's
 * path itself, with a plain open() (a FIFO there hung report); the ELF
 * symbols still name the functions.
 */
static void module__dwarf(struct ap_symbolizer *s, struct module *mod)
{
	const char *mainfile = NULL, *debugfile = NULL, *alt;
	const void *alt_id;
	uint64_t claim;
	int64_t bytes;
	int fd, bad;
	size_t shstrndx;
	Dwarf_Addr bias;
	Elf_Scn *scn = NULL;
	Dwarf *dw;
	Elf *elf;

	if (mod->dwarf_read)
		return;
	mod->dwarf_read = true;
	/* the module's own DWARF, checked before libdw inflates it (a
	 * separate debug file is, by safe_find_debuginfo) */
	if (dwfl_module_info(mod->dwmod, NULL, NULL, NULL, NULL, NULL,
			     &mainfile, NULL) && mainfile) {
		fd = ap_open_regular(mainfile, 0);
		if (fd >= 0) {
			bytes = dwarf_checked(s, fd, mainfile);
			close(fd);
			if (bytes >= 0 &&
			    inflate_charge(s, (uint64_t)bytes, mainfile))
				bytes = -1;
			if (bytes < 0) {
				mod->no_dwarf = true;
				return;
			}
		}
	}
	dw = dwfl_module_getdwarf(mod->dwmod, &bias);
	if (!dw)
		return;
	if (dwelf_dwarf_gnu_debugaltlink(dw, &alt, &alt_id) > 0 &&
	    !mod->alt_found) {
		symbolizer__warn(s, "'%s': no dwz file '%s' found that is a regular file with its build-id; its functions are named without DWARF (no inline frames or source lines)",
				 mod->path, alt);
		mod->no_dwarf = true;
		return;
	}
	s->stats.dwarf_modules++;
	/* libdw has inflated the file's compressed sections, and the
	 * headers it left say so no more: ask the file */
	if (dwfl_module_info(mod->dwmod, NULL, NULL, NULL, NULL, NULL,
			     &mainfile, &debugfile) &&
	    (debugfile || mainfile)) {
		fd = ap_open_regular(debugfile ? debugfile : mainfile, 0);
		if (fd >= 0) {
			bytes = ap_dwcache__check(fd, &bad, &claim);
			if (bytes > 0)
				s->stats.dwarf_inflated += (uint64_t)bytes;
			close(fd);
		}
	}
	elf = dwarf_getelf(dw);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7))
			continue;
		s->stats.dwarf_bytes += sh.sh_size;
	}
}

void ap_symbolizer__set_no_inline(struct ap_symbolizer *s, int no_inline)
{
	s->opts.no_inline = no_inline;
}

/* Resolves file offset off of a module into f; returns the dso offset. */
static int module__resolve(struct ap_symbolizer *s, struct module *mod,
			   uint64_t off, struct frames *f, uint64_t *dso_off)
{
	const struct func_sym *fs;
	const char *name, *file = NULL;
	uint64_t vaddr;
	Dwarf_Addr addr;
	Dwfl_Line *dl;
	int line = 0, err, i;

	*dso_off = off;
	if (mod->state == MODULE_UNOPENED)
		module__open(s, mod);
	if (mod->state != MODULE_OK || module__vaddr(mod, off, &vaddr))
		return 0;
	*dso_off = vaddr;
	addr = vaddr + mod->bias;

	if (!s->opts.no_srcline || !s->opts.no_inline)
		module__dwarf(s, mod);
	if (!s->opts.no_srcline && !mod->no_dwarf) {
		dl = dwfl_module_getsrc(mod->dwmod, addr);
		if (dl) {
			const char *src = dwfl_lineinfo(dl, NULL, &line, NULL,
							NULL, NULL);

			file = symbolizer__intern(s, src);
		}
	}

	if (!s->opts.no_inline && !mod->no_dwarf) {
		err = module__inlines(s, mod, addr, file, line, f);
		if (err)
			return err;
	}

	/* the real function: the ELF symbol names it as perf does (clones
	 * such as foo.cold keep their suffix), DWARF gives the line */
	fs = module__find_sym(mod, addr);
	if (fs) {
		name = symbolizer__name(s, fs->name);
		f->sym_start = fs->start;
		f->have_start = true;
		if (f->nr) {
			f->v[f->nr - 1].sym = name;
		} else {
			err = frames__push(f, name, file, line, 0);
			if (err)
				return err;
		}
		if (fs->name && strcmp(fs->name, name))
			f->v[f->nr - 1].linkage = symbolizer__intern(s,
								     fs->name);
	}
	/* a frame without a name is no frame */
	for (i = 0; i < f->nr; i++)
		if (!f->v[i].sym)
			f->v[i].sym = symbolizer__intern(s, "[unknown]");
	if (f->have_start)
		f->sym_start -= mod->bias;
	return 0;
}

static struct cache_ent *cache__find(const struct htab *h, const void *mod,
				     uint64_t addr, uint64_t hash)
{
	struct hnode *n;

	for (n = htab__bucket(h, hash); n; n = n->next) {
		struct cache_ent *ent = (struct cache_ent *)n;

		if (n->hash == hash && ent->mod == mod && ent->addr == addr)
			return ent;
	}
	return NULL;
}

static struct jittab *jittab__get(struct ap_symbolizer *s, uint32_t pid,
				  uint64_t start_ticks, int create)
{
	uint64_t hash = proc_hash(pid, start_ticks);
	struct jittab *t;
	struct hnode *n;
	char dso[64];

	for (n = htab__bucket(&s->jits, hash); n; n = n->next) {
		t = (struct jittab *)n;
		if (n->hash == hash && t->pid == pid &&
		    t->start_ticks == start_ticks)
			return t;
	}
	if (!create)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->start_ticks = start_ticks;
	snprintf(dso, sizeof(dso), "perf-%u.map", pid);
	t->dso = symbolizer__intern(s, dso);
	t->sorted = 1;
	if (!t->dso || htab__insert(&s->jits, &t->node, hash)) {
		free(t);
		return NULL;
	}
	return t;
}

int ap_symbolizer__add_jit(struct ap_symbolizer *s, uint32_t pid,
			   uint64_t start_ticks, uint64_t start, uint64_t size,
			   const char *name)
{
	struct jittab *t;
	const char *nm;

	if (!s || !size || start + size < start)
		return -EINVAL;
	t = jittab__get(s, pid, start_ticks, 1);
	nm = symbolizer__intern(s, name);
	if (!t || !nm)
		return -ENOMEM;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct jit_sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->nr && t->v[t->nr - 1].start > start)
		t->sorted = 0;
	t->v[t->nr] = (struct jit_sym){ start, start + size, nm, t->nr };
	t->nr++;
	return 0;
}

static int jit_sym__cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* the JIT symbol covering addr in the process of as; the latest written
 * wins where code was generated again at one address */
static const struct jit_sym *jit__find(struct ap_symbolizer *s,
				       const struct ap_addrspace *as,
				       uint64_t addr, const char **dso)
{
	struct jittab *t = jittab__get(s, as->pid, as->start_ticks, 0);
	size_t lo = 0, hi;

	if (!t || !t->nr)
		return NULL;
	if (!t->sorted) {
		qsort(t->v, t->nr, sizeof(*t->v), jit_sym__cmp);
		t->sorted = 1;
	}
	hi = t->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo--) {
		if (addr < t->v[lo].end) {
			*dso = t->dso;
			return &t->v[lo];
		}
		/* an earlier, longer one may still cover addr: look a few
		 * back at most */
		if (t->v[lo].start + (1u << 20) < addr)
			break;
	}
	return NULL;
}

static const struct ap_sym_loc *jit__loc(struct ap_symbolizer *s,
					 const struct jit_sym *js,
					 const char *dso, uint64_t addr)
{
	struct frames f = { 0 };
	struct cache_ent *ent;
	uint64_t off = addr - js->start;
	uint64_t hash = ap_hash64((uintptr_t)js ^ ap_hash64(off));

	ent = cache__find(&s->cache, js, off, hash);
	if (ent)
		return ent->loc;
	if (frames__push(&f, js->name, NULL, 0, 0))
		return &unknown_loc;
	ent = cache_ent__new(js, off, &f);
	free(f.v);
	if (!ent)
		return &unknown_loc;
	ent->loc->dso = dso;
	ent->loc->dso_offset = addr;
	ent->loc->sym_offset = off;
	if (htab__insert(&s->cache, &ent->node, hash)) {
		free(ent);
		return &unknown_loc;
	}
	return ent->loc;
}

int ap_symbolizer__add_pyframe(struct ap_symbolizer *s,
			       const struct ap_pyframe *f)
{
	if (!s->py)
		s->py = ap_pynames__new();
	return s->py ? ap_pynames__add(s->py, f) : -ENOMEM;
}

const struct ap_sym_loc *ap_symbolizer__user(struct ap_symbolizer *s,
					     struct ap_addrspace *as,
					     uint64_t ip, int is_return_addr)
{
	struct frames f = { 0 };
	struct cache_ent *ent;
	struct module *mod;
	struct as_map *map;
	uint64_t addr = ip, off, hash, dso_off;

	if (!s)
		return &unknown_loc;
	if (ap_pyframe_ip(ip))
		return ap_pynames__loc(s->py, ip);
	/* a caller frame: blame the call, not what follows it; but where
	 * nothing covers ip - 1, ip is the first byte of a signal
	 * trampoline (glibc's __restore_rt), which its CFI starts one byte
	 * early for exactly this lookup */
	if (is_return_addr && ip) {
		const struct ap_sym_loc *loc = ap_symbolizer__user(s, as, ip - 1,
								   0);
		const struct ap_sym_loc *at;

		if (loc->nr_frames)
			return loc;
		at = ap_symbolizer__user(s, as, ip, 0);
		return at->nr_frames ? at : loc;
	}
	map = as ? addrspace__lookup(as, addr) : NULL;
	if (map && !map->mod)
		map->mod = symbolizer__module(s, &map->m);
	/* anonymous code: what the process's perf map says */
	if (as && (!map || !map->m.path[0])) {
		const char *dso;
		const struct jit_sym *js = jit__find(s, as, addr, &dso);

		if (js) {
			s->stats.lookups++;
			return jit__loc(s, js, dso, addr);
		}
	}
	if (!map || !map->mod) {
		s->stats.lookups++;
		s->stats.unresolved++;
		return &unknown_loc;
	}
	mod = map->mod;
	off = addr - map->m.start + map->m.pgoff;

	hash = ap_hash64((uintptr_t)mod ^ ap_hash64(off));
	ent = cache__find(&s->cache, mod, off, hash);
	if (ent) {
		s->stats.cache_hits++;
		return ent->loc;
	}

	s->stats.lookups++;
	if (module__resolve(s, mod, off, &f, &dso_off))
		goto out_unknown;
	ent = cache_ent__new(mod, off, &f);
	if (!ent)
		goto out_unknown;
	ent->loc->dso = mod->dso;
	ent->loc->dso_path = mod->state == MODULE_PSEUDO ||
			     mod->path[0] == '[' ? NULL : mod->path;
	ent->loc->dso_offset = dso_off;
	ent->loc->sym_offset = f.have_start ? dso_off - f.sym_start : 0;
	if (htab__insert(&s->cache, &ent->node, hash)) {
		free(ent);
		goto out_unknown;
	}
	if (!f.nr)
		s->stats.unresolved++;
	free(f.v);
	return ent->loc;

out_unknown:
	free(f.v);
	s->stats.unresolved++;
	return &unknown_loc;
}

/* the opened module of user address ip and ip's module address there */
static struct module *user_module(struct ap_symbolizer *s,
				  struct ap_addrspace *as, uint64_t ip,
				  uint64_t *vaddr)
{
	struct module *mod;
	struct as_map *map;

	map = s && as ? addrspace__lookup(as, ip) : NULL;
	if (map && !map->mod)
		map->mod = symbolizer__module(s, &map->m);
	if (!map || !map->mod)
		return NULL;
	mod = map->mod;
	if (mod->state == MODULE_UNOPENED)
		module__open(s, mod);
	/* the vDSO's image is a memfd of this run: nothing to read later */
	if (mod->state != MODULE_OK || mod->path[0] == '[' ||
	    module__vaddr(mod, ip - map->m.start + map->m.pgoff, vaddr))
		return NULL;
	return mod;
}

int ap_symbolizer__user_code(struct ap_symbolizer *s, struct ap_addrspace *as,
			     uint64_t ip, struct ap_sym_code *out)
{
	const struct func_sym *fs;
	struct module *mod;
	uint64_t vaddr;

	mod = user_module(s, as, ip, &vaddr);
	fs = mod ? module__find_sym(mod, vaddr + mod->bias) : NULL;
	if (!fs || !mod->file)
		return -ENOENT;
	out->module = mod;
	out->file = mod->file;
	out->dso = mod->dso;
	out->name = fs->name;
	out->addr = vaddr;
	out->start = fs->start - mod->bias;
	out->end = fs->end - mod->bias;
	return 0;
}

const char *ap_symbolizer__file(struct ap_symbolizer *s,
				const struct ap_mmap *m)
{
	struct module *mod = m ? symbolizer__module(s, m) : NULL;

	if (!mod || m->path[0] != '/')
		return NULL;
	if (mod->state == MODULE_UNOPENED)
		module__open(s, mod);
	return mod->state == MODULE_OK ? mod->file : NULL;
}

const char *ap_symbolizer__comp_dir(struct ap_symbolizer *s,
				    struct ap_addrspace *as, uint64_t ip)
{
	Dwarf_Attribute at;
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	struct module *mod;
	uint64_t vaddr;

	mod = user_module(s, as, ip, &vaddr);
	if (!mod)
		return NULL;
	module__dwarf(s, mod);
	if (mod->no_dwarf)
		return NULL;
	cu = dwfl_module_addrdie(mod->dwmod, vaddr + mod->bias, &bias);
	if (!cu || !dwarf_attr_integrate(cu, DW_AT_comp_dir, &at))
		return NULL;
	return symbolizer__intern(s, dwarf_formstring(&at));
}

/* ---- the kernel ---- */

int ap_symbolizer__add_ksym(struct ap_symbolizer *s, const struct ap_ksym *k)
{
	if (!s || !k)
		return -EINVAL;
	if (!s->ksyms) {
		s->ksyms = ap_kallsyms__new();
		if (!s->ksyms)
			return -ENOMEM;
	}
	/* results computed without this symbol may be wrong now */
	htab__clear(&s->kcache, hnode__free);
	return ap_kallsyms__add(s->ksyms, k);
}

int ap_symbolizer__load_kallsyms(struct ap_symbolizer *s, const char *path)
{
	struct ap_kallsyms *k;
	int err;

	if (!s)
		return -EINVAL;
	k = ap_kallsyms__load(path, &err);
	if (!k)
		return err;
	htab__clear(&s->kcache, hnode__free);
	ap_kallsyms__free(s->ksyms);
	s->ksyms = k;
	return 0;
}

const struct ap_sym_loc *ap_symbolizer__kernel(struct ap_symbolizer *s,
					       uint64_t ip)
{
	const struct ap_kallsym *ks;
	struct frames f = { 0 };
	struct ap_sym_frame one = { 0 };
	struct cache_ent *ent;
	char dso[sizeof(((struct ap_ksym *)0)->module) + 2];
	uint64_t hash;

	if (!s)
		return &unknown_loc;
	hash = ap_hash64(ip);
	ent = cache__find(&s->kcache, NULL, ip, hash);
	if (ent) {
		s->stats.cache_hits++;
		return ent->loc;
	}

	s->stats.lookups++;
	ks = ap_kallsyms__find(s->ksyms, ip);
	if (ks) {
		one.sym = symbolizer__intern(s, ks->name);
		f.v = &one;
		f.nr = one.sym ? 1 : 0;
	}
	ent = cache_ent__new(NULL, ip, &f);
	if (!ent)
		goto out_unknown;
	if (ks && ks->module[0]) {
		snprintf(dso, sizeof(dso), "[%s]", ks->module);
		ent->loc->dso = symbolizer__intern(s, dso);
	} else {
		ent->loc->dso = symbolizer__intern(s, KERNEL_DSO);
	}
	ent->loc->dso_offset = ip;
	ent->loc->sym_offset = f.nr ? ip - ks->addr : 0;
	if (htab__insert(&s->kcache, &ent->node, hash)) {
		free(ent);
		goto out_unknown;
	}
	if (!f.nr)
		s->stats.unresolved++;
	return ent->loc;

out_unknown:
	s->stats.unresolved++;
	return &unknown_loc;
}

/* ---- output ---- */

int ap_sym_loc__format(const struct ap_sym_loc *loc, int frame, char *buf,
		       size_t len)
{
	int n;

	if (!loc || !buf || frame < 0 ||
	    (loc->nr_frames && frame >= loc->nr_frames) ||
	    (!loc->nr_frames && frame > 0))
		return -EINVAL;
	if (loc->nr_frames && loc->frames[frame].sym)
		n = snprintf(buf, len, "%s", loc->frames[frame].sym);
	else if (loc->dso)
		n = snprintf(buf, len, "%s+0x%" PRIx64, loc->dso,
			     loc->dso_offset);
	else
		n = snprintf(buf, len, "[unknown]");
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}
