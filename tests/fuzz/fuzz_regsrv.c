/* SPDX-License-Identifier: MIT */
/*
 * Register server fuzz target: a client of roced's socket that sends
 * anything. The input's first byte chooses how the rest, the client's byte
 * stream, is cut into the pieces recv() would return; the pieces go to the
 * server's protocol handler (roce_regsrv_input, src/server/regsrv_proto.c)
 * in front of an in-process device, as roced's poll loop feeds it. The
 * target keeps its own account of the stream and checks:
 *
 *   - the handler takes no more than completes the pending request, and
 *     answers nothing before a request is whole;
 *   - every response is 12 bytes that echo the request's op and carry a
 *     code the protocol knows (roce/bus.h): HELLO answers OKAY with the
 *     version, or BAD_VERSION and closes; anything before a good HELLO
 *     answers NO_HELLO and closes; an unknown op answers BAD_OP; READ and
 *     WRITE answer the AXI response the register map owes
 *     (regfile_model.h), READ with the register's value;
 *   - a request that is refused (or a write the map refuses) changes no
 *     register and no counter; a closed connection is fed nothing more.
 *
 * The device lives across inputs; each input starts from its registers'
 * first image and the table entries it committed put back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce/counters.h"
#include "roce/driver.h"
#include "server/regsrv.h"
#include "server/sockmsg.h"
#include "regfile_model.h"

#define MEM_SIZE  (1u << 20)
#define STORE_END 0x140u

static struct roce_device *dev;
static uint32_t first_image[STORE_END / 4];
static bool rw_mapped[STORE_END / 4];
static uint32_t touched_qp[1024], touched_mr[1024], n_tqp, n_tmr; /* commits to put back */

static uint32_t rd(uint32_t off)
{
	uint32_t v = 0;

	CHECK(roce_device_read32(dev, off, &v) == ROCE_OK);
	return v;
}

/* The stored registers and the counters: what a refused request leaves. */
struct image {
	uint32_t reg[STORE_END / 4];
	uint64_t cnt[ROCE_CNT_COUNT];
};

static void take(struct image *im)
{
	memset(im, 0, sizeof(*im));
	for (uint32_t off = 0; off < STORE_END; off += 4)
		if (model_decode(off) && off != ROCE_REG_STATUS)
			im->reg[off / 4] = rd(off);
	for (int i = 0; i < ROCE_CNT_COUNT; i++)
		im->cnt[i] = roce_cnt_read(roce_device_counters(dev), (enum roce_cnt)i);
}

