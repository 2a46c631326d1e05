// SPDX-License-Identifier: GPL-2.0
/*
 * The gpu event: the AP_TAG_GPU frame byte by byte, round trips, short and
 * long payloads (lib/gpu/codec.c); finding the CUDA entry points in ELF files
 * and the dynamic linker's search directories (lib/gpu/libs.c), against
 * the stand-in libraries of tests/workloads/fakecuda (and a real
 * libcudart when one is installed); the report view's aggregation by
 * kernel, shape and failure, and its join of device records to their
 * launches (lib/gpu/view.c); the AP_TAG_GPU_DEV frame; the conversion of
 * GPU timestamps to CLOCK_MONOTONIC (lib/gpu/clock.c).
 *
 * Workloads are found under $APERTURE_TEST_BUILD (default "build").
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/buf.h"
#include "gpu/codec.h"
#include "format/format.h"
#include "gpu/clock.h"
#include "gpu/libs.h"
#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

static void wl_path(const char *name, char *buf, size_t len)
{
	const char *build = getenv("APERTURE_TEST_BUILD");

	snprintf(buf, len, "%s/tests/workloads/%s", build ? build : "build",
		 name);
	ck_assert_msg(access(buf, R_OK) == 0,
		      "%s missing: build the workloads first", buf);
}

static void fill(struct ap_gpu_launch *e)
{
	memset(e, 0, sizeof(*e));
	e->ts = 0x0102030405060708ull;
	e->pid = 4242;
	e->tid = 4243;
	e->kernel = 0x55555555a1d9ull;
	e->api = AP_GPU_RUNTIME_EXC;
	e->grid[0] = 1024;
	e->grid[1] = 2;
	e->grid[2] = 3;
	e->block[0] = 256;
	e->block[1] = 4;
	e->block[2] = 1;
	e->shared_mem = 4096;
	e->stream = 0x7;
	e->launch_ns = 35000;
	e->device_ns = 0;
	e->stack_id = 17;
	e->cpu = 1;
	e->result = -35;
	strcpy(e->name, "softmax_kernel");
	e->corr[0] = 0x11223344;
	e->corr[1] = 0x55667788;
}

/* ---- frame ---- */

