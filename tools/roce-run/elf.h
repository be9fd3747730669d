/* SPDX-License-Identifier: MIT */
/* roce-run: which shared libraries a program names (its DT_NEEDED). */
#ifndef ROCE_RUN_ELF_H
#define ROCE_RUN_ELF_H

#include <stdbool.h>
#include <stddef.h>

enum elf_needed_result {
	ELF_NEEDS = 0,          /* it names the library */
	ELF_NEEDS_NOT,          /* dynamically linked, without it */
	ELF_STATIC,             /* no dynamic section: statically linked */
	ELF_NOT_ELF,            /* not an ELF file (a script, data) */
	ELF_UNSUPPORTED,        /* ELF, but not 64-bit little-endian */
	ELF_BAD,                /* truncated or inconsistent */
	ELF_IO,                 /* cannot be read (errno) */
};

/* Whether the ELF file at path names any of the libraries in names (a
 * NULL-terminated list of sonames) in its DT_NEEDED entries. */
enum elf_needed_result elf_needs(const char *path, const char *const *names);

/* A script's interpreter: the path after "#!" on its first line, into
 * out; false when path is no script (or the line is too long). */
bool elf_script_interp(const char *path, char *out, size_t len);

#endif
