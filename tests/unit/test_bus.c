/* SPDX-License-Identifier: MIT */
/*
 * The three bus backends under one driver: the power-on sequence and the
 * regression check pass over local, socket (roced's server in a thread) and
 * mmap (a file-backed window with the mirror in a thread), and read back
 * what they wrote. Plus each backend's own error paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "roce/bus.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "server/mirror.h"
#include "server/regsrv.h"
#include "server/sockmsg.h"

static const char cfg_text[] =
	"mac = 02:00:00:00:00:01\nip = 10.0.0.1\n"
	"peer_mac = 02:00:00:00:00:02\npeer_ip = 10.0.0.2\n"
	"link_timeout_ms = 2000\n"
	"[qp 17]\ntype = rc\nmtu = 4096\ndest_qpn = 0x12\n"
	"sq_psn = 0x1000\nrq_psn = 0x2000\n"
	"[qp 300]\ntype = ud\nqkey = 7\n"
	"[mr 3]\nva = 0x10000\npa = 0\nlen = 64K\n"
	"access = local_write,remote_write,remote_read\nrkey = 0x3a7\n"
	"[mr 4000]\npa = 1M\nlen = 4096\nrkey = 0xfa001\n";

struct fix {
	char dir[64];
	char path[128];
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
	struct roce_config cfg;
	struct roce_regsrv *srv;
	pthread_t thread;
	struct roce_mirror *mirror;
};

static int fix_setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/test_bus.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(roce_device_create(NULL, &f->dev), ROCE_OK);
	assert_int_equal(roce_config_parse(cfg_text, strlen(cfg_text), "t",
					   &f->cfg, err, sizeof(err)), ROCE_OK);
	*state = f;
	return 0;
}

static void *srv_main(void *arg)
{
	return (void *)(intptr_t)roce_regsrv_run(arg);
}

static void start_server(struct fix *f)
{
	snprintf(f->path, sizeof(f->path), "%s/roced.sock", f->dir);
	assert_int_equal(roce_regsrv_create(f->dev, f->path, ROCE_REGSRV_NO_GROUP,
					    &f->srv), ROCE_OK);
	assert_int_equal(pthread_create(&f->thread, NULL, srv_main, f->srv), 0);
}

static void start_mirror(struct fix *f)
{
	struct roce_mirror_opts o = ROCE_MIRROR_OPTS_DEFAULT;

	snprintf(f->path, sizeof(f->path), "%s/window", f->dir);
	o.busy_polls = 4;
	assert_int_equal(roce_mirror_start(f->dev, f->path, &o, &f->mirror),
			 ROCE_OK);
}

static int fix_teardown(void **state)
{
	struct fix *f = *state;
	void *ret;

	roce_bus_close(&f->bus);
	if (f->srv) {
		roce_regsrv_stop(f->srv);
		assert_int_equal(pthread_join(f->thread, &ret), 0);
		assert_int_equal((intptr_t)ret, ROCE_OK);
		roce_regsrv_destroy(f->srv);
		assert_int_equal(access(f->path, F_OK), -1);	/* removed */
	}
	roce_mirror_stop(f->mirror);
	unlink(f->path);
	rmdir(f->dir);
	roce_device_destroy(f->dev);
	free(f);
	return 0;
}

/* Wraps a bus and counts COMMIT reads that showed BUSY. */
struct spy {
	struct roce_bus *inner;
	unsigned busy_reads;
};

static int spy_read(void *ctx, uint32_t off, uint32_t *val)
{
	struct spy *s = ctx;
	int st = roce_bus_read32(s->inner, off, val);

	if (st == ROCE_OK && (off == ROCE_REG_QP_COMMIT ||
			      off == ROCE_REG_MR_COMMIT) && (*val & ROCE_TBL_BUSY))
		s->busy_reads++;
	return st;
}

static int spy_write(void *ctx, uint32_t off, uint32_t val)
{
	return roce_bus_write32(((struct spy *)ctx)->inner, off, val);
}

static int spy_close(void *ctx)
{
	(void)ctx;
	return ROCE_OK;
}

static const struct roce_bus_ops spy_ops = { "spy", spy_read, spy_write,
					     spy_close, NULL, NULL };