START_TEST(test_layout)
{
	struct ap_gpu_launch e;
	struct ap_buf b;
	const uint8_t *p;

	fill(&e);
	ap_buf__init(&b);
	ap_gpu_launch__encode(&e, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, 8 + AP_GPU_PAYLOAD_MIN + 14 + 8);
	p = b.data;
	ck_assert_uint_eq(ap_get_le32(p), 3);		/* AP_TAG_GPU */
	ck_assert_uint_eq(ap_get_le32(p + 4), AP_GPU_PAYLOAD_MIN + 14 + 8);
	p += 8;
	ck_assert_uint_eq(ap_get_le64(p + 0), 0x0102030405060708ull);
	ck_assert_uint_eq(p[0], 0x08);			/* little-endian */
	ck_assert_uint_eq(ap_get_le32(p + 8), 4242);
	ck_assert_uint_eq(ap_get_le32(p + 12), 4243);
	ck_assert_uint_eq(ap_get_le64(p + 16), 0x55555555a1d9ull);
	ck_assert_uint_eq(ap_get_le32(p + 24), AP_GPU_RUNTIME_EXC);
	ck_assert_uint_eq(ap_get_le32(p + 28), 1024);
	ck_assert_uint_eq(ap_get_le32(p + 32), 2);
	ck_assert_uint_eq(ap_get_le32(p + 36), 3);
	ck_assert_uint_eq(ap_get_le32(p + 40), 256);
	ck_assert_uint_eq(ap_get_le32(p + 44), 4);
	ck_assert_uint_eq(ap_get_le32(p + 48), 1);
	ck_assert_uint_eq(ap_get_le64(p + 52), 4096);
	ck_assert_uint_eq(ap_get_le64(p + 60), 7);
	ck_assert_uint_eq(ap_get_le64(p + 68), 35000);
	ck_assert_uint_eq(ap_get_le64(p + 76), 0);
	ck_assert_uint_eq(ap_get_le32(p + 84), 17);
	ck_assert_uint_eq(ap_get_le32(p + 88), 1);
	ck_assert_uint_eq(ap_get_le32(p + 92), (uint32_t)-35);
	ck_assert_uint_eq(ap_get_le16(p + 96), 14);
	ck_assert(!memcmp(p + 98, "softmax_kernel", 14));
	/* minor 2: the CUPTI correlation ids, after the name */
	ck_assert_uint_eq(ap_get_le32(p + 112), 0x11223344);
	ck_assert_uint_eq(ap_get_le32(p + 116), 0x55667788);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct ap_gpu_launch e, d;
	struct ap_buf b;

	fill(&e);
	ap_buf__init(&b);
	ap_gpu_launch__encode(&e, &b);
	ck_assert_int_eq(ap_gpu_launch__decode(b.data + 8, b.len - 8, &d), 0);
	ck_assert(!memcmp(&e, &d, sizeof(e)));

	/* no name: an empty string, still round trips */
	memset(e.name, 0, sizeof(e.name));
	e.device_ns = 123456;
	ap_buf__reset(&b);
	ap_gpu_launch__encode(&e, &b);
	ck_assert_uint_eq(b.len, 8 + AP_GPU_PAYLOAD_MIN + 8);
	ck_assert_int_eq(ap_gpu_launch__decode(b.data + 8, b.len - 8, &d), 0);
	ck_assert(!memcmp(&e, &d, sizeof(e)));
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_short_long)
{
	struct ap_gpu_launch e, d;
	struct ap_buf b;
	uint8_t *big;
	size_t n;

	fill(&e);
	ap_buf__init(&b);
	ap_gpu_launch__encode(&e, &b);
	n = b.len - 8;
	/* every cut short of the name's end is refused */
	for (size_t cut = 0; cut < n - 8; cut++)
		ck_assert_int_eq(ap_gpu_launch__decode(b.data + 8, cut, &d),
				 -EBADMSG);
	/* an older payload (no correlation ids) reads with none */
	ck_assert_int_eq(ap_gpu_launch__decode(b.data + 8, n - 8, &d), 0);
	ck_assert_uint_eq(d.corr[0], 0);
	ck_assert_uint_eq(d.corr[1], 0);
	ck_assert_str_eq(d.name, "softmax_kernel");
	/* fields appended by a newer writer are skipped */
	big = calloc(1, n + 32);
	memcpy(big, b.data + 8, n);
	memset(big + n, 0xee, 32);
	ck_assert_int_eq(ap_gpu_launch__decode(big, n + 32, &d), 0);
	ck_assert(!memcmp(&e, &d, sizeof(e)));
	free(big);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_api_names)
{
	ck_assert_str_eq(ap_gpu_api_name(AP_GPU_RUNTIME), "runtime");
	ck_assert_str_eq(ap_gpu_api_name(AP_GPU_DRIVER), "driver");
	ck_assert_str_eq(ap_gpu_api_name(AP_GPU_RUNTIME_EXC), "runtime-exc");
	ck_assert_str_eq(ap_gpu_api_name(AP_GPU_DRIVER_EX), "driver-ex");
	ck_assert_str_eq(ap_gpu_api_name(99), "unknown");
	ck_assert_str_eq(ap_tag__name(3), "gpu");
}
END_TEST

/* ---- finding the entry points ---- */

static uint32_t bits(const char *const *names)
{
	uint32_t m = 0;
	size_t i;

	for (; *names; names++) {
		for (i = 0; i < ap_gpu_nr_funcs; i++)
			if (!strcmp(ap_gpu_funcs[i].name, *names))
				break;
		ck_assert_msg(i < ap_gpu_nr_funcs, "%s not probed", *names);
		m |= 1u << i;
	}
	return m;
}

/* the symbol's bytes at the offset found must be the function's code:
 * compare with the copy the loader mapped in this process */
START_TEST(test_elf_funcs)
{
	static const char *const rt[] = { "cudaLaunchKernel",
		"cudaLaunchKernelExC", NULL };
	static const char *const drv[] = { "cuLaunchKernel",
		"cuLaunchKernelEx", "cuModuleGetFunction", NULL };
	uint64_t offs[32];
	uint32_t mask;
	char path[PATH_MAX];

	wl_path("libcudart.so.12", path, sizeof(path));
	ck_assert_int_eq(ap_gpu_elf_funcs(path, &mask, offs), 0);
	ck_assert_uint_eq(mask, bits(rt));
	ck_assert(mask & ap_gpu_launch_mask());

	wl_path("libcuda.so.1", path, sizeof(path));
	memset(offs, 0, sizeof(offs));
	ck_assert_int_eq(ap_gpu_elf_funcs(path, &mask, offs), 0);
	ck_assert_uint_eq(mask, bits(drv));
	for (size_t i = 0; i < ap_gpu_nr_funcs; i++) {
		struct stat st;

		if (!(mask & (1u << i)))
			continue;
		ck_assert(!stat(path, &st));
		ck_assert(offs[i] > 0 && offs[i] < (uint64_t)st.st_size);
	}
	/* cuModuleGetFunction is probed but is not a launch */
	ck_assert(!(bits((const char *const[]){ "cuModuleGetFunction", NULL }) &
		    ap_gpu_launch_mask()));

	/* the program only calls them: undefined symbols do not count */
	wl_path("gpu_launch", path, sizeof(path));
	ck_assert_int_eq(ap_gpu_elf_funcs(path, &mask, NULL), 0);
	ck_assert_uint_eq(mask, 0);

	ck_assert_int_eq(ap_gpu_elf_funcs("/nonexistent/libcuda.so.1", &mask,
					  NULL), -ENOENT);
}
END_TEST

