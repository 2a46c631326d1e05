/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Labels a profiling server files series by (Pyroscope, Parca: README,
 * "push"): the names and values both take, and the container a process
 * runs in, from its cgroup.
 */
#ifndef APERTURE_LABELS_H
#define APERTURE_LABELS_H

#include <stddef.h>

/* Pyroscope's label value length limit */
#define AP_LABEL_VALUE_MAX	2048

/*
 * NAME and VALUE as a label both servers take: NAME Prometheus' legacy
 * [a-zA-Z_][a-zA-Z0-9_]* (Pyroscope allows '.' and makes it '_'; Parca
 * takes any UTF-8), at most 128 bytes, not starting "__" (the servers'
 * own) nor one of the samples' labels (pid, tid, comm, container_id,
 * cgroup); VALUE 1 to AP_LABEL_VALUE_MAX bytes of UTF-8 with no control
 * character, none of '{', '}', ',', '=' (Pyroscope's name=APP{k=v,..}
 * has no quoting) and no space at either end (it trims them).  0, or
 * -EINVAL with why[len] said.
 */
int ap_label__check(const char *name, const char *value, char *why,
		    size_t len);

/*
 * "NAME=VALUE\n" lines (the header's record --label) one at a time:
 * *pos the offset of the next line (start at 0); the label into
 * name[nlen] and value[vlen].  1 for a label that ap_label__check takes,
 * 0 for a line it does not (skipped), -1 at the end.
 */
int ap_label__next(const char *lines, size_t *pos, char *name, size_t nlen,
		   char *value, size_t vlen);

/* record --label NAME=VALUE appended to lines[len] (ap_label__next's
 * form), refused after 16, for a name given before, or one
 * ap_label__check refuses: 0, or -EINVAL with why[wlen] */
#define AP_LABEL_MAX_RECORD	16
int ap_label__append(char *lines, size_t len, const char *arg, char *why,
		     size_t wlen);

/*
 * The container id in a cgroup path (/proc/PID/cgroup's third field), as
 * parca-agent finds one (reporter/metadata/containermetadata.go): the
 * last component holding a 64-hex-digit id, alone (docker's
 * /docker/ID, kubepods' .../pod.../ID) or after a runtime's prefix and
 * before ".scope" (systemd's docker-ID.scope, crio-ID.scope,
 * cri-containerd-ID.scope, podman's libpod-ID.scope); LXC's
 * lxc.payload.NAME gives NAME.  1 with it in id[len], 0 when none.
 */
int ap_label__container_id(const char *path, char *id, size_t len);

#endif /* APERTURE_LABELS_H */