/* The same checks over whichever backend f->bus is. */
static unsigned power_on_and_read_back(struct fix *f)
{
	struct spy spy = { &f->bus, 0 };
	struct roce_bus bus = { &spy_ops, &spy };
	struct roce_qp_ctx q;
	struct roce_mr_ctx m;
	struct roce_endpoint ep;
	unsigned nd = 1;
	uint32_t v;

	roce_drv_init(&f->drv, &bus);
	if (roce_drv_power_on(&f->drv, &f->cfg) != ROCE_OK)
		fail_msg("power-on over %s: %s", roce_bus_name(&f->bus),
			 f->drv.err);
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, NULL, NULL, &nd),
			 ROCE_OK);
	assert_int_equal(nd, 0);
	assert_int_equal(roce_drv_get_peer(&f->drv, &ep), ROCE_OK);
	assert_int_equal(ep.ip, 0x0A000002);
	assert_int_equal(ep.mac[5], 2);
	assert_int_equal(roce_drv_qp_read(&f->drv, 17, &q), ROCE_OK);
	assert_int_equal(q.state, ROCE_QPS_RTS);
	assert_int_equal(q.dest_qpn, 0x12);
	assert_int_equal(q.mtu, ROCE_MTU_4096);
	assert_int_equal(roce_drv_qp_read(&f->drv, 300, &q), ROCE_OK);
	assert_int_equal(q.type, ROCE_QPT_UD);
	assert_int_equal(q.qkey, 7);
	assert_int_equal(roce_drv_mr_read(&f->drv, 4000, &m), ROCE_OK);
	assert_true(m.valid);
	assert_int_equal(m.pa, 1u << 20);
	assert_int_equal(m.rkey, 0xfa001);
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_CTRL, &v), ROCE_OK);
	assert_int_equal(v, ROCE_CTRL_ENGINE_EN);
	/* What the bus read is what the device holds. */
	assert_int_equal(roce_device_read32(f->dev, ROCE_REG_PEER_IP, &v), ROCE_OK);
	assert_int_equal(v, 0x0A000002);
	assert_true(roce_device_running(f->dev));
	roce_drv_init(&f->drv, &f->bus);	/* the spy dies with this frame */
	return spy.busy_reads;
}

/* The DDR port: bytes across word edges land where the device keeps them,
   the bytes around them untouched; past the DDR is DECERR, past what a
   word index reaches RANGE. */
static void mem_port_checks(struct fix *f)
{
	size_t size;
	uint8_t *mem = roce_device_mem(f->dev, &size);
	uint8_t in[11] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, out[16];

	memset(mem + 0x1000, 0xEE, 16);
	assert_int_equal(roce_bus_mem_write(&f->bus, 0x1003, in, sizeof(in)), ROCE_OK);
	assert_memory_equal(mem + 0x1003, in, sizeof(in));
	assert_int_equal(mem[0x1002], 0xEE);
	assert_int_equal(mem[0x100E], 0xEE);
	assert_int_equal(roce_bus_mem_read(&f->bus, 0x1002, out, 13), ROCE_OK);
	assert_memory_equal(out, mem + 0x1002, 13);
	assert_int_equal(roce_bus_mem_read(&f->bus, size - 4, out, 4), ROCE_OK);
	assert_int_equal(roce_bus_mem_read(&f->bus, size - 3, out, 4), ROCE_E_DECERR);
	assert_int_equal(roce_bus_mem_write(&f->bus, size, in, 1), ROCE_E_DECERR);
	assert_int_equal(roce_bus_mem_read(&f->bus, 16ull << 30, out, 1), ROCE_E_RANGE);
	assert_int_equal(roce_bus_mem_read(&f->bus, 0, out, 0), ROCE_OK);
}

static void test_local(void **state)
{
	struct fix *f = *state;

	assert_int_equal(roce_bus_open_local(&f->bus, f->dev), ROCE_OK);
	assert_string_equal(roce_bus_name(&f->bus), "local");
	power_on_and_read_back(f);
	mem_port_checks(f);
	assert_int_equal(roce_bus_close(&f->bus), ROCE_OK);
	assert_string_equal(roce_bus_name(&f->bus), "closed");
	assert_int_equal(roce_bus_close(&f->bus), ROCE_OK);	/* twice: no-op */
}

static void test_socket(void **state)
{
	struct fix *f = *state;
	struct roce_bus second = { 0 };
	uint32_t v;

	start_server(f);
	assert_int_equal(roce_bus_open_socket(&f->bus, f->path), ROCE_OK);
	assert_string_equal(roce_bus_name(&f->bus), "socket");
	power_on_and_read_back(f);
	mem_port_checks(f);
	/* AXI error responses cross the socket unchanged. */
	assert_int_equal(roce_bus_read32(&f->bus, 0x6, &v), ROCE_E_DECERR);
	assert_int_equal(roce_bus_read32(&f->bus, 0x800, &v), ROCE_E_DECERR);
	assert_int_equal(roce_bus_write32(&f->bus, ROCE_REG_DEV_ID, 0),
			 ROCE_E_SLVERR);
	/* A second client sees the same device. */
	assert_int_equal(roce_bus_open_socket(&second, f->path), ROCE_OK);
	assert_int_equal(roce_bus_write32(&second, ROCE_REG_SCRATCH, 0x5a5a),
			 ROCE_OK);
	assert_int_equal(roce_bus_read32(&f->bus, ROCE_REG_SCRATCH, &v), ROCE_OK);
	assert_int_equal(v, 0x5a5a);
	assert_int_equal(roce_bus_close(&second), ROCE_OK);
}