/* the offset is where the code is: the bytes there are those of the
 * function the dynamic loader maps for dlsym */
START_TEST(test_elf_offsets)
{
	char path[PATH_MAX];
	uint8_t a[16];
	uint64_t offs[32];
	uint32_t mask;
	void *h, *fn;
	size_t i;
	int fd, n = 0;

	wl_path("libcuda.so.1", path, sizeof(path));
	ck_assert_int_eq(ap_gpu_elf_funcs(path, &mask, offs), 0);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen: %s", dlerror());
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < ap_gpu_nr_funcs; i++) {
		if (!(mask & (1u << i)))
			continue;
		fn = dlsym(h, ap_gpu_funcs[i].name);
		ck_assert_ptr_nonnull(fn);
		ck_assert_int_eq(pread(fd, a, sizeof(a), offs[i]), sizeof(a));
		ck_assert_msg(!memcmp(a, fn, sizeof(a)), "%s: wrong offset",
			      ap_gpu_funcs[i].name);
		n++;
	}
	ck_assert_int_eq(n, 3);
	close(fd);
	dlclose(h);
}
END_TEST

START_TEST(test_real_cudart)
{
	static const char *const cands[] = {
		"/usr/local/cuda/lib64/libcudart.so",
		"/usr/local/cuda-13.0/lib/libcudart.so.13",
		"/usr/local/cuda/lib/libcudart.so",
	};
	uint32_t mask;
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!access(cands[i], R_OK))
			break;
	if (i == sizeof(cands) / sizeof(cands[0]))
		return;		/* no CUDA toolkit here: nothing to check */
	ck_assert_int_eq(ap_gpu_elf_funcs(cands[i], &mask, NULL), 0);
	ck_assert_msg(mask & bits((const char *const[]){ "cudaLaunchKernel",
							 NULL }),
		      "%s: cudaLaunchKernel not found", cands[i]);
	ck_assert(ap_gpu_is_cuda_name(cands[i]));
}
END_TEST

START_TEST(test_cuda_names)
{
	ck_assert(ap_gpu_is_cuda_name("/usr/lib/libcudart.so.12"));
	ck_assert(ap_gpu_is_cuda_name("libcuda.so.1"));
	ck_assert(ap_gpu_is_cuda_name("/x/libcuda.so"));
	ck_assert(!ap_gpu_is_cuda_name("/usr/lib/libcudnn.so.9"));
	ck_assert(!ap_gpu_is_cuda_name("/usr/lib/libc.so.6"));
	ck_assert(!ap_gpu_is_cuda_name("/opt/libcuda.so.1/libc.so.6"));
}
END_TEST

struct dirs {
	char v[32][PATH_MAX];
	int n;
};

static int collect(void *ctx, const char *dir)
{
	struct dirs *d = ctx;

	if (d->n < 32)
		snprintf(d->v[d->n++], PATH_MAX, "%s", dir);
	return 0;
}

