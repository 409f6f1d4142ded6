/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memory_gen.h - the synthetic trace of the memory tests (test_memory.c,
 * and the memory tables of test_sqlite.c and the Python tests through
 * npuprof-python-gen if they use it): buffer records (BO_ALLOC, BO_FREE)
 * of three processes on two devices, whose every figure is computed by
 * hand below. Header-only, no state.
 *
 * Device 0 is /dev/npu2, dram_size 1 MiB; its DRAM starts at 0x400000.
 * Another process the trace does not show holds 64 KiB all along, so
 * dev_used (the driver's counter) is the trace's bytes + 65536 (+ 61440
 * after that process frees 4 KiB whose allocation the trace lacks).
 * Times are MEM_T0 + the microsecond given, in ns.
 *
 *   us  pid  event                                 trace bytes dev_used
 *   1   100  alloc id1 0x400000 64 KiB program     65536       131072
 *   2   200  alloc id2 0x420000 32 KiB input       98304       163840
 *   3   100  alloc id3 0x428000 128 KiB scratch    229376      294912  peak
 *   4   200  fail 1 MiB scratch -ENOMEM            229376      294912
 *   5   200  free id2 (handle)                     196608      262144
 *   6   300  alloc id4 0x410000 16 KiB output      212992      278528
 *   7   100  free id3 (close)                      81920       147456
 *   8   300  fail 8 KiB input -EDQUOT              81920       147456
 *   9   300  alloc id5 0x414000 4 KiB output       86016       151552
 *   10  400  free id99 (unpaired: skipped)         86016       147456
 *   10  -    alloc of size 0 (nonsense: skipped)
 *   11  300  free id4 (job)                        69632       131072
 *
 * Device 0: max_allocated 229376 at 3 us, device_max_allocated 294912
 * at 3 us; 5 allocs, 3 frees, 2 failures, 2 live at the end (id1, id5:
 * 69632 bytes), 2 skipped. At the peak id1 [0x400000, 0x410000), id2
 * [0x420000, 0x428000), id3 [0x428000, 0x448000) are live: free
 * 1048576 - 229376 = 819200 bytes, the largest extent 0x500000 -
 * 0x448000 = 753664, fragmentation 100 * 65536 / 819200 = 8 %. The
 * peak's buffers by size: id3 (131072, scratch, 100/101, 3 us), id1
 * (65536, program, 100/101, 1 us), id2 (32768, input, 200/201, 2 us).
 *
 * Device 1 is /dev/npu7, dram_size 64 KiB: process 100 allocates id1
 * (same id, another device) at 0x400000, 8 KiB, other, at 1.5 us and
 * frees it at 2.5 us (handle); dev_used 8192 then 0.
 *
 * Processes, largest first: (100, dev 0) max 196608 at 3 us, 2 allocs,
 * 1 free, 65536 at the end; (200, dev 0) 32768 at 2 us, 1, 1, 1
 * failure, 0; (300, dev 0) 20480 at 9 us, 2, 1, 1 failure, 4096;
 * (100, dev 1) 8192 at 1.5 us, 1, 1, 0.
 */
#ifndef MEMORY_GEN_H
#define MEMORY_GEN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/npu.h>
#include "trace_format.h"
#include "writer.h"

#define MEM_T0		10000000000ull	/* 10 s */
#define MEM_US(us)	(MEM_T0 + (uint64_t)((us) * 1000))

static inline void mem_gen_device(struct npf_writer *w, uint32_t dev,
				  uint32_t minor, uint64_t dram)
{
	struct npf_item_device d;
	struct npu_info info;

	memset(&d, 0, sizeof(d));
	memset(&info, 0, sizeof(info));
	d.dev = dev;
	d.info_size = sizeof(info);
	snprintf(d.path, sizeof(d.path), "/dev/npu%u", minor);
	info.version = NPU_INFO_VERSION;
	info.pe_count = 2;
	info.clock_hz = 1000000000;
	info.dram_size = dram;
	info.minor = minor;
	if (npf_writer_add(w, NPF_ITEM_DEVICE, &d, sizeof(d), &info,
			   sizeof(info)))
		abort();
}

/* A BO record of device @dev */
static inline void mem_gen_bo(struct npf_writer *w, uint32_t dev,
			      uint16_t type, uint32_t seq, int32_t pid,
			      uint64_t id, uint64_t addr, uint64_t size,
			      uint32_t kind, int32_t error, uint32_t reason,
			      uint64_t ns, uint64_t used)
{
	struct npf_item_record ir = { .dev = dev };
	struct npu_trace_rec_bo r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = type;
	r.hdr.size = sizeof(r);
	r.hdr.seq = seq;
	r.pid = pid;
	r.tid = type == NPU_TRACE_REC_BO_ALLOC ? pid + 1 : 0;
	r.bo_id = id;
	r.dev_addr = addr;
	r.size = size;
	r.kind = kind;
	r.error = error;
	r.reason = reason;
	r.host_ns = ns;
	r.dev_used = used;
	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &r, sizeof(r)))
		abort();
}