/* Raw protocol: a request before HELLO, a HELLO of another version. */
static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	strcpy(sa.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void raw_xfer(int fd, uint32_t op, uint32_t a, uint32_t b,
		     struct roce_sock_msg *rsp)
{
	struct roce_sock_msg m = { .w = { op, a, b } };
	uint8_t buf[ROCE_SOCK_MSG_LEN];

	roce_sock_msg_pack(&m, buf);
	assert_int_equal(write(fd, buf, 5), 5);	/* split on purpose */
	assert_int_equal(write(fd, buf + 5, 7), 7);
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_WAITALL), sizeof(buf));
	roce_sock_msg_unpack(buf, rsp);
}

static void test_socket_protocol(void **state)
{
	struct fix *f = *state;
	struct roce_sock_msg r;
	uint8_t b;
	int fd;

	start_server(f);
	fd = raw_connect(f->path);
	raw_xfer(fd, ROCE_SOCK_READ, ROCE_REG_DEV_ID, 0, &r);
	assert_int_equal(r.w[0], ROCE_SOCK_READ);
	assert_int_equal(r.w[1], ROCE_SOCK_NO_HELLO);
	assert_int_equal(recv(fd, &b, 1, 0), 0);	/* closed */
	close(fd);

	fd = raw_connect(f->path);
	raw_xfer(fd, ROCE_SOCK_HELLO, ROCE_SOCK_MAGIC, 99, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_BAD_VERSION);
	assert_int_equal(r.w[2], ROCE_SOCK_PROTO_VERSION);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);

	fd = raw_connect(f->path);
	raw_xfer(fd, ROCE_SOCK_HELLO, ROCE_SOCK_MAGIC, ROCE_SOCK_PROTO_VERSION, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_OKAY);
	raw_xfer(fd, 77, 0, 0, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_BAD_OP);
	raw_xfer(fd, ROCE_SOCK_READ, ROCE_REG_DEV_ID, 0, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_OKAY);
	assert_int_equal(r.w[2], ROCE_DEV_ID_VALUE);
	/* The DDR port: word 0x400 is byte 0x1000; a word past the DDR DECERR. */
	raw_xfer(fd, ROCE_SOCK_MEM_WRITE, 0x400, 0x04030201, &r);
	assert_int_equal(r.w[0], ROCE_SOCK_MEM_WRITE);
	assert_int_equal(r.w[1], ROCE_SOCK_OKAY);
	assert_memory_equal(roce_device_mem(f->dev, NULL) + 0x1000, "\1\2\3\4", 4);
	raw_xfer(fd, ROCE_SOCK_MEM_READ, 0x400, 0, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_OKAY);
	assert_int_equal(r.w[2], 0x04030201);
	raw_xfer(fd, ROCE_SOCK_MEM_READ, 0xFFFFFFFFu, 0, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_DECERR);
	raw_xfer(fd, ROCE_SOCK_MEM_WRITE, 0xFFFFFFFFu, 0, &r);
	assert_int_equal(r.w[1], ROCE_SOCK_DECERR);
	close(fd);
}

static void test_socket_errors(void **state)
{
	struct fix *f = *state;
	struct roce_regsrv *again;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/absent.sock", f->dir);
	errno = 0;
	assert_int_equal(roce_bus_open_socket(&f->bus, path), ROCE_E_IO);
	assert_int_equal(errno, ENOENT);
	assert_null(f->bus.ops);

	start_server(f);
	/* A live socket is not taken over. */
	assert_int_equal(roce_regsrv_create(f->dev, f->path, ROCE_REGSRV_NO_GROUP, &again),
			 ROCE_E_EXISTS);
	/* A stale one is: bind a socket nobody listens on, then serve. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		strcpy(sa.sun_path, path);
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	assert_int_equal(roce_bus_open_socket(&f->bus, path), ROCE_E_IO);
	assert_int_equal(errno, ECONNREFUSED);
	assert_int_equal(roce_regsrv_create(f->dev, path, ROCE_REGSRV_NO_GROUP, &again),
			 ROCE_OK);
	roce_regsrv_destroy(again);
	close(fd);
	assert_int_equal(access(path, F_OK), -1);
	/* A regular file is never replaced. */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(roce_regsrv_create(f->dev, path, ROCE_REGSRV_NO_GROUP, &again),
			 ROCE_E_EXISTS);
	unlink(path);
}