START_TEST(test_search_dirs)
{
	char exe[PATH_MAX], origin[PATH_MAX], conf[] = "/tmp/ap-gpu-conf.XXXXXX";
	char sub[PATH_MAX + 16], inc[PATH_MAX + 32];
	struct dirs d = { .n = 0 };
	FILE *f;
	int fd;

	wl_path("gpu_launch", exe, sizeof(exe));
	ck_assert(realpath(exe, origin));
	*strrchr(origin, '/') = '\0';

	/* ld.so.conf with a comment, a directory and an include */
	ck_assert(mkdtemp(conf));
	snprintf(sub, sizeof(sub), "%s/conf.d", conf);
	ck_assert(!mkdir(sub, 0700));
	snprintf(inc, sizeof(inc), "%s/cuda.conf", sub);
	f = fopen(inc, "w");
	fprintf(f, "/opt/cuda/lib64  # toolkit\n");
	fclose(f);
	snprintf(inc, sizeof(inc), "%s/ld.so.conf", conf);
	f = fopen(inc, "w");
	fprintf(f, "# comment\n/usr/local/lib\ninclude conf.d/*.conf\n\n");
	fclose(f);

	ck_assert_int_eq(ap_gpu_search_dirs(exe, "/a:/b", inc, 1, collect,
					    &d), 0);
	/* LD_LIBRARY_PATH, then DT_RUNPATH ($ORIGIN), then ld.so.conf in
	 * order with its include, then the defaults */
	ck_assert_int_ge(d.n, 6);
	ck_assert_str_eq(d.v[0], "/a");
	ck_assert_str_eq(d.v[1], "/b");
	ck_assert_str_eq(d.v[2], origin);
	ck_assert_str_eq(d.v[3], "/usr/local/lib");
	ck_assert_str_eq(d.v[4], "/opt/cuda/lib64");
	ck_assert_str_eq(d.v[5], "/lib/x86_64-linux-gnu");

	/* without the system: only what the program and environment name */
	d.n = 0;
	ck_assert_int_eq(ap_gpu_search_dirs(exe, "/a", NULL, 0, collect, &d),
			 0);
	ck_assert_int_eq(d.n, 2);
	ck_assert_str_eq(d.v[0], "/a");
	ck_assert_str_eq(d.v[1], origin);

	unlink(inc);
	snprintf(inc, sizeof(inc), "%s/cuda.conf", sub);
	unlink(inc);
	rmdir(sub);
	rmdir(conf);
	(void)fd;
}
END_TEST

struct libs {
	int cudart, cuda, other;
};

static int count_lib(void *ctx, const char *path)
{
	struct libs *l = ctx;
	const char *b = strrchr(path, '/') + 1;

	if (!strcmp(b, "libcudart.so.12"))
		l->cudart++;
	else if (!strcmp(b, "libcuda.so.1"))
		l->cuda++;
	else
		l->other++;
	return 0;
}

