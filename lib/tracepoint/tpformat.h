/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints as tracefs describes them: where tracefs is, which
 * tracepoints it has (aperture list, -e CAT:NAME with a glob), the fields
 * of a tracepoint's record (its format file), their values in a raw
 * record, and perf's --filter expressions evaluated on those values.
 */
#ifndef APERTURE_TPFORMAT_H
#define APERTURE_TPFORMAT_H

#include <stddef.h>
#include <stdint.h>

struct ap_collect_opts;

#define AP_TP_NAME_MAX		128	/* "sched:sched_switch" */
#define AP_TP_FIELDS_MAX	32	/* fields beyond are left out */

/* ap_tp_field.flags */
#define AP_TP_F_SIGNED		(1u << 0)
/* __data_loc: a u32 of offset | len << 16 */
#define AP_TP_F_DYN		(1u << 1)
#define AP_TP_F_STR		(1u << 2)	/* char[N], __data_loc char[] */
#define AP_TP_F_ARRAY		(1u << 3)	/* another array: bytes */
#define AP_TP_F_PTR		(1u << 4)	/* a pointer: shown in hex */

struct ap_tp_field {
	char name[64];
	char type[64];			/* "pid_t", "char [16]" */
	uint32_t offset;
	uint32_t size;
	uint32_t flags;			/* AP_TP_F_* */
};

/* a tracepoint's fields, the common_* ones left out (the record's pid,
 * tid and CPU say the same) */
struct ap_tp_format {
	char name[AP_TP_NAME_MAX];	/* "cat:name" */
	uint32_t id;			/* tracefs's ID */
	uint32_t nr_fields;
	struct ap_tp_field fields[AP_TP_FIELDS_MAX];
};

/* the tracefs mount with an events/ directory: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; NULL when neither */
const char *ap_tracefs(void);

/* "cat:name" into its parts (cat, name of catlen, namelen bytes); 0 or
 * -EINVAL when it is not CAT:NAME with neither part empty nor a '/' */
int ap_tp__split(const char *spec, char *cat, size_t catlen, char *name,
		 size_t namelen);

/* the tracepoints whose "cat:name" matches glob (fnmatch), sorted; fn
 * returns non-zero to stop, which is returned.  -ENODEV: no tracefs */
int ap_tp__each(const char *glob,
		int (*fn)(void *ctx, const char *cat, const char *name),
		void *ctx);

/* the format of tracepoint "cat:name": 0, -ENODEV (no tracefs), -ENOENT
 * (no such tracepoint), -EINVAL (spec is no CAT:NAME) or -errno */
int ap_tp_format__read(const char *spec, struct ap_tp_format *f);
/* a format file's text; 0 or -EINVAL (no field, no ID) */
int ap_tp_format__parse(const char *text, struct ap_tp_format *f);
/* the field called name, or NULL */
const struct ap_tp_field *ap_tp_format__field(const struct ap_tp_format *f,
					      const char *name);
/* the bytes of a record's fixed fields, the common ones included */
size_t ap_tp_format__fixed_size(const struct ap_tp_format *f);
/* the bytes of data (len of them) that the record holds: its fixed fields
 * and its dynamic ones, at most len */
size_t ap_tp_format__extent(const struct ap_tp_format *f, const uint8_t *data,
			    size_t len);

/* a field's value in a record of len bytes */
struct ap_tp_value {
	int is_str;
	int missing;			/* past the bytes recorded */
	uint64_t u;			/* an integer (sign-extended) */
	char s[256];			/* a string; bytes as hex */
};
void ap_tp_field__value(const struct ap_tp_field *fl, const uint8_t *data,
			size_t len, struct ap_tp_value *v);
/* the value as script prints it: decimal, pointers and unsigned numbers
 * of 8 bytes in hex, strings as they are; is it a JSON number? */
int ap_tp_field__format(const struct ap_tp_field *fl, const uint8_t *data,
			size_t len, char *buf, size_t buflen);

/*
 * perf's --filter: predicates FIELD OP VALUE (==, !=, <, <=, >, >=, &
 * for numbers; ==, != and ~ (a glob) for strings), combined with &&, ||,
 * ! and parentheses, on the fields of one tracepoint's format.
 */
struct ap_tp_filter;
/* 0, or -EINVAL with one line of why in err */
int ap_tp_filter__compile(const char *expr, const struct ap_tp_format *f,
			  struct ap_tp_filter **out, char *err, size_t errlen);
/* does the record pass?  NULL passes everything */
int ap_tp_filter__match(const struct ap_tp_filter *flt,
			const struct ap_tp_format *f, const uint8_t *data,
			size_t len);
void ap_tp_filter__free(struct ap_tp_filter *flt);
/* expr compiled against the format of each of the n tracepoints tps
 * (record --filter, checked when it is given): 0, or -errno with one
 * line of why in err */
int ap_tp_filter__check(const char *expr, const char *const *tps, int n,
			char *err, size_t errlen);

/*
 * -e CAT:NAME (a glob: every tracepoint it matches) into o's tracepoints:
 * 0; 1 when tok is no tracepoint spelling (no ':'); -ENOENT (none such),
 * -ENODEV (no tracefs), -E2BIG (more than AP_TP_MAX) or -ENOMEM.
 */
int ap_tp__parse_event(const char *tok, struct ap_collect_opts *o);

#endif /* APERTURE_TPFORMAT_H */
