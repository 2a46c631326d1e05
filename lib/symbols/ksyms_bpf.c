// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's symbols as record needs them: read after aperture's own BPF
 * object is loaded (before, its programs' JIT code would fall in whatever
 * [bpf] symbol came before it), with every BPF program's JIT image bounded
 * by its real length from bpf_prog_info, as perf's bpf events carry it.
 */
#include "symbols/symbolizer.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int size__cmp(const void *a, const void *b)
{
	const struct ap_ksym_size *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the kernel's bpf_get_prog_name: "bpf_prog_" tag, "_" name */
static void prog_name(const struct bpf_prog_info *info, char *buf,
		      size_t len)
{
	int n = snprintf(buf, len, "bpf_prog_");
	int i;

	for (i = 0; i < BPF_TAG_SIZE && n + 2 < (int)len; i++)
		n += snprintf(buf + n, len - n, "%02x", info->tag[i]);
	if (info->name[0] && n < (int)len)
		snprintf(buf + n, len - n, "_%.*s", (int)sizeof(info->name),
			 info->name);
}

/* appends the JIT images of program fd to *v; 0 or -errno */
static int prog__sizes(int fd, struct ap_ksym_size **v, size_t *nr,
		       size_t *cap)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), n, i;
	uint64_t *addrs = NULL;
	uint32_t *lens = NULL;
	char name[64];
	int ret;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	n = info.nr_jited_ksyms;
	if (!n || info.nr_jited_func_lens != n)
		return 0;	/* not JITed, or addresses hidden */
	prog_name(&info, name, sizeof(name));
	addrs = calloc(n, sizeof(*addrs));
	lens = calloc(n, sizeof(*lens));
	if (!addrs || !lens) {
		ret = -ENOMEM;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (uint64_t)(uintptr_t)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (uint64_t)(uintptr_t)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ret = -errno;
		goto out;
	}
	if (info.nr_jited_ksyms < n)
		n = info.nr_jited_ksyms;
	for (i = 0; i < n; i++) {
		struct ap_ksym_size *s;

		if (!addrs[i] || !lens[i])
			continue;
		if (*nr == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			struct ap_ksym_size *nv = realloc(*v, c * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				goto out;
			}
			*v = nv;
			*cap = c;
		}
		s = &(*v)[(*nr)++];
		s->addr = addrs[i];
		s->size = lens[i];
		/* subprograms: the kernel names them by BTF; the main
		 * program's name is the nearest we know */
		snprintf(s->name, sizeof(s->name), "%s", name);
	}
	ret = 0;
out:
	free(addrs);
	free(lens);
	return ret;
}

int ap_kallsyms__bpf_sizes(struct ap_ksym_size **out)
{
	struct ap_ksym_size *v = NULL;
	size_t nr = 0, cap = 0;
	uint32_t id = 0;
	int ret = 0;

	*out = NULL;
	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* unloaded meanwhile */
			ret = -errno;
			break;
		}
		ret = prog__sizes(fd, &v, &nr, &cap);
		close(fd);
		if (ret)
			break;
	}
	if (ret) {
		free(v);
		return ret;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), size__cmp);
	*out = v;
	return (int)nr;
}

struct ap_kallsyms *ap_kallsyms__load_kernel(int *err)
{
	struct ap_ksym_size *sizes;
	struct ap_kallsyms *k;
	int n;

	/* without CAP_SYS_ADMIN: kallsyms alone, unknown sizes */
	n = ap_kallsyms__bpf_sizes(&sizes);
	if (n < 0)
		n = 0;
	k = ap_kallsyms__load_sized("/proc/kallsyms", "tTwW", sizes, n, err);
	free(sizes);
	return k;
}
