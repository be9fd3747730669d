/* SPDX-License-Identifier: MIT */
/*
 * A pingpong tool's process: the command line, one side's run or, with
 * --memlink-selftest, a server and a client inside this process over the
 * in-memory link and a loopback TCP exchange; the error line and the
 * exit status (0 success, 1 failure, 2 bad command line).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pingpong/pingpong.h"
#include "roce/status.h"

static int finish(struct pp *p, int st)
{
	perf_ep_close(&p->ep);
	fflush(p->out);
	if (st)
		fprintf(stderr, "%s (%s): %s: %s\n", p->o.kind->prog,
			p->o.server ? "client" : "server", roce_status_name(st), p->msg);
	return st ? 1 : 0;
}

static void *server_thread(void *arg)
{
	void **a = arg;
	struct pp *p = a[0];

	*(int *)a[2] = finish(p, pp_run(p, a[1]));
	return NULL;
}

static int selftest(const struct pp_opts *o)
{
	struct roce_memlink_config lc = { .seed = 1, .ring_frames = 8192, .lossless = true };
	struct roce_memlink *ml;
	struct pp *s = calloc(1, sizeof(*s)), *c = calloc(1, sizeof(*c));
	char *text = NULL;
	size_t len = 0;
	int rs = 1, rc = 1;
	pthread_t t;
	void *args[3] = { s, NULL, &rs };

	if (!s || !c || roce_memlink_create(&lc, &ml) != ROCE_OK) {
		fprintf(stderr, "%s: self-test setup failed\n", o->kind->prog);
		free(s);
		free(c);
		return 1;
	}
	args[1] = ml;
	s->o = *o;
	c->o = *o;
	s->o.server = NULL;
	s->o.net.ip = 0x0A000001u;
	c->o.server = "127.0.0.1";
	c->o.net.ip = 0x0A000002u;
	c->lfd = -1;
	s->lfd = roce_oob_listen("127.0.0.1", 0, &c->o.port, s->msg, sizeof(s->msg));
	s->out = open_memstream(&text, &len);
	c->out = stdout;
	if (s->lfd >= 0 && s->out && pthread_create(&t, NULL, server_thread, args) == 0) {
		printf("==== client\n");
		rc = finish(c, pp_run(c, ml));
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "%s: self-test: cannot start the server\n", o->kind->prog);
	}
	if (s->out)
		fclose(s->out);
	printf("==== server\n%s", text ? text : "");
	free(text);
	roce_memlink_destroy(ml);
	free(s);
	free(c);
	return rc || rs;
}

int pp_main(const struct pp_kind *kind, int argc, char **argv)
{
	struct pp *p;
	struct pp_opts o;
	int r, rc;

	r = pp_parse(kind, argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (o.net.selftest)
		return selftest(&o);
	p = calloc(1, sizeof(*p));
	if (!p)
		return 1;
	p->o = o;
	p->out = stdout;
	p->lfd = -1;
	rc = finish(p, pp_run(p, NULL));
	free(p);
	return rc;
}
