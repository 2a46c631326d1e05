// SPDX-License-Identifier: GPL-2.0
#include "util/num.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ap_parse_u64(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int ap_parse_pow2_size(const char *s, unsigned long long page,
		       unsigned long long min, unsigned long long max,
		       uint64_t *bytes)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case '\0':
		if (n > max / page)
			return -EINVAL;
		n *= page;
		break;
	case 'G': case 'g': n <<= 10;	/* fall through */
	case 'M': case 'm': n <<= 10;	/* fall through */
	case 'K': case 'k': n <<= 10;	/* fall through */
	case 'B': case 'b':
		if (end[1] || n > max)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (n < min || n > max || (n & (n - 1)) || n % page)
		return -EINVAL;
	*bytes = n;
	return 0;
}

int ap_parse_secs_ns(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	size_t i = 0;

	if (!len)
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10000000000ull)
			return -ERANGE;
		sec = sec * 10 + (s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (s[i] - '0') * scale;
			}
		}
	}
	if (i != len || (len == 1 && s[0] == '.'))
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int64_t ap_weight(double w)
{
	if (!(w > 0))
		return 0;
	if (w >= AP_WEIGHT_MAX)
		return (int64_t)AP_WEIGHT_MAX;
	return (int64_t)(w + 0.5);
}

uint64_t ap_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int ap_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *bytes)
{
	static const char units[] = "BKMGT";
	unsigned long long n;
	const char *u;
	char *end;
	int shift;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	shift = 0;
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return -EINVAL;
		shift = 10 * (int)(u - units);
	}
	if (n > (max >> shift) || ((uint64_t)n << shift) < min)
		return -EINVAL;
	*bytes = (uint64_t)n << shift;
	return 0;
}
