/* SPDX-License-Identifier: MIT */
/*
 * rocectl ddr: the device's DDR through the bus's debug port (roce/bus.h,
 * roce_bus_mem_read/write), as an FPGA's JTAG-to-AXI bridge reaches it.
 *   ddr read ADDR LEN [-o FILE]        a hex dump (xxd's layout), or the raw
 *                                      bytes into FILE
 *   ddr write ADDR (-i FILE | HEX...)  the bytes of FILE, or hex digits
 * Work goes in pieces of DDR_CHUNK bytes, so a large range neither holds
 * its whole length in memory nor waits long for its first output.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocectl/ctl.h"

#define DDR_CHUNK 4096u

const char ctl_ddr_help[] =
	"usage: rocectl ddr read ADDR LEN [-o FILE]\n"
	"       rocectl ddr write ADDR (-i FILE | HEX...)\n"
	"The device's DDR through the bus's debug port (a JTAG-to-AXI bridge on\n"
	"an FPGA; roced's socket serves one, a raw --mmap window does not).\n"
	"\n"
	"  ddr read ADDR LEN     LEN bytes at byte address ADDR as a hex dump\n"
	"                        (xxd's layout, addresses from ADDR); -o FILE\n"
	"                        writes the raw bytes to FILE instead\n"
	"  ddr write ADDR -i FILE\n"
	"                        the bytes of FILE at ADDR\n"
	"  ddr write ADDR HEX... the bytes the hex digits spell (\"deadbeef\" or\n"
	"                        \"de ad be ef\"), at ADDR\n"
	"ADDR and LEN: decimal or 0x hex. A range past the end of the DDR is\n"
	"refused before any access.\n";

/* The DDR's size, and whether the bus reaches it: 0 or the exit status. */
static int ddr_span(struct ctl *c, const char *what, uint64_t addr, uint64_t len)
{
	struct roce_dev_info in;
	uint64_t size;
	int st = roce_bus_mem_read(&c->bus, 0, NULL, 0);

	if (st == ROCE_E_UNSUPPORTED)
		return ctl_fail(c, EXIT_DEVICE, "ddr %s: not supported on this bus (%s): "
				"it has no DDR port", what, roce_bus_name(&c->bus));
	if (roce_drv_probe(&c->drv, &in) != ROCE_OK)
		return ctl_drv_fail(c);
	size = (uint64_t)in.mem_size_kb * 1024;
	if (addr > size || len > size - addr)
		return ctl_fail(c, EXIT_DEVICE, "ddr %s: 0x%" PRIx64 "+%" PRIu64 " is past "
				"the end of the DDR (%" PRIu64 " bytes)", what, addr, len,
				size);
	return 0;
}

static int ddr_error(struct ctl *c, const char *what, uint64_t addr, int st)
{
	if (st == ROCE_E_UNSUPPORTED)
		return ctl_fail(c, EXIT_DEVICE, "ddr %s: not supported by this device's "
				"server (%s)", what, roce_bus_name(&c->bus));
	return ctl_fail(c, EXIT_DEVICE, "ddr %s at 0x%" PRIx64 ": %s", what, addr,
			roce_status_str(st));
}

/* One line of xxd: address, 8 groups of 2 bytes, the printable bytes. */
static void hex_line(uint64_t addr, const uint8_t *b, size_t n)
{
	printf("%08" PRIx64 ": ", addr);
	for (size_t i = 0; i < 16; i++) {
		if (i < n)
			printf("%02x", b[i]);
		else
			fputs("  ", stdout);
		if (i & 1)
			putchar(' ');
	}
	putchar(' ');
	for (size_t i = 0; i < n; i++)
		putchar(isprint(b[i]) ? b[i] : '.');
	putchar('\n');
}

