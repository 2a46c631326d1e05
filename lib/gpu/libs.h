/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the CUDA launch entry points the gpu sensor probes: which
 * functions, which ELF files define them, and where the dynamic linker of
 * a program would look for libcudart and libcuda.  Internal to lib/ (the
 * gpu sensor and its unit tests); no privileges needed.
 */
#ifndef APERTURE_GPU_LIBS_H
#define APERTURE_GPU_LIBS_H

#include <stddef.h>
#include <stdint.h>

/* a function the gpu sensor probes */
struct ap_gpu_func {
	const char *name;
	int api;		/* AP_GPU_API_*, or -1: not a launch */
};

/* launch entry points first, then the helpers (cuModuleGetFunction) */
extern const struct ap_gpu_func ap_gpu_funcs[];
extern const size_t ap_gpu_nr_funcs;
/* bits of ap_gpu_funcs that are launch entry points */
uint32_t ap_gpu_launch_mask(void);

/* Which of ap_gpu_funcs the ELF file at path defines (.dynsym or
 * .symtab, functions with a section): bit i for ap_gpu_funcs[i], and
 * when offsets is not NULL, offsets[i] its file offset (what a uprobe is
 * set at).  One pass over the symbols, however many functions.
 * 0 or -errno (-ENOEXEC: not ELF). */
int ap_gpu_elf_funcs(const char *path, uint32_t *mask, uint64_t *offsets);

/* 1 when the file name is a CUDA runtime or driver library
 * (libcudart.so*, libcuda.so*) */
int ap_gpu_is_cuda_name(const char *path);

/* Calls fn for each directory the dynamic linker would search for a
 * library needed by the program exe, in its order: exe's DT_RPATH,
 * ld_library_path, exe's DT_RUNPATH ($ORIGIN expanded), the directories of
 * ld_so_conf (with its include lines), then, when defaults is set, the
 * default directories.  Directories may repeat.  exe, ld_library_path and
 * ld_so_conf may be NULL.  fn returning non-zero stops the walk and is
 * returned. */
typedef int (*ap_gpu_dir_fn)(void *ctx, const char *dir);
int ap_gpu_search_dirs(const char *exe, const char *ld_library_path,
		       const char *ld_so_conf, int defaults,
		       ap_gpu_dir_fn fn, void *ctx);

/* what ld.so reads besides the program's own paths */
#define AP_LD_SO_CONF		"/etc/ld.so.conf"

/* The file the dynamic linker of exe would load for the library name:
 * the first of ap_gpu_search_dirs (with AP_LD_SO_CONF and the defaults)
 * that holds it.  0 with its path in buf, or -ENOENT. */
int ap_gpu_find_lib(const char *exe, const char *ld_library_path,
		    const char *name, char *buf, size_t len);

/* Calls fn with the path of each CUDA library exe needs (DT_NEEDED), as
 * ap_gpu_find_lib finds it; those not found are skipped. */
int ap_gpu_needed_libs(const char *exe, const char *ld_library_path,
		       ap_gpu_dir_fn fn, void *ctx);

/* Whether a CUDA program exe could reach a GPU: AP_GPU_NO_DRIVER when
 * its dynamic linker would find no libcuda.so.1, AP_GPU_NO_DEVICE when
 * there is no /dev/nvidiaN; what is missing, in words, into buf ("" for
 * nothing).  exe and ld_library_path may be NULL (the system's view). */
#define AP_GPU_NO_DRIVER	0x1
#define AP_GPU_NO_DEVICE	0x2
int ap_gpu_driver_status(const char *exe, const char *ld_library_path,
			 char *buf, size_t len);

/* Calls fn with the path of each CUDA library file (by name) in dir. */
int ap_gpu_dir_libs(const char *dir, ap_gpu_dir_fn fn, void *ctx);

/* The file execvp would run for cmd (PATH search when it has no '/'),
 * into buf; 0 or -ENOENT. */
int ap_gpu_which(const char *cmd, const char *path_env, char *buf,
		 size_t len);

/*
 * libaperture-cupti.so, the CUDA injection library: beside the aperture
 * binary (the build directory), in ../lib/aperture from it (an installed
 * tree moved elsewhere), or in libdir (APERTURE_LIBDIR, where make install
 * put it).  exe is aperture's own path (/proc/self/exe).  It is loaded
 * into the command, root's maybe: one that another user could have put
 * there (ap_path_trusted, util/safefile.h) is passed over.  0 with the
 * resolved path in buf, -ENOENT when none exists, -EPERM when those there
 * were passed over, the first with why in why[wlen].
 */
#define AP_CUPTI_LIB	"libaperture-cupti.so"
int ap_cupti_lib_find(const char *exe, const char *libdir, char *buf,
		      size_t len, char *why, size_t wlen);
/* the same for the running aperture (/proc/self/exe, APERTURE_LIBDIR) */
int ap_cupti_lib_self(char *buf, size_t len, char *why, size_t wlen);

/*
 * record -e gpu -- CMD: the CUDA driver loads CUDA_INJECTION64_PATH into
 * the command at cuInit, and libaperture-cupti.so there reports the
 * kernels' device times.  Sets it to ap_cupti_lib_self's path (into
 * lib[len]) for the command to inherit; a value already set (another
 * tool's) is left alone.  The library the command will load, or NULL
 * with why not in warn[wlen].
 */
const char *ap_cupti_inject(char *lib, size_t len, char *warn, size_t wlen);

#endif /* APERTURE_GPU_LIBS_H */