static void test_mmap(void **state)
{
	struct fix *f = *state;
	struct roce_counters *c = roce_device_counters(f->dev);
	uint64_t x = 0;
	uint32_t v;
	unsigned busy;

	start_mirror(f);
	assert_int_equal(roce_bus_open_mmap(&f->bus, f->path, 0, ROCE_MMAP_AUTO),
			 ROCE_OK);
	assert_string_equal(roce_bus_name(&f->bus), "mmap");
	busy = power_on_and_read_back(f);
	/* The mirror shows BUSY while it applies a command; the driver waited. */
	assert_true(busy > 0);
	/* A register window has no DDR port. */
	assert_int_equal(roce_bus_mem_read(&f->bus, 0, &x, 4), ROCE_E_UNSUPPORTED);
	assert_int_equal(roce_bus_mem_write(&f->bus, 0, &x, 4), ROCE_E_UNSUPPORTED);
	/* A raw window cannot report errors; the backend catches what it can. */
	assert_int_equal(roce_bus_read32(&f->bus, 0x6, &v), ROCE_E_DECERR);
	assert_int_equal(roce_bus_read32(&f->bus, ROCE_MMAP_REG_SPAN, &v),
			 ROCE_E_DECERR);
	assert_int_equal(roce_bus_write32(&f->bus, 0x2, 0), ROCE_E_DECERR);
	/* Unmapped offsets read all-ones, as on PCIe. */
	assert_int_equal(roce_bus_read32(&f->bus, 0x800, &v), ROCE_OK);
	assert_int_equal(v, 0xFFFFFFFFu);
	/* A rejected write is dropped; the window shows the device's value. */
	assert_int_equal(roce_bus_write32(&f->bus, ROCE_REG_DEV_ID, 0), ROCE_OK);
	assert_int_equal(roce_bus_read32(&f->bus, ROCE_REG_DEV_ID, &v), ROCE_OK);
	assert_int_equal(v, ROCE_DEV_ID_VALUE);
	/* Counters reach the window by the periodic refresh (bounded wait). */
	roce_cnt_add(c, ROCE_CNT_RX_PKTS, (3ull << 32) + 9);
	for (int i = 0; i < 2000 && x != (3ull << 32) + 9; i++) {
		assert_int_equal(roce_drv_counter_read(&f->drv, "rx_pkts", &x),
				 ROCE_OK);
		usleep(1000);
	}
	assert_int_equal(x, (3ull << 32) + 9);
	/* Stopping the mirror withdraws the window: stores fail, not hang. */
	roce_mirror_stop(f->mirror);
	f->mirror = NULL;
	assert_int_equal(roce_bus_write32(&f->bus, ROCE_REG_SCRATCH, 1),
			 ROCE_E_NODEV);
}

static void test_mmap_errors(void **state)
{
	struct fix *f = *state;
	char small[160], plain[160];
	uint32_t v;
	int fd;

	snprintf(plain, sizeof(plain), "%s/plain", f->dir);
	errno = 0;
	assert_int_equal(roce_bus_open_mmap(&f->bus, plain, 0, ROCE_MMAP_AUTO),
			 ROCE_E_IO);
	assert_int_equal(errno, ENOENT);
	fd = open(plain, O_CREAT | O_RDWR, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, ROCE_MMAP_FILE_SIZE), 0);
	close(fd);
	/* A file without a live mirror is not a device... */
	assert_int_equal(roce_bus_open_mmap(&f->bus, plain, 0, ROCE_MMAP_AUTO),
			 ROCE_E_NODEV);
	/* ...unless asked to treat it as a raw window. */
	assert_int_equal(roce_bus_open_mmap(&f->bus, plain, 0x1004, ROCE_MMAP_RAW),
			 ROCE_E_RANGE);
	assert_int_equal(roce_bus_open_mmap(&f->bus, plain, 0x404, ROCE_MMAP_RAW),
			 ROCE_OK);
	assert_int_equal(roce_bus_write32(&f->bus, 8, 0x1234), ROCE_OK);
	assert_int_equal(roce_bus_read32(&f->bus, 8, &v), ROCE_OK);
	assert_int_equal(v, 0x1234);
	assert_int_equal(roce_bus_close(&f->bus), ROCE_OK);
	assert_int_equal(roce_bus_open_mmap(&f->bus, plain, 2, ROCE_MMAP_RAW),
			 ROCE_E_INVAL);
	snprintf(small, sizeof(small), "%s/small", f->dir);
	fd = open(small, O_CREAT | O_RDWR, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64), 0);
	close(fd);
	assert_int_equal(roce_bus_open_mmap(&f->bus, small, 0, ROCE_MMAP_RAW),
			 ROCE_E_RANGE);
	unlink(small);
	unlink(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_local, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_socket, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_socket_protocol, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_socket_errors, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_mmap, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_errors, fix_setup,
						fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
