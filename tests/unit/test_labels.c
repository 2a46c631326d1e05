// SPDX-License-Identifier: GPL-2.0
/*
 * Labels (lib/util/labels.c): the names and values both Pyroscope and
 * Parca take, record --label's lines, and the container id in the
 * cgroup paths of docker, containerd, cri-o, podman, kubepods (cgroupfs
 * and systemd drivers) and LXC, as parca-agent reads them; and the
 * format's cgroup frame and header labels, which carry them.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "util/labels.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

START_TEST(names_and_values)
{
	char why[256];

	ck_assert_int_eq(ap_label__check("env", "prod", why, sizeof(why)), 0);
	ck_assert_int_eq(ap_label__check("_a9", "x/y:z é", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("9a", "x", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("a-b", "x", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("a.b", "x", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("__name__", "x", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("", "x", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("pid", "1", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("container_id", "1", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "a,b", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "a}", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "a=b", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", " a", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "a\n", why, sizeof(why)), 0);
	ck_assert_int_ne(ap_label__check("env", "\xff", why, sizeof(why)), 0);
}
END_TEST

START_TEST(record_lines)
{
	char lines[256] = "", why[256], n[160], v[2049];
	size_t pos = 0;
	int i;

	ck_assert_int_eq(ap_label__append(lines, sizeof(lines), "env=prod", why,
					  sizeof(why)), 0);
	ck_assert_int_eq(ap_label__append(lines, sizeof(lines), "team=a_b", why,
					  sizeof(why)), 0);
	ck_assert_int_ne(ap_label__append(lines, sizeof(lines), "env=dev", why,
					  sizeof(why)), 0);
	ck_assert_int_ne(ap_label__append(lines, sizeof(lines), "noeq", why,
					  sizeof(why)), 0);
	ck_assert_str_eq(lines, "env=prod\nteam=a_b\n");
	ck_assert_int_eq(ap_label__next(lines, &pos, n, sizeof(n), v, sizeof(v)), 1);
	ck_assert_str_eq(n, "env");
	ck_assert_str_eq(v, "prod");
	ck_assert_int_eq(ap_label__next(lines, &pos, n, sizeof(n), v, sizeof(v)), 1);
	ck_assert_str_eq(n, "team");
	ck_assert_int_eq(ap_label__next(lines, &pos, n, sizeof(n), v, sizeof(v)), -1);
	/* a hostile file's lines: the bad ones skipped */
	pos = 0;
	ck_assert_int_eq(ap_label__next("bad-name=x\nok=1", &pos, n, sizeof(n),
					v, sizeof(v)), 0);
	ck_assert_int_eq(ap_label__next("bad-name=x\nok=1", &pos, n, sizeof(n),
					v, sizeof(v)), 1);
	ck_assert_str_eq(n, "ok");
	/* at most 16 */
	lines[0] = '\0';
	for (i = 0; i < AP_LABEL_MAX_RECORD; i++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "l%d=v", i);
		ck_assert_int_eq(ap_label__append(lines, sizeof(lines), arg,
						  why, sizeof(why)), 0);
	}
	ck_assert_int_ne(ap_label__append(lines, sizeof(lines), "one=more",
					  why, sizeof(why)), 0);
}
END_TEST

static const char *cid(const char *path)
{
	static char id[80];

	return ap_label__container_id(path, id, sizeof(id)) ? id : "";
}

START_TEST(container_ids)
{
	ck_assert_str_eq(cid("/docker/" ID64), ID64);
	ck_assert_str_eq(cid("/system.slice/docker-" ID64 ".scope"), ID64);
	ck_assert_str_eq(cid("/kubepods/burstable/pod1234-5678/" ID64), ID64);
	ck_assert_str_eq(cid("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice/cri-containerd-" ID64 ".scope"), ID64);
	ck_assert_str_eq(cid("/kubepods.slice/kubepods-pod1.slice/crio-" ID64 ".scope"), ID64);
	ck_assert_str_eq(cid("/machine.slice/libpod-" ID64 ".scope/container"), ID64);
	ck_assert_str_eq(cid("/lxc.payload.web1/init.scope"), "web1");
	/* no container */
	ck_assert_str_eq(cid("/"), "");
	ck_assert_str_eq(cid("/user.slice/user-1000.slice/session-2.scope"), "");
	ck_assert_str_eq(cid("/docker/" ID64 "0"), "");	/* 65 digits */
	ck_assert_str_eq(cid("/docker/x" ID64), "");
	ck_assert_str_eq(cid("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"), "");
	ck_assert_str_eq(cid(""), "");
}
END_TEST

START_TEST(format_roundtrip)
{
	struct ap_proc_cgroup c = { .ts = 5, .pid = 42, .start_ticks = 77 }, d;
	struct ap_header h, h2;
	struct ap_buf b = { 0 };

	snprintf(c.path, sizeof(c.path), "/docker/%s", ID64);
	ap_proc_cgroup__encode(&c, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_int_eq(ap_proc_cgroup__decode(b.data + AP_FRAME_HDR_LEN,
						b.len - AP_FRAME_HDR_LEN, &d), 0);
	ck_assert_uint_eq(d.pid, 42);
	ck_assert_uint_eq(d.start_ticks, 77);
	ck_assert_str_eq(d.path, c.path);
	/* cut short: an error, not a read past the end */
	ck_assert_int_ne(ap_proc_cgroup__decode(b.data + AP_FRAME_HDR_LEN, 15,
						&d), 0);
	ap_buf__free(&b);
	ap_header__init(&h);
	snprintf(h.labels, sizeof(h.labels), "env=prod\n");
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(ap_header__encode(&h, &b), 0);
	ck_assert_int_eq(ap_header__decode(b.data, b.len, &h2), 0);
	ck_assert_str_eq(h2.labels, "env=prod\n");
	ap_buf__free(&b);
}
END_TEST

static Suite *labels_suite(void)
{
	Suite *s = suite_create("labels");
	TCase *tc = tcase_create("labels");

	tcase_add_test(tc, names_and_values);
	tcase_add_test(tc, record_lines);
	tcase_add_test(tc, container_ids);
	tcase_add_test(tc, format_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(labels_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