static int ddr_read(struct ctl *c, int argc, char **argv)
{
	uint8_t buf[DDR_CHUNK];
	uint64_t addr, len;
	const char *path = NULL;
	FILE *out = NULL;
	int st;

	if (argc == 4 && !strcmp(argv[2], "-o"))
		path = argv[3];
	else if (argc != 2)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl ddr read ADDR LEN [-o FILE]");
	if (roce_parse_u64(argv[0], false, &addr) != ROCE_OK ||
	    roce_parse_u64(argv[1], false, &len) != ROCE_OK)
		return ctl_fail(c, EXIT_USAGE, "ddr read: bad ADDR or LEN ('%s' '%s')",
				argv[0], argv[1]);
	if ((st = ddr_span(c, "read", addr, len)))
		return st;
	if (path && !(out = fopen(path, "wb")))
		return ctl_fail(c, EXIT_USAGE, "ddr read: %s: %s", path, strerror(errno));
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < DDR_CHUNK ? (size_t)(len - done) : DDR_CHUNK;

		if ((st = roce_bus_mem_read(&c->bus, addr + done, buf, n)) != ROCE_OK) {
			if (out)
				fclose(out);
			return ddr_error(c, "read", addr + done, st);
		}
		if (out && fwrite(buf, 1, n, out) != n)
			break;
		for (size_t i = 0; !out && i < n; i += 16)
			hex_line(addr + done + i, buf + i, n - i < 16 ? n - i : 16);
		done += n;
	}
	if (out && (ferror(out) | fclose(out)))
		return ctl_fail(c, EXIT_USAGE, "ddr read: %s: %s", path, strerror(errno));
	return 0;
}

/* The bytes of HEX... (whitespace between digit pairs allowed) into buf;
   the count, or -1 when not an even run of hex digits. */
static long parse_hex(int argc, char **argv, uint8_t *buf, size_t max)
{
	size_t n = 0;
	int half = -1;

	for (int a = 0; a < argc; a++)
		for (const char *p = argv[a]; *p; p++) {
			int d = isdigit((unsigned char)*p) ? *p - '0' :
				isxdigit((unsigned char)*p) ? tolower((unsigned char)*p) - 'a' + 10 : -1;

			if (isspace((unsigned char)*p) && half < 0)
				continue;
			if (d < 0 || (half < 0 && n == max))
				return -1;
			if (half < 0) {
				half = d;
			} else {
				buf[n++] = (uint8_t)(half << 4 | d);
				half = -1;
			}
		}
	return half < 0 && n ? (long)n : -1;
}

static int ddr_write(struct ctl *c, int argc, char **argv)
{
	uint8_t buf[DDR_CHUNK];
	uint64_t addr, len;
	FILE *in = NULL;
	long n = 0;
	int st, bs;

	if (argc < 2 || roce_parse_u64(argv[0], false, &addr) != ROCE_OK)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl ddr write ADDR (-i FILE | HEX...)");
	if (!strcmp(argv[1], "-i")) {
		if (argc != 3)
			return ctl_fail(c, EXIT_USAGE, "usage: rocectl ddr write ADDR -i FILE");
		if (!(in = fopen(argv[2], "rb")) || fseek(in, 0, SEEK_END) ||
		    (n = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
			st = ctl_fail(c, EXIT_USAGE, "ddr write: %s: %s", argv[2], strerror(errno));
			if (in)
				fclose(in);
			return st;
		}
	} else if ((n = parse_hex(argc - 1, argv + 1, buf, sizeof(buf))) < 0) {
		return ctl_fail(c, EXIT_USAGE, "ddr write: want pairs of hex digits (at "
				"most %u bytes; -i FILE for more)", DDR_CHUNK);
	}
	len = (uint64_t)n;
	if ((st = ddr_span(c, "write", addr, len)) == 0 && !in &&
	    (bs = roce_bus_mem_write(&c->bus, addr, buf, len)) != ROCE_OK)
		st = ddr_error(c, "write", addr, bs);
	for (uint64_t done = 0; in && !st && done < len;) {
		size_t k = len - done < DDR_CHUNK ? (size_t)(len - done) : DDR_CHUNK;

		if (fread(buf, 1, k, in) != k)
			st = ctl_fail(c, EXIT_USAGE, "ddr write: %s: short read", argv[2]);
		else if ((bs = roce_bus_mem_write(&c->bus, addr + done, buf, k)) != ROCE_OK)
			st = ddr_error(c, "write", addr + done, bs);
		done += k;
	}
	if (in)
		fclose(in);
	return st;
}

int cmd_ddr(struct ctl *c, int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "read"))
		return ddr_read(c, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "write"))
		return ddr_write(c, argc - 1, argv + 1);
	return ctl_fail(c, EXIT_USAGE, "usage: rocectl ddr read ADDR LEN [-o FILE] | "
			"ddr write ADDR (-i FILE | HEX...)");
}
