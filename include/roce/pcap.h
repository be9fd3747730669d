/* SPDX-License-Identifier: MIT */
/*
 * Packet captures through libpcap: read any capture libpcap reads, write
 * Ethernet captures Wireshark opens. The writer is safe to share between
 * threads (a link captures what every engine sends).
 */
#ifndef ROCE_PCAP_H
#define ROCE_PCAP_H

#include <stddef.h>
#include <stdint.h>

struct roce_pcap_reader;
struct roce_pcap_writer;

struct roce_pcap_rec {
	const uint8_t *data;
	uint32_t caplen;        /* bytes in data */
	uint32_t wirelen;       /* bytes on the wire */
	uint64_t ts_ns;         /* timestamp, ns since the epoch */
	uint64_t index;         /* 1-based frame number, as Wireshark counts */
};

/* err (may be NULL) receives libpcap's message on failure. */
int roce_pcap_open_read(const char *path, struct roce_pcap_reader **out,
			char *err, size_t errlen);
/* Link-layer type (DLT_*) of the capture. */
int roce_pcap_linktype(const struct roce_pcap_reader *r);
/* ROCE_OK with *rec filled (valid until the next call), ROCE_E_EMPTY at the
 * end, ROCE_E_FORMAT when the file is damaged. */
int roce_pcap_next(struct roce_pcap_reader *r, struct roce_pcap_rec *rec);
void roce_pcap_close_read(struct roce_pcap_reader *r);

int roce_pcap_open_write(const char *path, struct roce_pcap_writer **out,
			 char *err, size_t errlen);
/* ts_ns 0 = now. */
int roce_pcap_write(struct roce_pcap_writer *w, const void *frame, size_t len,
		    uint64_t ts_ns);
int roce_pcap_flush(struct roce_pcap_writer *w);
void roce_pcap_close_write(struct roce_pcap_writer *w);

#endif
