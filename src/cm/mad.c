/* SPDX-License-Identifier: MIT */
/* The common MAD header (IBA 13.4.2) and the CM's admission checks. */
#include "cm/mad.h"

#include <roce/wire/byteorder.h>

static const char *const mad_err_names[] = {
#define MAD_X_NAME(code, name, desc) [code] = name,
	MAD_ERR_LIST(MAD_X_NAME)
#undef MAD_X_NAME
};

static const char *const mad_err_strs[] = {
#define MAD_X_STR(code, name, desc) [code] = desc,
	MAD_ERR_LIST(MAD_X_STR)
#undef MAD_X_STR
};

const char *mad_err_name(int err)
{
	return err >= 0 && err < MAD_ERR_COUNT ? mad_err_names[err] : "?";
}

const char *mad_err_str(int err)
{
	return err >= 0 && err < MAD_ERR_COUNT ? mad_err_strs[err] : "?";
}

/* IBA 13.4.2: offsets 0..23, as the kernel's struct ib_mad_hdr */
void mad_hdr_parse(const uint8_t *buf, struct mad_hdr *h)
{
	h->base_version = buf[0];
	h->mgmt_class = buf[1];
	h->class_version = buf[2];
	h->method = buf[3];
	h->status = roce_get_be16(buf + 4);
	h->class_specific = roce_get_be16(buf + 6);
	h->tid = roce_get_be64(buf + 8);
	h->attr_id = roce_get_be16(buf + 16);
	h->reserved = roce_get_be16(buf + 18);
	h->attr_mod = roce_get_be32(buf + 20);
}

void mad_hdr_pack(const struct mad_hdr *h, uint8_t *buf)
{
	buf[0] = h->base_version;
	buf[1] = h->mgmt_class;
	buf[2] = h->class_version;
	buf[3] = h->method;
	roce_put_be16(buf + 4, h->status);
	roce_put_be16(buf + 6, h->class_specific);
	roce_put_be64(buf + 8, h->tid);
	roce_put_be16(buf + 16, h->attr_id);
	roce_put_be16(buf + 18, h->reserved);
	roce_put_be32(buf + 20, h->attr_mod);
}

void mad_hdr_cm(struct mad_hdr *h, uint16_t attr_id, uint64_t tid)
{
	*h = (struct mad_hdr){
		.base_version = MAD_BASE_VERSION,
		.mgmt_class = MAD_CLASS_CM,
		.class_version = MAD_CM_CLASS_VERSION,
		.method = MAD_METHOD_SEND,
		.tid = tid,
		.attr_id = attr_id,
	};
}

enum mad_err mad_check(const uint8_t *buf, size_t len, struct mad_hdr *h)
{
	if (len < MAD_SIZE) {
		if (len >= MAD_HDR_SIZE)
			mad_hdr_parse(buf, h);
		return MAD_E_TRUNCATED;
	}
	mad_hdr_parse(buf, h);
	if (len > MAD_SIZE)
		return MAD_E_OVERSIZE;
	/*
	 * IBA 13.4.2: a base version this agent does not support is dropped;
	 * the kernel's ib_mad does the same before any class sees it.
	 */
	if (h->base_version != MAD_BASE_VERSION)
		return MAD_E_BASE_VERSION;
	if (h->mgmt_class != MAD_CLASS_CM)
		return MAD_E_CLASS;
	/* IBA 12.6: the CM speaks class version 2 only */
	if (h->class_version != MAD_CM_CLASS_VERSION)
		return MAD_E_CLASS_VERSION;
	if (h->method != MAD_METHOD_SEND)
		return MAD_E_METHOD;
	return MAD_OK;
}
