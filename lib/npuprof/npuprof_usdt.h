/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npuprof_usdt.h - the USDT probes of libnpu and libnpuprof: their names,
 * their arguments and their semaphores. The one place that defines them;
 * Documentation/npu/probes.rst describes them for users, and the eBPF
 * collector (tools/bpf) and the bpftrace recipes attach to them by the
 * names below. Not installed: the probes are an ABI of the shared
 * objects' ELF notes (readelf -n: "stapsdt"), not of a C header.
 *
 * Providers and probes. Every span of libnpu fires NAME_begin when it
 * starts and NAME_end when it ends, from one site each (lib/npu/usdt.c):
 *
 *   provider npu (libnpu.so, libnpu.a):
 *     run_begin, run_end                 npu_runner_run()
 *     inference_begin, inference_end     npu_runner_acquire() ..
 *                                        npu_inference_release()
 *     set_input_begin, set_input_end     npu_inference_set_input{,_u8}()
 *     get_output_begin, get_output_end   npu_inference_get_output{,_u8}()
 *     cpuop_begin, cpuop_end             a CPU operator: Quantize, Lower,
 *                                        Unlower, Dequantize (arg0 tells)
 *     submit_begin, submit_end           NPU_IOCTL_SUBMIT; the job id in
 *                                        submit_end's arg6
 *     wait_begin, wait_end               NPU_IOCTL_WAIT of a job (arg6)
 *   provider npuprof (libnpuprof.so, libnpuprof.a):
 *     region_begin, region_end           npuprof_region_begin()/_end()
 *
 * Arguments. Every probe passes eleven 64-bit unsigned integers (8@... in
 * the notes), the same fields in the same order, so that one BPF program
 * reads any of them. bpftrace 0.17 reads only arg0 .. arg5 (its x86_64
 * limit, for USDT too), so what its one-liners need comes first:
 *
 *   arg0  kind       enum npuprof_span_kind (npuprof.h); for cpuop_*:
 *                    6 Quantize, 7 Lower, 8 Unlower, 9 Dequantize
 *   arg1  span_id    unique in the process, never 0
 *   arg2  job_id     with NPUPROF_SPAN_F_JOB (submit_end, wait_*), else 0
 *   arg3  op_index   with NPUPROF_SPAN_F_OP (cpuop_*), else 0;
 *                    npuprof:record_*: the label, a const char * to a
 *                    NUL-terminated string (at most 255 bytes)
 *   arg4  start_ns   CLOCK_MONOTONIC at the span's start
 *   arg5  end_ns     CLOCK_MONOTONIC at its end; 0 in NAME_begin
 *   arg6  flags      NPUPROF_SPAN_F_* (JOB, OP, ERROR); ERROR only at
 *                    the end
 *   arg7  parent_id  the enclosing span's id, 0 for a root
 *   arg8  trace_hi   trace_id[0], the process's random trace prefix
 *   arg9  trace_lo   trace_id[1], the root span's id
 *   arg10 minor      with NPUPROF_SPAN_F_JOB: N of /dev/npuN
 *
 * A NAME_end probe alone thus carries a whole struct npuprof_span_rec but
 * for pid and tid (the BPF program's own) and name_id (the label's string
 * id, which a collector assigns itself from the label's text). The values are the ones the
 * library records in the same span when a session captures at the same
 * time: both come from the same slow path.
 *
 * Semaphores. Each library has one semaphore, shared by all its probes
 * (every PROVIDER_NAME_semaphore below is a name for it): the tracer
 * (uprobe ref_ctr_offset, libbpf, bpftrace) raises it while any probe of
 * the library is attached. The inline span hooks take the slow path when
 * a session captures OR the semaphore is nonzero, so span and trace ids
 * exist while a probe is attached even when no session runs. With nobody
 * attached a span site costs what it did before the probes (a load of the
 * semaphore more, in the same predictable branch) and a probe site, on the
 * slow path only, is a nop.
 */
#ifndef NPUPROF_USDT_H
#define NPUPROF_USDT_H

#include <stdint.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "npuprof.h"

/* The libraries' semaphores, in section .probes (hidden symbols). */
extern unsigned short npu_probes_semaphore;	/* libnpu */
extern unsigned short npuprof_probes_semaphore;	/* libnpuprof */

#define npu_run_begin_semaphore			npu_probes_semaphore
#define npu_run_end_semaphore			npu_probes_semaphore
#define npu_inference_begin_semaphore		npu_probes_semaphore
#define npu_inference_end_semaphore		npu_probes_semaphore
#define npu_set_input_begin_semaphore		npu_probes_semaphore
#define npu_set_input_end_semaphore		npu_probes_semaphore
#define npu_get_output_begin_semaphore		npu_probes_semaphore
#define npu_get_output_end_semaphore		npu_probes_semaphore
#define npu_cpuop_begin_semaphore		npu_probes_semaphore
#define npu_cpuop_end_semaphore			npu_probes_semaphore
#define npu_submit_begin_semaphore		npu_probes_semaphore
#define npu_submit_end_semaphore		npu_probes_semaphore
#define npu_wait_begin_semaphore		npu_probes_semaphore
#define npu_wait_end_semaphore			npu_probes_semaphore
#define npuprof_region_begin_semaphore		npuprof_probes_semaphore
#define npuprof_region_end_semaphore		npuprof_probes_semaphore

/* Nonzero while a tracer has a probe of the library attached. */
#define NPU_USDT_SEMAPHORE(sem)	__atomic_load_n(&(sem), __ATOMIC_RELAXED)

/* the eleven arguments of a span probe, from a struct npuprof_span_rec * */
#define NPU_USDT_ARGS_(r, a3)						\
	(uint64_t)(r)->kind, (uint64_t)(r)->span_id,			\
	(uint64_t)(r)->job_id, (uint64_t)(a3),				\
	(uint64_t)(r)->start_ns, (uint64_t)(r)->end_ns,			\
	(uint64_t)(r)->flags, (uint64_t)(r)->parent_id,			\
	(uint64_t)(r)->trace_id[0], (uint64_t)(r)->trace_id[1],	\
	(uint64_t)(r)->minor

#define NPU_USDT_CALL_(m, ...)	m(__VA_ARGS__)

/* npu:NAME (NAME_begin or NAME_end) of span record @r */
#define NPU_USDT_SPAN(name, r)						\
	NPU_USDT_CALL_(STAP_PROBE11, npu, name,				\
		       NPU_USDT_ARGS_(r, (r)->op_index))

/* npuprof:NAME (region_begin or region_end) of record @r, label @label */
#define NPU_USDT_RECORD(name, r, label)					\
	NPU_USDT_CALL_(STAP_PROBE11, npuprof, name,			\
		       NPU_USDT_ARGS_(r, (uintptr_t)(const char *)(label)))

#endif /* NPUPROF_USDT_H */
