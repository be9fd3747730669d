/* SPDX-License-Identifier: MIT */
/*
 * The device model: lifecycle, AXI-Lite decode and CTRL.
 *
 * Every access is decoded through the register map (regmap.c): an offset
 * that is misaligned or has no row answers DECERR, a write the row does
 * not allow answers SLVERR, and a failed access changes nothing -- never a
 * silent success (SPEC.md, control plane).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "roce/params.h"
#include "roce/status.h"
#include "regs/device_priv.h"

/* The file window of the DDR (roce_device_config.mem_fd): mapped over the
 * start of the anonymous DDR, so the DDR stays one range of addresses. */
static int map_file(struct roce_device *dev, const struct roce_device_config *cfg)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;

	if (cfg->mem_file_offset % (uint64_t)page)
		return ROCE_E_INVAL;
	if (cfg->mem_file_len > dev->mem_size)
		return ROCE_E_RANGE;
	if (fstat(cfg->mem_fd, &st) != 0)
		return ROCE_E_IO;
	/* a page wholly past the end of a file faults when touched */
	if (S_ISREG(st.st_mode) && (cfg->mem_file_offset > (uint64_t)st.st_size ||
				    cfg->mem_file_len > (uint64_t)st.st_size -
							cfg->mem_file_offset))
		return ROCE_E_RANGE;
	if (mmap(dev->mem, cfg->mem_file_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, cfg->mem_fd, (off_t)cfg->mem_file_offset) ==
	    MAP_FAILED)
		return ROCE_E_IO;
	return ROCE_OK;
}

static int device_alloc(struct roce_device *dev, const struct roce_device_config *cfg)
{
	int rc;

	rc = roce_qp_table_create(&dev->qp);
	if (rc == ROCE_OK)
		rc = roce_qp_table_set_count(dev->qp, dev->qp_count);
	if (rc == ROCE_OK)
		rc = roce_mr_table_create(dev->mem_size, &dev->mr);
	if (rc == ROCE_OK) {
		dev->mem = cfg->mem_at ? big_alloc_at(cfg->mem_at, dev->mem_size)
				       : big_alloc(dev->mem_size);
		if (!dev->mem)
			rc = ROCE_E_NOMEM;
	}
	if (rc == ROCE_OK && cfg->mem_file_len)
		rc = map_file(dev, cfg);
	if (rc == ROCE_OK)
		rc = stage_dev_create(&dev->cnt, &dev->stage);
	return rc;
}

/* Stored registers start at their documented reset values. */
static void device_reset_regs(struct roce_device *dev)
{
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);

		if (r->offset < ROCE_REG_STORE_END)
			*dev_reg(dev, r->offset) = r->reset;
	}
	*dev_reg(dev, ROCE_REG_MEM_SIZE_KB) = (uint32_t)(dev->mem_size / 1024);
	*dev_reg(dev, ROCE_REG_QP_COUNT) = dev->qp_count;
}

int roce_device_create(const struct roce_device_config *cfg,
		       struct roce_device **out)
{
	static const struct roce_device_config defaults;
	struct roce_device *dev;
	int rc;

	if (!out)
		return ROCE_E_INVAL;
	*out = NULL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->mem_size % 1024)
		return ROCE_E_INVAL;
	if (cfg->mem_size > ROCE_DEV_MEM_SIZE_MAX || cfg->qp_count > ROCE_MAX_QP ||
	    (cfg->qp_count && cfg->qp_count <= ROCE_FIRST_QPN))
		return ROCE_E_RANGE;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return ROCE_E_NOMEM;
	dev->mem_size = cfg->mem_size ? cfg->mem_size : ROCE_DEV_MEM_SIZE_DEFAULT;
	dev->qp_count = cfg->qp_count ? cfg->qp_count : ROCE_MAX_QP;
	rc = device_alloc(dev, cfg);
	if (rc != ROCE_OK || pthread_mutex_init(&dev->lock, NULL) != 0) {
		roce_qp_table_destroy(dev->qp);
		roce_mr_table_destroy(dev->mr);
		big_free(dev->mem, dev->mem_size);
		free(dev);
		return rc != ROCE_OK ? rc : ROCE_E_NOMEM;
	}
	device_reset_regs(dev);
	roce_cc_config_default(&dev->cc);       /* what the reset values say */
	dev->qp_rate = calloc(dev->qp_count, sizeof(*dev->qp_rate));
	dev->qp_window = calloc(dev->qp_count, sizeof(*dev->qp_window));
	dev->qp_recovery = calloc(dev->qp_count, sizeof(*dev->qp_recovery));
	dev->qp_algo = calloc(dev->qp_count, sizeof(*dev->qp_algo));
	if (!dev->qp_rate || !dev->qp_window || !dev->qp_recovery || !dev->qp_algo) {
		roce_device_destroy(dev);
		return ROCE_E_NOMEM;
	}
	roce_link_init(&dev->link, cfg->link_delay_us, cfg->now_ns,
		       cfg->clock_ctx);
	*out = dev;
	return ROCE_OK;
}

