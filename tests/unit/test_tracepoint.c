// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints: a tracefs format file parsed into fields, values read from
 * a raw record, --filter expressions, and the frames' round trip.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/buf.h"
#include "format/format.h"
#include "format/reader.h"
#include "tracepoint/codec.h"
#include "tracepoint/tpformat.h"

/* sched_process_exec's format, as Linux 6.x writes it */
static const char exec_format[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:const char * ptr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d\", __get_str(filename), REC->pid\n";

/* a record: filename "/bin/true" at 40, pid -3, comm "true" */
static size_t exec_record(uint8_t *p)
{
	uint32_t loc = 40 | (10u << 16);
	int32_t pid = -3;

	memset(p, 0xee, 64);
	memset(p, 0, 40);
	memcpy(p + 8, &loc, 4);
	memcpy(p + 12, &pid, 4);
	memcpy(p + 16, "true", 5);
	memcpy(p + 40, "/bin/true", 10);
	return 64;
}

START_TEST(test_parse_format)
{
	struct ap_tp_format f;

	ck_assert_int_eq(ap_tp_format__parse(exec_format, &f), 0);
	ck_assert_uint_eq(f.id, 365);
	/* the common_ fields are left out */
	ck_assert_uint_eq(f.nr_fields, 4);
	ck_assert_str_eq(f.fields[0].name, "filename");
	ck_assert(f.fields[0].flags & AP_TP_F_DYN);
	ck_assert(f.fields[0].flags & AP_TP_F_STR);
	ck_assert_str_eq(f.fields[1].name, "pid");
	ck_assert_str_eq(f.fields[1].type, "pid_t");
	ck_assert(f.fields[1].flags & AP_TP_F_SIGNED);
	ck_assert_str_eq(f.fields[2].name, "comm");
	ck_assert(f.fields[2].flags & AP_TP_F_STR);
	ck_assert_uint_eq(f.fields[2].size, 16);
	ck_assert_str_eq(f.fields[3].name, "ptr");
	ck_assert(f.fields[3].flags & AP_TP_F_PTR);
	ck_assert_int_eq(ap_tp_format__parse("no fields here\n", &f), -EINVAL);
}
END_TEST

START_TEST(test_values)
{
	struct ap_tp_format f;
	uint8_t rec[64];
	size_t len = exec_record(rec);
	char buf[96];

	ck_assert_int_eq(ap_tp_format__parse(exec_format, &f), 0);
	/* the filename's end: what lies after it is not the record's */
	ck_assert_uint_eq(ap_tp_format__extent(&f, rec, len), 50);
	ck_assert_int_eq(ap_tp_field__format(&f.fields[0], rec, len, buf,
					     sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/bin/true");
	ck_assert_int_eq(ap_tp_field__format(&f.fields[1], rec, len, buf,
					     sizeof(buf)), 1);
	ck_assert_str_eq(buf, "-3");
	ap_tp_field__format(&f.fields[2], rec, len, buf, sizeof(buf));
	ck_assert_str_eq(buf, "true");
	ap_tp_field__format(&f.fields[3], rec, len, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x0");
	/* a record cut before the field */
	ap_tp_field__format(&f.fields[3], rec, 20, buf, sizeof(buf));
	ck_assert_str_eq(buf, "?");
}
END_TEST

static const struct {
	const char *expr;
	int want;			/* 1 pass, 0 not, -1 does not compile */
} filters[] = {
	{ "pid == -3", 1 },
	{ "pid != -3", 0 },
	{ "pid < 0", 1 },
	{ "pid >= 0", 0 },
	{ "pid & 1", 1 },
	{ "comm == true", 1 },
	{ "comm == \"true\"", 1 },
	{ "comm != 'true'", 0 },
	{ "filename ~ \"/bin/*\"", 1 },
	{ "filename ~ \"*sh\"", 0 },
	{ "pid == 1 || comm == true", 1 },
	{ "pid == 1 && comm == true", 0 },
	{ "!(pid == 1) && (comm ~ t* || pid > 5)", 1 },
	{ "nosuch == 1", -1 },
	{ "comm > 1", -1 },
	{ "pid ~ 1", -1 },
	{ "pid == x", -1 },
	{ "pid ==", -1 },
	{ "(pid == 1", -1 },
	{ "pid == 1 pid", -1 },
};

START_TEST(test_filter)
{
	struct ap_tp_format f;
	struct ap_tp_filter *flt;
	uint8_t rec[64];
	size_t len = exec_record(rec);
	char err[256];
	int ret;

	ck_assert_int_eq(ap_tp_format__parse(exec_format, &f), 0);
	snprintf(f.name, sizeof(f.name), "sched:sched_process_exec");
	ret = ap_tp_filter__compile(filters[_i].expr, &f, &flt, err,
				    sizeof(err));
	if (filters[_i].want < 0) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert(err[0]);
		return;
	}
	ck_assert_msg(!ret, "%s: %s", filters[_i].expr, err);
	ck_assert_int_eq(ap_tp_filter__match(flt, &f, rec, len),
			 filters[_i].want);
	ap_tp_filter__free(flt);
}
END_TEST

START_TEST(test_frames)
{
	struct ap_tp_desc d, back;
	struct ap_tp_event e = { 0 }, eb;
	struct ap_tp_table t = { 0 };
	uint8_t rec[64];
	struct ap_buf b;

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(ap_tp_format__parse(exec_format, &d.fmt), 0);
	snprintf(d.fmt.name, sizeof(d.fmt.name), "sched:sched_process_exec");
	snprintf(d.filter, sizeof(d.filter), "pid > 1");
	d.idx = 3;
	ap_buf__init(&b);
	ap_tp_desc__encode(&d, &b);
	ck_assert_int_eq(ap_tp_frame__kind(b.data + AP_FRAME_HDR_LEN,
					   b.len - AP_FRAME_HDR_LEN),
			 AP_TP_FRAME_DESC);
	ck_assert_int_eq(ap_tp_desc__decode(b.data + AP_FRAME_HDR_LEN,
					    b.len - AP_FRAME_HDR_LEN, &back), 0);
	ck_assert_str_eq(back.fmt.name, d.fmt.name);
	ck_assert_str_eq(back.filter, "pid > 1");
	ck_assert_uint_eq(back.fmt.nr_fields, 4);
	ck_assert_str_eq(back.fmt.fields[2].name, "comm");
	ck_assert_uint_eq(back.fmt.fields[2].offset, 16);
	ck_assert_int_eq(ap_tp_table__add(&t, b.data + AP_FRAME_HDR_LEN,
					  b.len - AP_FRAME_HDR_LEN), 0);
	ck_assert_ptr_nonnull(ap_tp_table__get(&t, 3));
	ck_assert_ptr_null(ap_tp_table__get(&t, 2));
	ap_tp_table__free(&t);

	ap_buf__reset(&b);
	e.ts = 123;
	e.pid = 10;
	e.tid = 11;
	e.cpu = 1;
	e.idx = 3;
	e.stack_id = 7;
	e.len = (uint32_t)exec_record(rec);
	e.data = rec;
	ap_tp_event__encode(&e, &b);
	ck_assert_int_eq(ap_tp_event__decode(b.data + AP_FRAME_HDR_LEN,
					     b.len - AP_FRAME_HDR_LEN, &eb), 0);
	ck_assert_uint_eq(eb.ts, 123);
	ck_assert_uint_eq(eb.tid, 11);
	ck_assert_uint_eq(eb.stack_id, 7);
	ck_assert_uint_eq(eb.len, 64);
	ck_assert_mem_eq(eb.data, rec, 64);
	/* cut short: no event */
	ck_assert_int_eq(ap_tp_event__decode(b.data + AP_FRAME_HDR_LEN,
					     b.len - AP_FRAME_HDR_LEN - 1,
					     &eb), -EBADMSG);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_split)
{
	char c[16], n[16];

	ck_assert_int_eq(ap_tp__split("sched:sched_switch", c, sizeof(c), n,
				      sizeof(n)), 0);
	ck_assert_str_eq(c, "sched");
	ck_assert_str_eq(n, "sched_switch");
	ck_assert_int_eq(ap_tp__split("sched", c, sizeof(c), n, sizeof(n)),
			 -EINVAL);
	ck_assert_int_eq(ap_tp__split(":x", c, sizeof(c), n, sizeof(n)),
			 -EINVAL);
	ck_assert_int_eq(ap_tp__split("a:b:c", c, sizeof(c), n, sizeof(n)),
			 -EINVAL);
	ck_assert_int_eq(ap_tp__split("../x:y", c, sizeof(c), n, sizeof(n)),
			 -EINVAL);
}
END_TEST

static Suite *tracepoint_suite(void)
{
	Suite *s = suite_create("tracepoint");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_parse_format);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_split);
	tcase_add_loop_test(tc, test_filter, 0,
			    sizeof(filters) / sizeof(filters[0]));
	tcase_add_test(tc, test_frames);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tracepoint_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