static bool same(const struct image *a, const struct image *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void setup(void)
{
	struct roce_device_config cfg = { .mem_size = MEM_SIZE };

	CHECK(roce_device_create(&cfg, &dev) == ROCE_OK);
	for (uint32_t off = 0; off < STORE_END; off += 4) {
		const struct roce_reg *r = model_decode(off);

		if (r && r->access == ROCE_ACC_RW && off != ROCE_REG_CTRL) {
			rw_mapped[off / 4] = true;
			first_image[off / 4] = rd(off);
		}
	}
}

/* Back to the first image: out of reset, the entries the last input
 * committed blank again, the registers as they were. */
static void restore(void)
{
	struct roce_bus bus;
	struct roce_drv drv;

	CHECK(roce_device_write32(dev, ROCE_REG_CTRL, 0) == ROCE_OK);
	CHECK(roce_bus_open_local(&bus, dev) == ROCE_OK);
	roce_drv_init(&drv, &bus);
	for (uint32_t i = 0; i < n_tqp; i++) {
		struct roce_qp_ctx blank = { .qpn = touched_qp[i], .pkey = 0xFFFF };

		CHECK(roce_drv_qp_write(&drv, &blank) == ROCE_OK);
	}
	for (uint32_t i = 0; i < n_tmr; i++) {
		struct roce_mr_ctx none = { .index = touched_mr[i] };

		CHECK(roce_drv_mr_write(&drv, &none) == ROCE_OK);
	}
	roce_bus_close(&bus);
	n_tqp = n_tmr = 0;
	CHECK(roce_device_write32(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD) == ROCE_OK);
	CHECK(roce_device_write32(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_LOAD) == ROCE_OK);
	for (uint32_t i = 0; i < STORE_END / 4; i++)
		if (rw_mapped[i])
			CHECK(roce_device_write32(dev, 4 * i, first_image[i]) == ROCE_OK);
}

/* What the response to req must be, given what the device showed before
 * (pre) and shows after (post). Returns whether the connection stays. */
static bool check_response(const struct roce_sock_msg *req, const uint8_t raw[12],
			   bool *hello, const struct image *pre, const struct image *post)
{
	struct roce_sock_msg rsp;
	uint32_t op = req->w[0], off = req->w[1], val = req->w[2];

	roce_sock_msg_unpack(raw, &rsp);
	CHECK(rsp.w[0] == op);
	if (op == ROCE_SOCK_HELLO) {
		bool good = off == ROCE_SOCK_MAGIC && val == ROCE_SOCK_PROTO_VERSION;

		CHECK(rsp.w[1] == (good ? ROCE_SOCK_OKAY : ROCE_SOCK_BAD_VERSION));
		CHECK(rsp.w[2] == ROCE_SOCK_PROTO_VERSION && same(pre, post));
		*hello = good;
		return good;
	}
	if (!*hello) {
		CHECK(rsp.w[1] == ROCE_SOCK_NO_HELLO && rsp.w[2] == 0 && same(pre, post));
		return false;
	}
	if (op == ROCE_SOCK_READ) {
		bool mapped = model_decode(off) != NULL;

		CHECK(rsp.w[1] == (mapped ? ROCE_SOCK_OKAY : ROCE_SOCK_DECERR));
		/* nothing runs between: the register still reads the same */
		CHECK(mapped ? rsp.w[2] == rd(off) : rsp.w[2] == 0);
		CHECK(same(pre, post));
		return true;
	}
	if (op == ROCE_SOCK_WRITE) {
		int want = model_write_response(off, val);

		CHECK(rsp.w[1] == roce_sock_resp_from_status(want) && rsp.w[2] == 0);
		if (want != ROCE_OK)
			CHECK(same(pre, post));
		else if (off < STORE_END && off != ROCE_REG_STATUS)
			CHECK(post->reg[off / 4] == (off == ROCE_REG_QP_COMMIT ||
						     off == ROCE_REG_MR_COMMIT ? 0 : val));
		return true;
	}
	if (op == ROCE_SOCK_MEM_READ || op == ROCE_SOCK_MEM_WRITE) {
		/* the DDR debug port: a word (its index in off) inside the
		 * DDR, else DECERR; the registers never change */
		bool inside = (uint64_t)off * 4 + 4 <= MEM_SIZE;
		size_t size;
		const uint8_t *mem = roce_device_mem(dev, &size);

		CHECK(rsp.w[1] == (inside ? ROCE_SOCK_OKAY : ROCE_SOCK_DECERR));
		if (op == ROCE_SOCK_MEM_READ && inside)
			CHECK(rsp.w[2] == ((uint32_t)mem[off * 4ull] |
					   (uint32_t)mem[off * 4ull + 1] << 8 |
					   (uint32_t)mem[off * 4ull + 2] << 16 |
					   (uint32_t)mem[off * 4ull + 3] << 24));
		if (op == ROCE_SOCK_MEM_WRITE || !inside)
			CHECK(rsp.w[2] == 0);
		if (op == ROCE_SOCK_MEM_WRITE && inside)
			CHECK(!memcmp(mem + off * 4ull, &val, 4));
		CHECK(same(pre, post));
		return true;
	}
	CHECK(rsp.w[1] == ROCE_SOCK_BAD_OP && rsp.w[2] == 0 && same(pre, post));
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct image pre, post;
	struct roce_regsrv_conn conn = { 0 };
	uint8_t pend[ROCE_SOCK_MSG_LEN], rsp[ROCE_SOCK_MSG_LEN];
	size_t have = 0, i = 1;
	uint8_t cut = n ? d[0] : 0;
	bool hello = false, open = true;

	if (!dev)
		setup();
	restore();
	while (open && i < n) {
		size_t piece = 1 + (cut & 15), used = 0, take_n;
		enum roce_regsrv_verdict v;
		struct roce_sock_msg req;

		cut = (uint8_t)(cut * 5 + 3);   /* the next piece's length */
		if (piece > n - i)
			piece = n - i;
		take_n = piece < sizeof(pend) - have ? piece : sizeof(pend) - have;
		memcpy(pend + have, d + i, take_n);
		roce_sock_msg_unpack(pend, &req);
		if (have + take_n == sizeof(pend)) {
			take(&pre);
			/* a commit this input makes is put back before the next */
			if (req.w[0] == ROCE_SOCK_WRITE && req.w[1] == ROCE_REG_QP_COMMIT && n_tqp < 1024)
				touched_qp[n_tqp++] = pre.reg[ROCE_REG_QP_INDEX / 4];
			if (req.w[0] == ROCE_SOCK_WRITE && req.w[1] == ROCE_REG_MR_COMMIT && n_tmr < 1024)
				touched_mr[n_tmr++] = pre.reg[ROCE_REG_MR_INDEX / 4];
		}
		memset(rsp, 0xEE, sizeof(rsp));
		v = roce_regsrv_input(dev, &conn, d + i, piece, &used, rsp);
		CHECK(used == take_n);
		i += used;
		have += used;
		if (have < sizeof(pend)) {
			CHECK(v == ROCE_REGSRV_MORE);
			continue;
		}
		have = 0;
		CHECK(v != ROCE_REGSRV_MORE);
		take(&post);
		open = check_response(&req, rsp, &hello, &pre, &post);
		CHECK(open == (v == ROCE_REGSRV_REPLY));
	}
	return 0;
}