void roce_device_destroy(struct roce_device *dev)
{
	if (!dev)
		return;
	pthread_mutex_destroy(&dev->lock);
	free((void *)dev->qp_rate);
	free((void *)dev->qp_window);
	free((void *)dev->qp_recovery);
	free((void *)dev->qp_algo);
	roce_qp_table_destroy(dev->qp);
	roce_mr_table_destroy(dev->mr);
	stage_dev_destroy(dev->stage);
	big_free(dev->mem, dev->mem_size);
	free(dev);
}

static uint32_t ctrl_load(struct roce_device *dev)
{
	return __atomic_load_n(dev_reg(dev, ROCE_REG_CTRL), __ATOMIC_ACQUIRE);
}

/*
 * Soft reset (seed 000 section 3.3). The rising edge holds the link and
 * clears the engine's live state: QPs to RESET, MRs invalid, counters
 * zero, key slots empty. Address and shadow registers keep their values, and tables may be
 * programmed while reset is held. The falling edge restarts the link.
 */
static void ctrl_write(struct roce_device *dev, uint32_t val)
{
	uint32_t old = ctrl_load(dev);
	bool enter = (val & ROCE_CTRL_SOFT_RESET) && !(old & ROCE_CTRL_SOFT_RESET);
	bool leave = !(val & ROCE_CTRL_SOFT_RESET) && (old & ROCE_CTRL_SOFT_RESET);

	if (enter) {
		/* stop the engine first so the data path sees it in reset */
		__atomic_store_n(dev_reg(dev, ROCE_REG_CTRL), val, __ATOMIC_RELEASE);
		roce_link_hold(&dev->link);
		roce_qp_table_reset_all(dev->qp);
		roce_mr_table_clear_all(dev->mr);
		roce_stage_block_reset(dev);
		roce_stat_clear(dev);
		return;
	}
	if (leave)
		roce_link_restart(&dev->link);
	__atomic_store_n(dev_reg(dev, ROCE_REG_CTRL), val, __ATOMIC_RELEASE);
}

static uint32_t status_read(struct roce_device *dev)
{
	uint32_t ctrl = ctrl_load(dev);
	uint32_t v = roce_link_bits(&dev->link);

	if (ctrl & ROCE_CTRL_SOFT_RESET)
		v |= ROCE_STATUS_IN_RESET;
	else if (ctrl & ROCE_CTRL_ENGINE_EN)
		v |= ROCE_STATUS_RUNNING;
	return v;
}

static const struct roce_reg *decode(uint32_t off)
{
	if (off & 3u)
		return NULL;
	return roce_regmap_find_offset(off);
}

int roce_device_read32(struct roce_device *dev, uint32_t off, uint32_t *val)
{
	const struct roce_reg *r = decode(off);
	uint32_t v;

	if (!dev || !val)
		return ROCE_E_INVAL;
	if (!r) {
		*val = 0;
		return ROCE_E_DECERR;
	}
	pthread_mutex_lock(&dev->lock);
	if (r->access == ROCE_ACC_WO)
		v = 0;                  /* a key word never reads back */
	else if (off >= ROCE_REG_STAT_BASE)
		v = roce_stat_read(dev, r);
	else if (off >= ROCE_REG_STORE_END)
		v = roce_stage_block_read(dev, off);
	else if (off == ROCE_REG_STATUS)
		v = status_read(dev);
	else if (off == ROCE_REG_CTRL)
		v = ctrl_load(dev);
	else if (off == ROCE_REG_CC_QP_RATE)
		v = roce_cc_qp_rate_read(dev);
	else if (off == ROCE_REG_CC_QP_WINDOW_KB)
		v = roce_cc_qp_window_read(dev);
	else if (off == ROCE_REG_CC_QP_RECOVERY)
		v = roce_cc_qp_recovery_read(dev);
	else if (off == ROCE_REG_CC_QP_ALGO)
		v = roce_cc_qp_algo_read(dev);
	else
		v = *dev_reg(dev, off);  /* COMMIT stays 0: commands finish at once */
	pthread_mutex_unlock(&dev->lock);
	*val = v;
	return ROCE_OK;
}

