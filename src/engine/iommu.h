/* SPDX-License-Identifier: MIT */
/*
 * The IOMMU between the device and host memory: a bounded table of
 * windows {iova, host pointer, len}. A board reaches host memory over
 * PCIe only through the translations the host's kernel programs into its
 * IOMMU; the device cannot add one. So here: the host side (src/verbs,
 * roce_reg_host_mr) maps and unmaps windows through these functions,
 * which nothing on the register file or roced's socket reaches, and the
 * data path (dma.c) translates every host-space access through them. A
 * HOST MR entry whose range is not inside one window therefore moves no
 * byte, whatever a register writer put in it.
 *
 * IOVAs: window slot s owns [IOMMU_IOVA_BASE + s * IOMMU_SLOT_SIZE, + the
 * slot size), and a window starts at its host pointer's offset in the
 * page, as an IOMMU maps pages. A translation is then one subtraction and
 * one shift, no search. Slots are handed out next-fit, so an unmapped
 * window's IOVAs are not reused at once.
 *
 * Concurrency: the host maps and unmaps under the engine lock, and the
 * engine translates under it (a poll), so a window never goes while a
 * DMA through it is under way, and after iommu_unmap returns no access
 * reaches its memory again.
 */
#ifndef ROCE_ENGINE_IOMMU_H
#define ROCE_ENGINE_IOMMU_H

#include <stddef.h>
#include <stdint.h>

#include "roce/params.h"

#define IOMMU_WINDOWS    ROCE_MAX_MR            /* one per MR at most */
#define IOMMU_SLOT_SHIFT 40u
#define IOMMU_SLOT_SIZE  (1ull << IOMMU_SLOT_SHIFT)
#define IOMMU_IOVA_BASE  (1ull << 52)
#define IOMMU_PAGE       4096u
/* the longest window: its slot less the page offset it may start at */
#define IOMMU_WINDOW_MAX (IOMMU_SLOT_SIZE - IOMMU_PAGE)

struct iommu;

/* NULL when out of memory. */
struct iommu *iommu_create(void);
void iommu_destroy(struct iommu *io);

/*
 * Host side, under the engine lock: map [host, host + len) and return its
 * IOVA in *iova. ROCE_E_INVAL (NULL host or iova, len 0), ROCE_E_RANGE
 * (len above IOMMU_WINDOW_MAX, or the range wraps the address space),
 * ROCE_E_FULL (IOMMU_WINDOWS windows mapped).
 */
int iommu_map(struct iommu *io, void *host, size_t len, uint64_t *iova);
/* Unmap the window that starts at iova: ROCE_E_NOENT if none does. */
int iommu_unmap(struct iommu *io, uint64_t iova);
/* Windows mapped now. */
unsigned iommu_count(const struct iommu *io);

/*
 * Data path: the host address of [iova, iova + len) when that lies inside
 * one mapped window, else NULL. io may be NULL (no host memory: a device
 * alone, the sim, roced): always NULL then. len 0 is refused too.
 */
uint8_t *iommu_translate(const struct iommu *io, uint64_t iova, uint64_t len);

#endif