START_TEST(test_dir_libs_which)
{
	char exe[PATH_MAX], dir[PATH_MAX], buf[PATH_MAX];
	struct libs l = { 0 };

	wl_path("gpu_launch", exe, sizeof(exe));
	snprintf(dir, sizeof(dir), "%s", exe);
	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(ap_gpu_dir_libs(dir, count_lib, &l), 0);
	ck_assert_int_eq(l.cudart, 1);
	ck_assert_int_eq(l.cuda, 1);
	ck_assert_int_eq(l.other, 0);

	ck_assert_int_eq(ap_gpu_which(exe, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, exe);
	ck_assert_int_eq(ap_gpu_which("gpu_launch", dir, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, exe);
	ck_assert_int_eq(ap_gpu_which("gpu_launch", "/nonexistent:/tmp", buf,
				      sizeof(buf)), -ENOENT);
	ck_assert_int_eq(ap_gpu_which("sh", "/nonexistent::/bin", buf,
				      sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/bin/sh");
}
END_TEST

/* ---- device frame ---- */

static void fill_dev(struct ap_gpu_dev *d)
{
	memset(d, 0, sizeof(*d));
	d->ts = 0x1112131415161718ull;
	d->pid = 4242;
	d->tid = 4250;
	d->kind = AP_GPU_KERNEL;
	d->corr = 77;
	d->duration_ns = 1234567;
	d->device = 1;
	d->context = 2;
	d->stream = 13;
	d->sub = 0;
	d->bytes = 0;
	d->grid[0] = 80;
	d->grid[1] = 2;
	d->grid[2] = 1;
	d->block[0] = 256;
	d->block[1] = 1;
	d->block[2] = 1;
	d->static_smem = 48;
	d->dynamic_smem = 1024;
	strcpy(d->name, "_Z10spin_shortPm");
}

START_TEST(test_dev_layout)
{
	struct ap_gpu_dev e, d;
	struct ap_buf b;
	const uint8_t *p;
	size_t n, cut;

	fill_dev(&e);
	ap_buf__init(&b);
	ap_gpu_dev__encode(&e, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, 8 + AP_GPU_DEV_PAYLOAD_MIN + 16);
	p = b.data;
	ck_assert_uint_eq(ap_get_le32(p), AP_TAG_GPU_DEV);
	ck_assert_uint_eq(AP_TAG_GPU_DEV, 7);
	p += 8;
	ck_assert_uint_eq(ap_get_le64(p + 0), 0x1112131415161718ull);
	ck_assert_uint_eq(ap_get_le32(p + 8), 4242);
	ck_assert_uint_eq(ap_get_le32(p + 12), 4250);
	ck_assert_uint_eq(ap_get_le32(p + 16), AP_GPU_KERNEL);
	ck_assert_uint_eq(ap_get_le32(p + 20), 77);
	ck_assert_uint_eq(ap_get_le64(p + 24), 1234567);
	ck_assert_uint_eq(ap_get_le32(p + 32), 1);
	ck_assert_uint_eq(ap_get_le32(p + 36), 2);
	ck_assert_uint_eq(ap_get_le32(p + 40), 13);
	ck_assert_uint_eq(ap_get_le32(p + 44), 0);
	ck_assert_uint_eq(ap_get_le64(p + 48), 0);
	ck_assert_uint_eq(ap_get_le32(p + 56), 80);
	ck_assert_uint_eq(ap_get_le32(p + 64), 1);
	ck_assert_uint_eq(ap_get_le32(p + 68), 256);
	ck_assert_uint_eq(ap_get_le32(p + 80), 48);
	ck_assert_uint_eq(ap_get_le32(p + 84), 1024);
	ck_assert_uint_eq(ap_get_le16(p + 88), 16);
	ck_assert(!memcmp(p + 90, "_Z10spin_shortPm", 16));

	n = b.len - 8;
	ck_assert_int_eq(ap_gpu_dev__decode(p, n, &d), 0);
	ck_assert(!memcmp(&e, &d, sizeof(e)));
	for (cut = 0; cut < n; cut++)
		ck_assert_int_eq(ap_gpu_dev__decode(p, cut, &d), -EBADMSG);
	ap_buf__free(&b);

	ck_assert_str_eq(ap_gpu_copy_name(1), "HtoD");
	ck_assert_str_eq(ap_gpu_copy_name(2), "DtoH");
	ck_assert_str_eq(ap_gpu_copy_name(8), "DtoD");
	ck_assert_str_eq(ap_gpu_copy_name(99), "?");
	ck_assert_str_eq(ap_gpu_sync_name(3), "stream");
	ck_assert_str_eq(ap_gpu_sync_name(4), "context");
	ck_assert_str_eq(ap_gpu_dev_kind_name(AP_GPU_MEMSET), "memset");
}
END_TEST

/* ---- clock ---- */

START_TEST(test_clock_points)
{
	struct ap_gpu_clock k;
	const uint64_t G = 5000000000000ull, M = 1000000000ull, S = 1000000000ull;

	ap_gpu_clock__init(&k);
	/* nothing known: unchanged */
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, 123), 123);
	/* one point: an offset, both ways */
	ck_assert_int_eq(ap_gpu_clock__add(&k, G, M), 0);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G), M);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + 777), M + 777);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G - 777), M - 777);
	/* a point too close to the last one is not kept */
	ck_assert_int_eq(ap_gpu_clock__add(&k, G + 1000, M + 1000), 1);
	ck_assert_uint_eq(k.nr, 1);
	/* going backwards is refused */
	ck_assert_int_eq(ap_gpu_clock__add(&k, G - S, M + S), -EINVAL);
	ck_assert_int_eq(ap_gpu_clock__add(&k, G + S, M - 1), -EINVAL);
	/* the GPU clock runs 100 ppm fast over the next second: followed,
	 * inside the segment and past its end */
	ck_assert_int_eq(ap_gpu_clock__add(&k, G + S + S / 10000, M + S), 0);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + S + S / 10000), M + S);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + (S + S / 10000) / 2),
			  M + S / 2);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + 2 * (S + S / 10000)),
			  M + 2 * S);
	/* before the first point: the first segment's slope */
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G - (S + S / 10000)),
			  M - S);
	/* then the offset jumps by 3 us (a re-synchronisation): times
	 * between the two last points are interpolated, later ones follow
	 * the new offset */
	ck_assert_int_eq(ap_gpu_clock__add(&k, G + 2 * (S + S / 10000),
					   M + 2 * S + 3000), 0);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + 2 * (S + S / 10000)),
			  M + 2 * S + 3000);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + S + S / 10000),
			  M + S);
}
END_TEST