int roce_device_write32(struct roce_device *dev, uint32_t off, uint32_t val)
{
	const struct roce_reg *r = decode(off);
	int rc;

	if (!dev)
		return ROCE_E_INVAL;
	if (!r)
		return ROCE_E_DECERR;
	rc = roce_reg_check_write(r, val);
	if (rc != ROCE_OK)
		return rc;
	/* the map's range is the largest table; this device may have fewer
	 * QPs (qp_count is fixed at create: no lock needed) */
	if (off == ROCE_REG_QP_INDEX && val >= dev->qp_count)
		return ROCE_E_SLVERR;
	pthread_mutex_lock(&dev->lock);
	switch (off) {
	case ROCE_REG_CTRL:
		ctrl_write(dev, val);
		break;
	case ROCE_REG_QP_COMMIT:
		roce_qp_window_command(dev, val);
		break;
	case ROCE_REG_MR_COMMIT:
		roce_mr_window_command(dev, val);
		break;
	case ROCE_REG_CC_COMMIT:
		roce_cc_commit(dev);
		break;
	case ROCE_REG_CC_QP_WINDOW_KB:
		roce_cc_qp_window_write(dev, val);
		break;
	case ROCE_REG_CC_QP_RECOVERY:
		roce_cc_qp_recovery_write(dev, val);
		break;
	case ROCE_REG_CC_QP_ALGO:
		roce_cc_qp_algo_write(dev, val);
		break;
	default:
		if (off >= ROCE_REG_STORE_END)
			roce_stage_block_write(dev, off, val);
		else
			*dev_reg(dev, off) = val;
		break;
	}
	pthread_mutex_unlock(&dev->lock);
	return ROCE_OK;
}

uint8_t *roce_device_mem(struct roce_device *dev, size_t *size)
{
	if (size)
		*size = dev->mem_size;
	return dev->mem;
}

/* The debug port races the data path as a JTAG-to-AXI bridge does: no
   lock, a word at a time. */
int roce_device_mem_read32(struct roce_device *dev, uint64_t addr,
			   uint32_t *val)
{
	const uint8_t *b;

	if ((addr & 3) || addr >= dev->mem_size || dev->mem_size - addr < 4)
		return ROCE_E_DECERR;
	b = dev->mem + addr;
	*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
	return ROCE_OK;
}

int roce_device_mem_write32(struct roce_device *dev, uint64_t addr,
			    uint32_t val)
{
	uint8_t *b;

	if ((addr & 3) || addr >= dev->mem_size || dev->mem_size - addr < 4)
		return ROCE_E_DECERR;
	b = dev->mem + addr;
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(val >> (8 * i));
	return ROCE_OK;
}

struct roce_counters *roce_device_counters(struct roce_device *dev)
{
	return &dev->cnt;
}

struct roce_qp_table *roce_device_qp_table(struct roce_device *dev)
{
	return dev->qp;
}

struct stage_dev *roce_device_stage(struct roce_device *dev)
{
	return dev->stage;
}

struct roce_mr_table *roce_device_mr_table(struct roce_device *dev)
{
	return dev->mr;
}

uint32_t roce_device_link_bits(struct roce_device *dev)
{
	return roce_link_bits(&dev->link);
}

bool roce_device_link_ready(struct roce_device *dev)
{
	return roce_link_ready(&dev->link);
}

bool roce_device_loopback(struct roce_device *dev)
{
	return ctrl_load(dev) & ROCE_CTRL_LOOPBACK;
}

bool roce_device_running(struct roce_device *dev)
{
	uint32_t ctrl = ctrl_load(dev);

	return !(ctrl & ROCE_CTRL_SOFT_RESET) && (ctrl & ROCE_CTRL_ENGINE_EN);
}

/* Seed 000 section 3.3: enabling before the link is ready loses the first
 * frames. The model loses them the same way, and counts them. */
bool roce_device_rx_admit(struct roce_device *dev)
{
	if (!roce_device_running(dev)) {
		roce_cnt_drop(&dev->cnt, ROCE_E_DISABLED);
		return false;
	}
	if (!roce_device_link_ready(dev)) {
		roce_cnt_drop(&dev->cnt, ROCE_E_LINK_DOWN);
		return false;
	}
	return true;
}
