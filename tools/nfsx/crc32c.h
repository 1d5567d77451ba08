/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as iSCSI, ext4
 * and fio's verify=crc32c use it: crc32c("123456789") == 0xE3069283.
 * Software slicing-by-8, or the SSE4.2 crc32 instruction on x86-64 when
 * the CPU has it (chosen once, at the first call).
 */
#ifndef NFSX_TOOL_CRC32C_H
#define NFSX_TOOL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue @crc (0 to start) over @len bytes of @buf. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* The portable implementation, always available (for tests). */
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* Non-zero if crc32c() uses the CPU instruction. */
int crc32c_hw_available(void);

#endif
