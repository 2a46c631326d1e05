// SPDX-License-Identifier: GPL-2.0
/*
 * aperture gpu-env: runs a CUDA program with libaperture-cupti.so in
 * CUDA_INJECTION64_PATH, so that a later `record -e gpu -p PID` gets its
 * kernels' device times; without a command, prints the assignment.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpu/libs.h"

static const struct argp_option options[] = {
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Run a CUDA program with aperture's CUPTI injection library "
	"(libaperture-cupti.so) in CUDA_INJECTION64_PATH, so that "
	"'aperture record -e gpu -p PID' records its kernels' execution on the "
	"device.  Without a command, print the CUDA_INJECTION64_PATH=PATH "
	"assignment for a shell."
"\v"
	"Examples:\n"
	"  aperture gpu-env -- ./train --epochs 3 &\n"
	"  aperture record -e gpu -p $! -d 10\n"
	"  export $(aperture gpu-env)\n";

/* state->input: the char ** the command after the options goes to */
static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key != ARGP_KEY_ARG)
		return ap_cli_key(key, arg, state);
	ap_cli_take_command(state, state->input);
	return 0;
}

static const struct argp argp = {
	options, parse_opt, "[-- CMD ARGS..]", doc,
};

int cmd_gpu_env(int argc, char **argv)
{
	char lib[PATH_MAX], exe[PATH_MAX], why[PATH_MAX + 600], **cmd = NULL;
	const char *cur;
	int e;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS | ARGP_IN_ORDER, NULL,
		   &cmd);
	e = ap_cupti_lib_self(lib, sizeof(lib), why, sizeof(why));
	if (e == -EPERM) {
		ap_err("%s", why);
		return 1;
	}
	if (e) {
		ap_err("%s not found (beside aperture or in %s): it is built where the CUDA toolkit's CUPTI is installed",
		       AP_CUPTI_LIB, APERTURE_LIBDIR);
		return 1;
	}
	/* the CUDA driver is what loads the library: without it, or
	 * without a device, no kernel reaches it */
	if (cmd && ap_gpu_which(cmd[0], getenv("PATH"), exe, sizeof(exe)))
		exe[0] = '\0';
	if (ap_gpu_driver_status(cmd && exe[0] ? exe : NULL,
				 getenv("LD_LIBRARY_PATH"), why, sizeof(why)))
		ap_warn("this machine has %s: CUDA calls fail, no device times",
			why);
	if (!cmd) {
		printf("CUDA_INJECTION64_PATH=%s\n", lib);
		return 0;
	}
	cur = getenv("CUDA_INJECTION64_PATH");
	if (cur && *cur && strcmp(cur, lib))
		ap_warn("replacing CUDA_INJECTION64_PATH=%s", cur);
	if (setenv("CUDA_INJECTION64_PATH", lib, 1)) {
		ap_err("setting CUDA_INJECTION64_PATH: %s", strerror(errno));
		return 1;
	}
	fflush(stdout);
	execvp(cmd[0], cmd);
	ap_err("cannot run '%s': %s", cmd[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