START_TEST(test_clock_implausible)
{
	struct ap_gpu_clock k;
	const uint64_t G = 7000000000ull, M = 3000000000ull;

	/* 20 ms on one clock, 30 ms on the other: a bad reading, not a
	 * clock; the offset of the nearest point with a slope of 1 */
	ap_gpu_clock__init(&k);
	ck_assert_int_eq(ap_gpu_clock__add(&k, G, M), 0);
	ck_assert_int_eq(ap_gpu_clock__add(&k, G + 20000000, M + 30000000), 0);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + 10000000),
			  M + 10000000);
	ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, G + 40000000),
			  M + 30000000 + 20000000);
}
END_TEST

START_TEST(test_clock_full)
{
	struct ap_gpu_clock k;
	const uint64_t step = AP_GPU_CLOCK_MIN_NS;
	unsigned int i;

	ap_gpu_clock__init(&k);
	for (i = 0; i < 3 * AP_GPU_CLOCK_POINTS; i++)
		ck_assert_int_eq(ap_gpu_clock__add(&k, 1000 + i * step,
						   5000 + i * step), 0);
	ck_assert_uint_le(k.nr, AP_GPU_CLOCK_POINTS);
	/* the first and the last points are kept, in order */
	ck_assert_uint_eq(k.pt[0].gpu, 1000);
	ck_assert_uint_eq(k.pt[k.nr - 1].gpu,
			  1000 + (3 * AP_GPU_CLOCK_POINTS - 1) * step);
	for (i = 1; i < k.nr; i++)
		ck_assert_uint_gt(k.pt[i].gpu, k.pt[i - 1].gpu);
	for (i = 0; i < 3 * AP_GPU_CLOCK_POINTS * step; i += step / 3)
		ck_assert_uint_eq(ap_gpu_clock__to_mono(&k, 1000 + i),
				  5000 + i);
}
END_TEST

/* clocks for measure: the monotonic one advances 10 ns a read, except
 * one slow pair; the GPU one is the monotonic one + 1e12 */
struct fake_clocks {
	uint64_t mono;
	int reads;
};

static uint64_t fake_mono(void *ctx)
{
	struct fake_clocks *c = ctx;

	c->reads++;
	/* the first try's pair is slow (a preemption): 5 us */
	c->mono += c->reads == 2 ? 5000 : 10;
	return c->mono;
}

static uint64_t fake_gpu(void *ctx)
{
	struct fake_clocks *c = ctx;

	return c->mono + 1000000000000ull;
}

START_TEST(test_clock_measure)
{
	struct fake_clocks c = { 1000000, 0 };
	struct ap_gpu_sync s;
	uint64_t w;

	w = ap_gpu_clock__measure(fake_gpu, fake_mono, &c, 3, &s);
	/* the tightest pair: 10 ns, the GPU reading at its middle */
	ck_assert_uint_eq(w, 10);
	ck_assert_uint_eq(c.reads, 6);
	ck_assert_uint_eq(s.gpu - 1000000000000ull + 5, s.mono);
}
END_TEST

/* ---- view ---- */

static void feed_dev(const struct ap_view_ops *ops, void *v,
		     const struct ap_gpu_dev *e)
{
	struct ap_frame f;
	struct ap_buf b;

	ap_buf__init(&b);
	ap_gpu_dev__encode(e, &b);
	f.tag = ap_get_le32(b.data);
	f.len = ap_get_le32(b.data + 4);
	f.payload = b.data + 8;
	ck_assert(ap_view__wants(ops, f.tag));
	ck_assert_int_eq(ops->event(v, &f), 0);
	ap_buf__free(&b);
}

static void feed(const struct ap_view_ops *ops, void *v,
		 const struct ap_gpu_launch *e)
{
	struct ap_frame f;
	struct ap_buf b;

	ap_buf__init(&b);
	ap_gpu_launch__encode(e, &b);
	f.tag = ap_get_le32(b.data);
	f.len = ap_get_le32(b.data + 4);
	f.payload = b.data + 8;
	ck_assert_int_eq(ops->event(v, &f), 0);
	ap_buf__free(&b);
}

