// SPDX-License-Identifier: GPL-2.0
/* Label names and values both servers take; a cgroup's container id. */
#include "util/labels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/utf8.h"

/* labels each sample carries: a series label of the same name would
 * shadow them (Parca renames the sample's exported_NAME) */
static const char *const sample_labels[] = {
	"pid", "tid", "comm", "container_id", "cgroup", NULL,
};

static int name_ok(const char *s)
{
	size_t i;

	if (!*s || !strncmp(s, "__", 2))
		return 0;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '_' || (i && c >= '0' && c <= '9')))
			return 0;
	}
	return i <= 128;
}

int ap_label__check(const char *name, const char *value, char *why,
		    size_t len)
{
	size_t i, n = strlen(value);

	if (!name_ok(name)) {
		snprintf(why, len, "label name '%.64s': letters, digits and '_', not first a digit nor \"__\"",
			 name);
		return -EINVAL;
	}
	for (i = 0; sample_labels[i]; i++) {
		if (!strcmp(name, sample_labels[i])) {
			snprintf(why, len, "'%s' is a label of every sample",
				 name);
			return -EINVAL;
		}
	}
	if (!n || n > AP_LABEL_VALUE_MAX || !ap_utf8_valid(value) ||
	    strpbrk(value, "{},=") || value[0] == ' ' || value[n - 1] == ' ') {
		snprintf(why, len, "label %s: a value of 1 to %d bytes of UTF-8, without '{', '}', ',', '=' or spaces around it",
			 name, AP_LABEL_VALUE_MAX);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) {
			snprintf(why, len, "label %s: a control character in its value",
				 name);
			return -EINVAL;
		}
	}
	return 0;
}

int ap_label__next(const char *lines, size_t *pos, char *name, size_t nlen,
		   char *value, size_t vlen)
{
	const char *s = lines + *pos, *nl, *eq;
	char why[256];
	size_t n;

	if (!*s)
		return -1;
	nl = strchr(s, '\n');
	n = nl ? (size_t)(nl - s) : strlen(s);
	*pos += n + (nl ? 1 : 0);
	eq = memchr(s, '=', n);
	if (!eq || (size_t)(eq - s) >= nlen || n - (eq - s) > vlen)
		return 0;
	snprintf(name, nlen, "%.*s", (int)(eq - s), s);
	snprintf(value, vlen, "%.*s", (int)(n - (eq - s) - 1), eq + 1);
	return ap_label__check(name, value, why, sizeof(why)) ? 0 : 1;
}

int ap_label__append(char *lines, size_t len, const char *arg, char *why,
		     size_t wlen)
{
	char name[160], value[AP_LABEL_VALUE_MAX + 1], n2[160];
	char v2[AP_LABEL_VALUE_MAX + 1];
	const char *eq = strchr(arg, '=');
	size_t pos = 0, used = strlen(lines);
	int nr = 0;

	if (!eq || (size_t)(eq - arg) >= sizeof(name) ||
	    strlen(eq + 1) >= sizeof(value)) {
		snprintf(why, wlen, "give NAME=VALUE");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	snprintf(value, sizeof(value), "%s", eq + 1);
	if (ap_label__check(name, value, why, wlen))
		return -EINVAL;
	while (ap_label__next(lines, &pos, n2, sizeof(n2), v2,
			      sizeof(v2)) >= 0) {
		nr++;
		if (!strcmp(n2, name)) {
			snprintf(why, wlen, "label %s given twice", name);
			return -EINVAL;
		}
	}
	if (nr == AP_LABEL_MAX_RECORD ||
	    used + strlen(arg) + 2 > len) {
		snprintf(why, wlen, "more than %d labels, or %zu bytes of them",
			 AP_LABEL_MAX_RECORD, len - 1);
		return -EINVAL;
	}
	snprintf(lines + used, len - used, "%s\n", arg);
	return 0;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* a 64-hex-digit run at s, standing alone in its component: preceded by
 * the component's start or '-', followed by its end or ".scope" */
static int id_at(const char *comp, const char *s, const char *end)
{
	int i;

	if (end - s < 64 || (s > comp && s[-1] != '-'))
		return 0;
	for (i = 0; i < 64; i++)
		if (!is_hex(s[i]))
			return 0;
	s += 64;
	return s == end || (end - s == 6 && !strncmp(s, ".scope", 6));
}

int ap_label__container_id(const char *path, char *id, size_t len)
{
	const char *comp = path, *end, *s, *found = NULL;

	for (; *comp; comp = *end ? end + 1 : end) {
		end = strchr(comp, '/');
		if (!end)
			end = comp + strlen(comp);
		for (s = comp; s + 64 <= end; s++) {
			if (id_at(comp, s, end)) {
				found = s;
				break;
			}
		}
		/* LXC: lxc.payload.NAME (lxc.monitor.NAME is its monitor) */
		if (!strncmp(comp, "lxc.payload.", 12) && end > comp + 12 &&
		    (size_t)(end - comp - 12) < len) {
			snprintf(id, len, "%.*s", (int)(end - comp - 12),
				 comp + 12);
			return 1;
		}
	}
	if (!found || len < 65)
		return 0;
	snprintf(id, len, "%.64s", found);
	return 1;
}