#define MEM_A	NPU_TRACE_REC_BO_ALLOC
#define MEM_F	NPU_TRACE_REC_BO_FREE

/* Write the trace described above to @path */
static inline void mem_gen_write(const char *path)
{
	struct npf_writer *w;

	if (npf_writer_open(path, 4096, &w))
		abort();
	if (npf_writer_add(w, NPF_ITEM_META, "cmdline\0memgen", 15, NULL, 0))
		abort();
	mem_gen_device(w, 0, 2, 1048576);
	mem_gen_device(w, 1, 7, 65536);
	mem_gen_bo(w, 0, MEM_A, 1, 100, 1, 0x400000, 65536,
		   NPU_BO_KIND_PROGRAM, 0, 0, MEM_US(1), 131072);
	mem_gen_bo(w, 1, MEM_A, 1, 100, 1, 0x400000, 8192,
		   NPU_BO_KIND_OTHER, 0, 0, MEM_US(1.5), 8192);
	mem_gen_bo(w, 0, MEM_A, 2, 200, 2, 0x420000, 32768,
		   NPU_BO_KIND_INPUT, 0, 0, MEM_US(2), 163840);
	mem_gen_bo(w, 1, MEM_F, 2, 100, 1, 0x400000, 8192,
		   NPU_BO_KIND_OTHER, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(2.5), 0);
	mem_gen_bo(w, 0, MEM_A, 3, 100, 3, 0x428000, 131072,
		   NPU_BO_KIND_SCRATCH, 0, 0, MEM_US(3), 294912);
	mem_gen_bo(w, 0, MEM_A, 4, 200, 0, 0, 1048576,
		   NPU_BO_KIND_SCRATCH, -ENOMEM, 0, MEM_US(4), 294912);
	mem_gen_bo(w, 0, MEM_F, 5, 200, 2, 0x420000, 32768,
		   NPU_BO_KIND_INPUT, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(5), 262144);
	mem_gen_bo(w, 0, MEM_A, 6, 300, 4, 0x410000, 16384,
		   NPU_BO_KIND_OUTPUT, 0, 0, MEM_US(6), 278528);
	mem_gen_bo(w, 0, MEM_F, 7, 100, 3, 0x428000, 131072,
		   NPU_BO_KIND_SCRATCH, 0, NPU_TRACE_BO_FREE_CLOSE, MEM_US(7), 147456);
	mem_gen_bo(w, 0, MEM_A, 8, 300, 0, 0, 8192,
		   NPU_BO_KIND_INPUT, -EDQUOT, 0, MEM_US(8), 147456);
	mem_gen_bo(w, 0, MEM_A, 9, 300, 5, 0x414000, 4096,
		   NPU_BO_KIND_OUTPUT, 0, 0, MEM_US(9), 151552);
	mem_gen_bo(w, 0, MEM_F, 10, 400, 99, 0x480000, 4096,
		   NPU_BO_KIND_OTHER, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(10), 147456);
	mem_gen_bo(w, 0, MEM_A, 11, 400, 7, 0x480000, 0,
		   NPU_BO_KIND_OTHER, 0, 0, MEM_US(10), 147456);
	mem_gen_bo(w, 0, MEM_F, 12, 300, 4, 0x410000, 16384,
		   NPU_BO_KIND_OUTPUT, 0, NPU_TRACE_BO_FREE_JOB, MEM_US(11), 131072);
	if (npf_writer_close(w))
		abort();
}

/* The trace above in a new temporary file; free() the path */
static inline char *mem_gen_trace(const char *name)
{
	char *path;

	if (asprintf(&path, "/tmp/npuprof-memory-%d-%s", (int)getpid(), name) < 0)
		abort();
	mem_gen_write(path);
	return path;
}

#endif /* MEMORY_GEN_H */
