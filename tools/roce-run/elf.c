/* SPDX-License-Identifier: MIT */
/*
 * DT_NEEDED of an ELF64 little-endian file (x86-64, aarch64): the section
 * headers give the SHT_DYNAMIC section and, through sh_link, its string
 * table; each DT_NEEDED entry is an offset in it (System V ABI, "Dynamic
 * Section"). Every offset and size is checked against the file before it
 * is used: the program is the user's, possibly anything.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roce-run/elf.h"

/* A program larger than this is not read (no ELF tool needs 1 GiB). */
#define ELF_MAX_SIZE (1ull << 30)

static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static enum elf_needed_result scan(const uint8_t *f, uint64_t size, const char *const *names)
{
	const Elf64_Ehdr *eh = (const void *)f;
	const Elf64_Shdr *sh;

	if (size < EI_NIDENT || memcmp(f, ELFMAG, SELFMAG))
		return ELF_NOT_ELF;
	if (f[EI_CLASS] != ELFCLASS64 || f[EI_DATA] != ELFDATA2LSB)
		return ELF_UNSUPPORTED;
	if (size < sizeof(*eh) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff % 8 ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size))
		return ELF_BAD;
	sh = (const void *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *ds = &sh[i], *ss;
		const Elf64_Dyn *d;
		uint64_t n, needed = 0;

		if (ds->sh_type != SHT_DYNAMIC)
			continue;
		if (ds->sh_link >= eh->e_shnum || ds->sh_offset % 8 ||
		    !in_file(ds->sh_offset, ds->sh_size, size))
			return ELF_BAD;
		ss = &sh[ds->sh_link];
		if (!in_file(ss->sh_offset, ss->sh_size, size))
			return ELF_BAD;
		d = (const void *)(f + ds->sh_offset);
		n = ds->sh_size / sizeof(*d);
		for (uint64_t k = 0; k < n && d[k].d_tag != DT_NULL; k++) {
			const char *s;

			if (d[k].d_tag != DT_NEEDED)
				continue;
			needed++;
			if (d[k].d_un.d_val >= ss->sh_size)
				return ELF_BAD;
			s = (const char *)f + ss->sh_offset + d[k].d_un.d_val;
			if (!memchr(s, 0, ss->sh_size - d[k].d_un.d_val))
				return ELF_BAD;
			for (const char *const *nm = names; *nm; nm++)
				if (!strcmp(s, *nm))
					return ELF_NEEDS;
		}
		/* a static-pie program has a dynamic section, for its own
		 * relocations, and needs no library */
		return needed ? ELF_NEEDS_NOT : ELF_STATIC;
	}
	return ELF_STATIC;
}

enum elf_needed_result elf_needs(const char *path, const char *const *names)
{
	enum elf_needed_result r;
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ELF_IO;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > ELF_MAX_SIZE) {
		close(fd);
		errno = EFBIG;
		return ELF_IO;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return ELF_IO;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	r = scan(buf, got, names);
	free(buf);
	return r;
}

bool elf_script_interp(const char *path, char *out, size_t len)
{
	char line[256];
	size_t n = 0, i = 2, j = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return false;
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	while (line[i] && line[i] != ' ' && line[i] != '\t' && line[i] != '\n' && j + 1 < len)
		out[j++] = line[i++];
	out[j] = 0;
	return j > 0 && j + 1 < len;
}
