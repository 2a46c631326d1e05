// SPDX-License-Identifier: GPL-2.0
/*
 * The GNU build-id note of an ELF file, read with libelf: section headers
 * first (SHT_NOTE), program headers (PT_NOTE) for files without them.
 */
#include "symbols/buildid.h"
#include "util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* Looks for NT_GNU_BUILD_ID owned by "GNU" in one block of notes; returns
 * the id's length, 0 when absent, -ENOBUFS when buf is too short. */
static int notes__build_id(Elf_Data *data, uint8_t *buf, size_t len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nhdr;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nhdr, &name_off,
				    &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && nhdr.n_descsz > 0) {
			if (nhdr.n_descsz > len)
				return -ENOBUFS;
			memcpy(buf, (const char *)data->d_buf + desc_off,
			       nhdr.n_descsz);
			return nhdr.n_descsz;
		}
		off = next;
	}
	return 0;
}

int ap_elf__build_id(Elf *elf, uint8_t *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t i, phnum;
	int ret;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		ret = notes__build_id(data, buf, len);
		if (ret != 0)
			return ret;
	}

	if (elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;
		Elf_Data *data;

		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, phdr.p_offset, phdr.p_filesz,
					    phdr.p_align == 8 ? ELF_T_NHDR8 :
								ELF_T_NHDR);
		if (!data)
			continue;
		ret = notes__build_id(data, buf, len);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int ap_kernel__build_id(const char *notes, uint8_t *buf, size_t len)
{
	/* the kernel's notes as its vmlinux holds them: 4-byte aligned */
	uint8_t raw[4096];
	Elf_Data data = {
		.d_buf = raw,
		.d_type = ELF_T_NHDR,
		.d_version = EV_CURRENT,
	};
	ssize_t n;
	int fd;

	fd = open(notes ? notes : "/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, raw, sizeof(raw));
	close(fd);
	if (n < 0)
		return -errno;
	data.d_size = (size_t)n;
	return notes__build_id(&data, buf, len);
}

int ap_elf__open(const char *path, int *fd, Elf **elf)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	*fd = ap_open_regular(path, 0);
	if (*fd < 0)
		return *fd;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		close(*fd);
		return -ENOEXEC;
	}
	return 0;
}

int ap_read_build_id(const char *path, uint8_t *buf, size_t len)
{
	Elf *elf;
	int fd, err;

	if (!path || !buf)
		return -EINVAL;
	err = ap_elf__open(path, &fd, &elf);
	if (err)
		return err;
	err = ap_elf__build_id(elf, buf, len);
	elf_end(elf);
	close(fd);
	return err;
}
