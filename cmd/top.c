// SPDX-License-Identifier: GPL-2.0
/* aperture top: placeholder until the live view lands (issue 4). */
#include <stdio.h>

#include "cli.h"

int cmd_top(int argc, char **argv)
{
	fprintf(stderr, "aperture top: not built yet\n");
	return 1;
}