START_TEST(test_view)
{
	const struct ap_view_ops *ops = ap_view__find("gpu");
	struct ap_report_opts o;
	struct ap_symbolizer *sym = ap_symbolizer__new(NULL);
	struct ap_session *s = ap_session__new(sym);
	struct ap_gpu_launch e;
	char *out = NULL;
	size_t len = 0;
	FILE *mf;
	void *v;
	int i;

	ck_assert_ptr_nonnull(ops);
	ck_assert_uint_eq(ops->tag, AP_TAG_GPU);
	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_JSON;
	v = ops->new(&o, s);
	ck_assert_ptr_nonnull(v);

	/* softmax: 6 launches in two shapes, one failed; from two threads */
	fill(&e);
	e.api = AP_GPU_DRIVER;
	e.stack_id = 0;
	for (i = 0; i < 6; i++) {
		e.tid = 4243 + (i & 1);
		e.grid[0] = i < 4 ? 1024 : 512;
		e.result = i == 5 ? 1 : 0;
		e.launch_ns = 1000;
		feed(ops, v, &e);
	}
	/* another driver kernel, 2 launches */
	strcpy(e.name, "gelu_kernel");
	e.kernel = 0x1234;
	e.result = 0;
	feed(ops, v, &e);
	feed(ops, v, &e);
	/* a --pid filter keeps out what it must */
	o.nr_pids = 1;
	o.pids[0] = 1;
	feed(ops, v, &e);
	o.nr_pids = 0;

	mf = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, mf), 0);
	fclose(mf);
	ck_assert_msg(strstr(out, "\"launches\": 8, \"launch_ns\": 8000"), "%s",
		      out);
	ck_assert_msg(strstr(out, "{\"name\": \"softmax_kernel\", \"api\": [\"driver\"], \"launches\": 6, \"failed\": 1, \"launch_ns_total\": 6000, \"launch_ns_avg\": 1000.0, \"device_ns\": null"),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"grid\": [1024, 2, 3], \"block\": [256, 4, 1], \"shared_mem\": 4096, \"launches\": 4}, {\"grid\": [512, 2, 3]"),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"name\": \"gelu_kernel\", \"api\": [\"driver\"], \"launches\": 2, \"failed\": 0"),
		      "%s", out);
	/* the busiest kernel first */
	ck_assert(strstr(out, "softmax_kernel") < strstr(out, "gelu_kernel"));
	free(out);

	/* top: decay halves, 0/1 clears */
	ops->decay(v, 1, 2);
	out = NULL;
	mf = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, mf), 0);
	fclose(mf);
	ck_assert_msg(strstr(out, "\"launches\": 4, "), "%s", out);
	free(out);
	ops->decay(v, 0, 1);
	out = NULL;
	o.format = AP_FMT_TABLE;
	mf = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, mf), 0);
	fclose(mf);
	ck_assert_msg(strstr(out, "# no GPU kernel launches recorded"), "%s",
		      out);
	free(out);

	ops->free(v);
	ap_session__free(s);
	ap_symbolizer__free(sym);
}
END_TEST

/*
 * Device records joined to launches by (pid, correlation id), either id
 * of the launch; an unjoined kernel gets the row of its demangled name;
 * device times total/avg/p95/max exactly; copies by direction, memsets,
 * synchronisations, drops.
 */
