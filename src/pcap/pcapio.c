/* SPDX-License-Identifier: MIT */
/* pcap read/write through libpcap; no pcap file format code of our own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include "roce/params.h"
#include "roce/pcap.h"
#include "roce/status.h"

struct roce_pcap_reader {
	pcap_t *p;
	uint64_t index;
	int nsec;               /* timestamps in nanoseconds */
};

struct roce_pcap_writer {
	pcap_t *p;
	pcap_dumper_t *d;
	pthread_mutex_t lock;
};

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

int roce_pcap_open_read(const char *path, struct roce_pcap_reader **out,
			char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct roce_pcap_reader *r;
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		set_err(err, errlen, ebuf);
		return ROCE_E_IO;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		pcap_close(p);
		set_err(err, errlen, "out of memory");
		return ROCE_E_NOMEM;
	}
	r->p = p;
	r->nsec = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	*out = r;
	return ROCE_OK;
}

int roce_pcap_linktype(const struct roce_pcap_reader *r)
{
	return pcap_datalink(r->p);
}

int roce_pcap_next(struct roce_pcap_reader *r, struct roce_pcap_rec *rec)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(r->p, &h, &data);

	if (rc == PCAP_ERROR_BREAK)
		return ROCE_E_EMPTY;
	if (rc != 1)
		return ROCE_E_FORMAT;
	rec->data = data;
	rec->caplen = h->caplen;
	rec->wirelen = h->len;
	rec->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u +
		     (uint64_t)h->ts.tv_usec * (r->nsec ? 1u : 1000u);
	rec->index = ++r->index;
	return ROCE_OK;
}

void roce_pcap_close_read(struct roce_pcap_reader *r)
{
	if (!r)
		return;
	pcap_close(r->p);
	free(r);
}

int roce_pcap_open_write(const char *path, struct roce_pcap_writer **out,
			 char *err, size_t errlen)
{
	struct roce_pcap_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		set_err(err, errlen, "out of memory");
		return ROCE_E_NOMEM;
	}
	w->p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						    PCAP_TSTAMP_PRECISION_NANO);
	if (!w->p) {
		free(w);
		set_err(err, errlen, "pcap_open_dead failed");
		return ROCE_E_NOMEM;
	}
	w->d = pcap_dump_open(w->p, path);
	if (!w->d) {
		set_err(err, errlen, pcap_geterr(w->p));
		pcap_close(w->p);
		free(w);
		return ROCE_E_IO;
	}
	pthread_mutex_init(&w->lock, NULL);
	*out = w;
	return ROCE_OK;
}

int roce_pcap_write(struct roce_pcap_writer *w, const void *frame, size_t len,
		    uint64_t ts_ns)
{
	struct pcap_pkthdr h;

	if (len > 65535)
		return ROCE_E_RANGE;
	if (!ts_ns) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	/* with nanosecond precision libpcap stores tv_usec as nanoseconds */
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000u);
	h.caplen = h.len = (bpf_u_int32)len;
	pthread_mutex_lock(&w->lock);
	pcap_dump((u_char *)w->d, &h, frame);
	pthread_mutex_unlock(&w->lock);
	return ROCE_OK;
}

int roce_pcap_flush(struct roce_pcap_writer *w)
{
	int rc;

	pthread_mutex_lock(&w->lock);
	rc = pcap_dump_flush(w->d);
	pthread_mutex_unlock(&w->lock);
	return rc ? ROCE_E_IO : ROCE_OK;
}

void roce_pcap_close_write(struct roce_pcap_writer *w)
{
	if (!w)
		return;
	pcap_dump_close(w->d);
	pcap_close(w->p);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
