// SPDX-License-Identifier: GPL-2.0
/*
 * Where the CUDA launch entry points live.  The gpu sensor probes files,
 * not processes: a uprobe is set on an inode, so arming a library before
 * a target loads it catches its first launch.  Hence the search below,
 * which follows the dynamic linker's rules (ld.so(8)) for the directories
 * a program's libraries come from.
 */
#include "gpu/libs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"
#include "symbols/buildid.h"
#include "util/safefile.h"

/* the _ptsz variants are what code built with per-thread default streams
 * calls; same signatures */
const struct ap_gpu_func ap_gpu_funcs[] = {
	{ "cudaLaunchKernel", AP_GPU_API_RUNTIME },
	{ "cudaLaunchKernel_ptsz", AP_GPU_API_RUNTIME },
	{ "cudaLaunchKernelExC", AP_GPU_API_RUNTIME_EXC },
	{ "cudaLaunchKernelExC_ptsz", AP_GPU_API_RUNTIME_EXC },
	{ "cuLaunchKernel", AP_GPU_API_DRIVER },
	{ "cuLaunchKernel_ptsz", AP_GPU_API_DRIVER },
	{ "cuLaunchKernelEx", AP_GPU_API_DRIVER_EX },
	{ "cuLaunchKernelEx_ptsz", AP_GPU_API_DRIVER_EX },
	{ "cuModuleGetFunction", -1 },
};
const size_t ap_gpu_nr_funcs = sizeof(ap_gpu_funcs) / sizeof(ap_gpu_funcs[0]);

uint32_t ap_gpu_launch_mask(void)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < ap_gpu_nr_funcs; i++)
		if (ap_gpu_funcs[i].api >= 0)
			m |= 1u << i;
	return m;
}

/* symbol value -> file offset, through the PT_LOAD segment holding it */
static uint64_t file_offset(Elf *elf, uint64_t vaddr)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static void scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			uint32_t *mask, uint64_t *offsets)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i, f;
	GElf_Sym sym;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;
		int type;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || (name[0] != 'c' || name[1] != 'u'))
			continue;
		for (f = 0; f < ap_gpu_nr_funcs; f++) {
			uint64_t off;

			if (strcmp(name, ap_gpu_funcs[f].name) ||
			    (*mask & (1u << f)))
				continue;
			off = file_offset(elf, sym.st_value);
			if (!off)
				continue;
			*mask |= 1u << f;
			if (offsets)
				offsets[f] = off;
		}
	}
}

int ap_gpu_elf_funcs(const char *path, uint32_t *mask, uint64_t *offsets)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd, err;

	*mask = 0;
	err = ap_elf__open(path, &fd, &elf);
	if (err)
		return err;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			scan_symtab(elf, scn, &sh, mask, offsets);
	}
	elf_end(elf);
	close(fd);
	return err;
}

int ap_gpu_is_cuda_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libcudart.so", 12) ||
	       !strncmp(base, "libcuda.so", 10);
}

/* "a:b:c" -> fn(a), fn(b), fn(c), with $ORIGIN replaced by origin */
static int each_dir(const char *list, const char *origin, ap_gpu_dir_fn fn,
		    void *ctx)
{
	char dir[PATH_MAX];
	const char *p = list, *end;
	int err;

	while (p && *p) {
		size_t len, off = 0;

		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		while (len && off < sizeof(dir) - 1) {
			size_t skip = 0;

			if (!strncmp(p, "$ORIGIN", 7) && len >= 7)
				skip = 7;
			else if (!strncmp(p, "${ORIGIN}", 9) && len >= 9)
				skip = 9;
			if (skip && origin) {
				off += snprintf(dir + off, sizeof(dir) - off,
						"%s", origin);
				if (off >= sizeof(dir))
					off = sizeof(dir) - 1;
			} else {
				skip = 1;
				dir[off++] = *p;
			}
			p += skip;
			len -= skip;
		}
		dir[off] = '\0';
		/* an empty entry means the current directory to ld.so */
		err = fn(ctx, off ? dir : ".");
		if (err)
			return err;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* DT_RPATH and DT_RUNPATH of exe, copied into rpath and runpath; into
 * needed (when not NULL), its DT_NEEDED CUDA libraries, ':' between */
static void read_paths(const char *exe, char *rpath, char *runpath,
		       char *needed, size_t len)
{
	size_t nlen = 0;

	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	rpath[0] = runpath[0] = '\0';
	if (needed)
		needed[0] = '\0';
	if (ap_elf__open(exe, &fd, &elf))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Dyn dyn;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *s;

			if (!gelf_getdyn(data, i, &dyn))
				break;
			if (dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH &&
			    (dyn.d_tag != DT_NEEDED || !needed))
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (s && dyn.d_tag == DT_NEEDED) {
				if (ap_gpu_is_cuda_name(s) && nlen < len)
					nlen += snprintf(needed + nlen,
							 len - nlen, "%s%s",
							 nlen ? ":" : "", s);
			} else if (s)
				snprintf(dyn.d_tag == DT_RPATH ? rpath : runpath,
					 len, "%s", s);
		}
	}
	elf_end(elf);
	close(fd);
}

