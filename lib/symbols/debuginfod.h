/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The last place report looks for a file: the debuginfod servers named by
 * DEBUGINFOD_URLS, through libdebuginfod (loaded on first use, as libdw
 * loads it for separate debug info).  Unset or empty: nothing is loaded
 * and nothing leaves the machine.
 */
#ifndef APERTURE_DEBUGINFOD_H
#define APERTURE_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>

/* 1 when DEBUGINFOD_URLS names a server */
int ap_debuginfod__enabled(void);

/* The executable or library of build-id id, downloaded into (or found in)
 * libdebuginfod's cache: 0 with its path in buf, -ENOENT when no server has
 * it, -ENOSYS when lookups are off or libdebuginfod is missing, or -errno.
 * The caller checks the file's build-id. */
int ap_debuginfod__find_executable(const uint8_t *id, size_t len, char *buf,
				   size_t buflen);

/* The same for the separate debug file of build-id id. */
int ap_debuginfod__find_debuginfo(const uint8_t *id, size_t len, char *buf,
				  size_t buflen);

#endif /* APERTURE_DEBUGINFOD_H */