START_TEST(test_view_device)
{
	const struct ap_view_ops *ops = ap_view__find("gpu");
	struct ap_report_opts o;
	struct ap_symbolizer *sym = ap_symbolizer__new(NULL);
	struct ap_session *s = ap_session__new(sym);
	struct ap_gpu_launch e;
	struct ap_gpu_dev d;
	char *out = NULL;
	size_t len = 0;
	FILE *mf;
	void *v;
	int i;

	memset(&o, 0, sizeof(o));
	o.format = AP_FMT_JSON;
	v = ops->new(&o, s);
	ck_assert_ptr_nonnull(v);

	/* 20 launches of softmax: runtime ids 100.., driver ids 200.. */
	fill(&e);
	e.api = AP_GPU_DRIVER;
	e.stack_id = 0;
	e.result = 0;
	for (i = 0; i < 20; i++) {
		e.corr[0] = 100 + i;
		e.corr[1] = 200 + i;
		feed(ops, v, &e);
	}
	/* their kernels: 1000 * (i + 1) ns, joined by the driver's id for
	 * even i, the runtime's for odd i; one of another process with the
	 * same id does not join */
	fill_dev(&d);
	d.pid = e.pid;
	for (i = 0; i < 20; i++) {
		d.corr = i & 1 ? 100 + i : 200 + i;
		d.duration_ns = 1000 * (i + 1);
		feed_dev(ops, v, &d);
	}
	/* a kernel whose launch was not seen: its own row, demangled */
	d.corr = 999;
	d.duration_ns = 5;
	feed_dev(ops, v, &d);
	d.pid = e.pid + 1;
	d.corr = 200;
	d.duration_ns = 7;
	feed_dev(ops, v, &d);
	/* copies, a memset, syncs, drops */
	d.pid = e.pid;
	d.kind = AP_GPU_MEMCPY;
	d.sub = 1;
	d.bytes = 4096;
	d.duration_ns = 300;
	feed_dev(ops, v, &d);
	feed_dev(ops, v, &d);
	d.sub = 2;
	d.bytes = 100;
	d.duration_ns = 50;
	feed_dev(ops, v, &d);
	d.kind = AP_GPU_MEMSET;
	d.bytes = 64;
	d.duration_ns = 9;
	feed_dev(ops, v, &d);
	d.kind = AP_GPU_SYNC;
	d.sub = 4;
	d.duration_ns = 11;
	feed_dev(ops, v, &d);
	d.kind = AP_GPU_DROPPED;
	d.bytes = 3;
	feed_dev(ops, v, &d);

	mf = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, mf), 0);
	fclose(mf);
	/* 1000..20000: total 210000, avg 10500, p95 the 19th: 19000 */
	ck_assert_msg(strstr(out, "\"device_ns\": 210012, \"device_kernels\": 22, \"device_joined\": 20, \"device_dropped\": 3"),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"name\": \"softmax_kernel\", \"api\": [\"driver\"], \"launches\": 20, \"failed\": 0, \"launch_ns_total\": 700000, \"launch_ns_avg\": 35000.0, \"device_ns\": 210000, \"device_kernels\": 20, \"device_ns_avg\": 10500, \"device_ns_p95\": 19000, \"device_ns_max\": 20000"),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"name\": \"spin_short(unsigned long*)\", \"api\": [], \"launches\": 0, \"failed\": 0, \"launch_ns_total\": 0, \"launch_ns_avg\": 0.0, \"device_ns\": 12, \"device_kernels\": 2, \"device_ns_avg\": 6, \"device_ns_p95\": 7, \"device_ns_max\": 7, \"shapes\": [{\"grid\": [80, 2, 1], \"block\": [256, 1, 1], \"shared_mem\": 1024, \"launches\": 2}]"),
		      "%s", out);
	ck_assert_msg(strstr(out, "\"memcpy\": [{\"direction\": \"HtoD\", \"copies\": 2, \"bytes\": 8192, \"device_ns\": 600}, {\"direction\": \"DtoH\", \"copies\": 1, \"bytes\": 100, \"device_ns\": 50}], \"memset\": {\"count\": 1, \"bytes\": 64, \"device_ns\": 9}, \"sync\": [{\"type\": \"context\", \"count\": 1, \"device_ns\": 11}]"),
		      "%s", out);
	free(out);

	/* the table: device columns, copies by direction */
	o.format = AP_FMT_TABLE;
	out = NULL;
	mf = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, mf), 0);
	fclose(mf);
	ck_assert_msg(strstr(out, "kernels run on the device: 22 (20 joined to their launch)"),
		      "%s", out);
	ck_assert_msg(strstr(out, "210.00 us    10.50 us    19.00 us    20.00 us  driver       softmax_kernel"),
		      "%s", out);
	ck_assert_msg(strstr(out, "HtoD"), "%s", out);
	ck_assert_msg(strstr(out, "CUPTI dropped 3 device records"), "%s", out);
	free(out);

	ops->free(v);
	ap_session__free(s);
	ap_symbolizer__free(sym);
}
END_TEST

static Suite *gpu_suite(void)
{
	Suite *s = suite_create("gpu");
	TCase *tc;

	tc = tcase_create("frame");
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_short_long);
	tcase_add_test(tc, test_api_names);
	tcase_add_test(tc, test_dev_layout);
	suite_add_tcase(s, tc);

	tc = tcase_create("clock");
	tcase_add_test(tc, test_clock_points);
	tcase_add_test(tc, test_clock_implausible);
	tcase_add_test(tc, test_clock_full);
	tcase_add_test(tc, test_clock_measure);
	suite_add_tcase(s, tc);

	tc = tcase_create("libs");
	tcase_add_test(tc, test_elf_funcs);
	tcase_add_test(tc, test_elf_offsets);
	tcase_add_test(tc, test_real_cudart);
	tcase_add_test(tc, test_cuda_names);
	tcase_add_test(tc, test_search_dirs);
	tcase_add_test(tc, test_dir_libs_which);
	suite_add_tcase(s, tc);

	tc = tcase_create("view");
	tcase_add_test(tc, test_view);
	tcase_add_test(tc, test_view_device);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gpu_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