static int conf_file(const char *path, ap_gpu_dir_fn fn, void *ctx,
		     int depth);

static int conf_include(const char *conf, const char *pattern,
			ap_gpu_dir_fn fn, void *ctx, int depth)
{
	char pat[PATH_MAX];
	glob_t g;
	size_t i;
	int err = 0;

	if (pattern[0] == '/') {
		snprintf(pat, sizeof(pat), "%s", pattern);
	} else {
		const char *slash = strrchr(conf, '/');
		int n = slash ? (int)(slash - conf) : 1;

		snprintf(pat, sizeof(pat), "%.*s/%s", n,
			 slash ? conf : ".", pattern);
	}
	if (glob(pat, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !err; i++)
		err = conf_file(g.gl_pathv[i], fn, ctx, depth + 1);
	globfree(&g);
	return err;
}

/* ld.so.conf(5): one directory a line, '#' comments, "include GLOB" */
static int conf_file(const char *path, ap_gpu_dir_fn fn, void *ctx,
		     int depth)
{
	char line[PATH_MAX + 32];
	FILE *f;
	int err = 0;

	if (depth > 8)		/* an include loop */
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		end = strchr(p, '#');
		if (end)
			*end = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == '\n' || end[-1] == ' ' ||
				   end[-1] == '\t'))
			*--end = '\0';
		if (!*p)
			continue;
		if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
			p += 8;
			while (*p == ' ' || *p == '\t')
				p++;
			err = conf_include(path, p, fn, ctx, depth);
		} else if (p[0] == '/') {
			err = fn(ctx, p);
		}
	}
	fclose(f);
	return err;
}

int ap_gpu_search_dirs(const char *exe, const char *ld_library_path,
		       const char *ld_so_conf, int defaults,
		       ap_gpu_dir_fn fn, void *ctx)
{
	static const char *const default_dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	char rpath[PATH_MAX], runpath[PATH_MAX], origin[PATH_MAX];
	size_t i;
	int err;

	rpath[0] = runpath[0] = origin[0] = '\0';
	if (exe) {
		char *slash;

		read_paths(exe, rpath, runpath, NULL, sizeof(rpath));
		if (realpath(exe, origin)) {
			slash = strrchr(origin, '/');
			if (slash)
				*(slash == origin ? slash + 1 : slash) = '\0';
		}
	}
	/* DT_RPATH counts only when there is no DT_RUNPATH */
	if (!runpath[0]) {
		err = each_dir(rpath, origin, fn, ctx);
		if (err)
			return err;
	}
	err = each_dir(ld_library_path, origin, fn, ctx);
	if (err)
		return err;
	err = each_dir(runpath, origin, fn, ctx);
	if (err)
		return err;
	if (ld_so_conf) {
		err = conf_file(ld_so_conf, fn, ctx, 0);
		if (err)
			return err;
	}
	for (i = 0; defaults &&
		    i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++) {
		err = fn(ctx, default_dirs[i]);
		if (err)
			return err;
	}
	return 0;
}

struct find_ctx {
	const char *name;
	char *buf;
	size_t len;
};

static int find_in(void *ctx, const char *dir)
{
	struct find_ctx *f = ctx;
	struct stat st;

	snprintf(f->buf, f->len, "%s/%s", dir, f->name);
	return !stat(f->buf, &st) && S_ISREG(st.st_mode);
}

int ap_gpu_find_lib(const char *exe, const char *ld_library_path,
		    const char *name, char *buf, size_t len)
{
	struct find_ctx f = { name, buf, len };

	if (ap_gpu_search_dirs(exe, ld_library_path, AP_LD_SO_CONF, 1,
			       find_in, &f) == 1)
		return 0;
	buf[0] = '\0';
	return -ENOENT;
}

int ap_gpu_needed_libs(const char *exe, const char *ld_library_path,
		       ap_gpu_dir_fn fn, void *ctx)
{
	char rpath[PATH_MAX], runpath[PATH_MAX], needed[PATH_MAX];
	char path[PATH_MAX], *name, *save = NULL;
	int err = 0;

	read_paths(exe, rpath, runpath, needed, sizeof(needed));
	for (name = strtok_r(needed, ":", &save); name && !err;
	     name = strtok_r(NULL, ":", &save))
		if (!ap_gpu_find_lib(exe, ld_library_path, name, path,
				     sizeof(path)))
			err = fn(ctx, path);
	return err;
}

int ap_gpu_driver_status(const char *exe, const char *ld_library_path,
			 char *buf, size_t len)
{
	char path[PATH_MAX];
	int status = 0;
	glob_t g;

	if (ap_gpu_find_lib(exe, ld_library_path, "libcuda.so.1", path,
			    sizeof(path)))
		status |= AP_GPU_NO_DRIVER;
	if (glob("/dev/nvidia[0-9]*", 0, NULL, &g))
		status |= AP_GPU_NO_DEVICE;
	else
		globfree(&g);
	snprintf(buf, len, "%s%s%s",
		 status & AP_GPU_NO_DRIVER ?
		 "no CUDA driver (libcuda.so.1 is not where the dynamic linker looks)" : "",
		 status == (AP_GPU_NO_DRIVER | AP_GPU_NO_DEVICE) ? ", " : "",
		 status & AP_GPU_NO_DEVICE ?
		 "no NVIDIA GPU (no /dev/nvidiaN device)" : "");
	return status;
}

int ap_gpu_dir_libs(const char *dir, ap_gpu_dir_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int err = 0;

	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!err && (d = readdir(dp))) {
		if (!ap_gpu_is_cuda_name(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		err = fn(ctx, path);
	}
	closedir(dp);
	return err;
}

int ap_gpu_which(const char *cmd, const char *path_env, char *buf,
		 size_t len)
{
	const char *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(buf, len, "%s", cmd);
		return access(buf, X_OK) ? -ENOENT : 0;
	}
	/* execvp's default when PATH is unset */
	for (p = path_env ? path_env : "/bin:/usr/bin"; p; p = end ? end + 1 : NULL) {
		int n;

		end = strchr(p, ':');
		n = end ? (int)(end - p) : (int)strlen(p);
		snprintf(buf, len, "%.*s/%s", n ? n : 1, n ? p : ".", cmd);
		if (!access(buf, X_OK)) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode))
				return 0;
		}
	}
	return -ENOENT;
}

int ap_cupti_lib_self(char *buf, size_t len, char *why, size_t wlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	return ap_cupti_lib_find(n > 0 ? exe : NULL, APERTURE_LIBDIR, buf, len,
				 why, wlen);
}

/* a candidate that exists: used when trusted; the first reason kept */
static int cupti_candidate(const char *path, char *buf, size_t len,
			   char *why, size_t wlen, int *refused)
{
	char r[512];
	int err;

	if (access(path, R_OK))
		return -ENOENT;
	err = ap_path_trusted(path, buf, len, r, sizeof(r));
	if (err != -EPERM)
		return err;
	if (!*refused)
		snprintf(why, wlen, "%s not used: %s", path, r);
	*refused = 1;
	return -EPERM;
}

int ap_cupti_lib_find(const char *exe, const char *libdir, char *buf,
		      size_t len, char *why, size_t wlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	const char *slash;
	int refused = 0;

	slash = exe ? strrchr(exe, '/') : NULL;
	if (slash && (size_t)(slash - exe) < sizeof(dir)) {
		memcpy(dir, exe, slash - exe);
		dir[slash - exe] = '\0';
		snprintf(path, sizeof(path), "%s/" AP_CUPTI_LIB, dir);
		if (!cupti_candidate(path, buf, len, why, wlen, &refused))
			return 0;
		snprintf(path, sizeof(path), "%s/../lib/aperture/" AP_CUPTI_LIB,
			 dir);
		if (!cupti_candidate(path, buf, len, why, wlen, &refused))
			return 0;
	}
	if (libdir) {
		snprintf(path, sizeof(path), "%s/" AP_CUPTI_LIB, libdir);
		if (!cupti_candidate(path, buf, len, why, wlen, &refused))
			return 0;
	}
	return refused ? -EPERM : -ENOENT;
}

const char *ap_cupti_inject(char *lib, size_t len, char *warn, size_t wlen)
{
	const char *cur = getenv("CUDA_INJECTION64_PATH");
	char why[PATH_MAX + 600];
	int e;

	if (cur && *cur) {
		const char *base = strrchr(cur, '/');

		if (!strcmp(base ? base + 1 : cur, AP_CUPTI_LIB))
			return cur;
		snprintf(warn, wlen,
			 "gpu: CUDA_INJECTION64_PATH is already %s: kept, so no GPU device times",
			 cur);
		return NULL;
	}
	e = ap_cupti_lib_self(lib, len, why, sizeof(why));
	if (e == -EPERM) {
		snprintf(warn, wlen,
			 "gpu: %s: recording host-side launches only", why);
		return NULL;
	}
	if (e) {
		snprintf(warn, wlen,
			 "gpu: %s not found (beside aperture or in %s): recording host-side launches only; it is built where the CUDA toolkit's CUPTI is installed",
			 AP_CUPTI_LIB, APERTURE_LIBDIR);
		return NULL;
	}
	if (setenv("CUDA_INJECTION64_PATH", lib, 1)) {
		snprintf(warn, wlen, "gpu: setting CUDA_INJECTION64_PATH: %s",
			 strerror(errno));
		return NULL;
	}
	return lib;
}
