/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libnpu.h - NPU runtime: devices, buffers, models, runner and CPU ops;
 * the netlink control plane (npu_nl_*: discovery, statistics, events).
 *
 * Conventions (Documentation/npu/libnpu.rst):
 *  - every object is an opaque handle created by a _create, _open or _load
 *    function and destroyed by the matching _free or _close function, which
 *    accepts NULL;
 *  - functions returning int return 0 (or a count) on success and a negative
 *    errno value on failure; errno is not used;
 *  - the library has no global state; objects of different devices are
 *    independent; a device, a model and a runner may be shared by threads
 *    as documented per function.
 */
#ifndef LIBNPU_H
#define LIBNPU_H

#include <stddef.h>
#include <stdint.h>

#include <linux/npu.h>
#include <linux/npu_netlink.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * LIBNPU_API marks every function of this header: the library is built
 * with -fvisibility=hidden, so a function is exported only when it is
 * declared here (and listed by name in libnpu.map).
 */
#ifndef LIBNPU_API
#define LIBNPU_API __attribute__((visibility("default")))
#endif

struct npu_device;
struct npu_buffer;
struct npu_model;
struct npu_runner;
struct npu_inference;

/* ------------------------------------------------------------------ */
/* Devices                                                              */
/* ------------------------------------------------------------------ */

/**
 * npu_device_open() - open an NPU character device
 * @path: device node, e.g. "/dev/npu0"
 * @dev: out: the device handle
 *
 * Queries NPU_IOCTL_GET_INFO once. A device may be used from several
 * threads at once.
 *
 * Return: 0; -EPROTONOSUPPORT when the driver reports another uapi version
 * than the NPU_INFO_VERSION this library was built with; or -errno of
 * open() or the ioctl.
 */
LIBNPU_API
int npu_device_open(const char *path, struct npu_device **dev);

/**
 * npu_device_open_index() - open /dev/npu<index>
 * @index: minor number N of /dev/npuN
 * @dev: out: the device handle
 *
 * Return: as npu_device_open().
 */
LIBNPU_API
int npu_device_open_index(unsigned int index, struct npu_device **dev);

/**
 * npu_device_close() - close a device; all its buffers and runners must
 * have been freed before
 * @dev: the device, or NULL
 */
LIBNPU_API
void npu_device_close(struct npu_device *dev);

/**
 * npu_device_info() - the device's NPU_IOCTL_GET_INFO answer
 * @dev: the device
 *
 * Return: pointer valid until npu_device_close().
 */
LIBNPU_API
const struct npu_info *npu_device_info(const struct npu_device *dev);

/**
 * npu_device_fd() - the file descriptor of the device, for poll()
 * @dev: the device
 *
 * Return: the fd, owned by @dev.
 */
LIBNPU_API
int npu_device_fd(const struct npu_device *dev);

/* ------------------------------------------------------------------ */
/* Buffers                                                              */
/* ------------------------------------------------------------------ */

/**
 * npu_buffer_create() - allocate a buffer in device memory
 * @dev: the device
 * @size: bytes, > 0
 * @flags: NPU_BO_* of linux/npu.h
 * @buf: out: the buffer; its memory is zeroed
 *
 * Return: 0, -EINVAL for size 0, -ENOMEM, or -errno of the ioctl.
 */
LIBNPU_API
int npu_buffer_create(struct npu_device *dev, size_t size, uint32_t flags,
		      struct npu_buffer **buf);

/**
 * npu_buffer_map() - map the buffer into this process (once; later calls
 * return the same mapping)
 * @buf: the buffer
 * @addr: out: start of the mapping, npu_buffer_size() bytes
 *
 * Return: 0 or -errno of mmap().
 */
LIBNPU_API
int npu_buffer_map(struct npu_buffer *buf, void **addr);

/**
 * npu_buffer_size() - bytes requested at creation
 * @buf: the buffer
 *
 * Return: the size passed to npu_buffer_create().
 */
LIBNPU_API
size_t npu_buffer_size(const struct npu_buffer *buf);

/**
 * npu_buffer_handle() - the driver handle, for struct npu_job_desc.bufs
 * @buf: the buffer
 *
 * Return: the handle NPU_IOCTL_BO_CREATE returned.
 */
LIBNPU_API
uint32_t npu_buffer_handle(const struct npu_buffer *buf);

/**
 * npu_buffer_dev_addr() - device address of the buffer
 * @buf: the buffer
 *
 * Return: the address NPU_IOCTL_BO_CREATE returned.
 */
LIBNPU_API
uint64_t npu_buffer_dev_addr(const struct npu_buffer *buf);

/**
 * npu_buffer_free() - unmap and release the buffer
 * @buf: the buffer, or NULL
 */
LIBNPU_API
void npu_buffer_free(struct npu_buffer *buf);

/* ------------------------------------------------------------------ */
/* Models (Documentation/npu/model.rst)                                */
/* ------------------------------------------------------------------ */

/**
 * struct npu_tensor_desc - host view of a model input or output
 * @name: NUL-terminated name
 * @ndim: 1..4
 * @dims: logical dims; 4-D tensors are N, H, W, C; unused dims are 1
 * @count: elements of the host (plain row-major) array
 * @scale: real = (q - zero_point) * scale
 * @zero_point: 0..255
 * @layout: NPU_LAYOUT_* of the device tensor
 * @slot: buffer slot of the device tensor
 * @offset: byte offset of the device tensor in its slot
 * @dev_size: bytes of the device tensor
 */
struct npu_tensor_desc {
	char name[16];
	uint32_t ndim;
	uint32_t dims[4];
	size_t count;
	float scale;
	int32_t zero_point;
	uint32_t layout;
	uint32_t slot;
	uint32_t offset;
	size_t dev_size;
};

/**
 * npu_model_load() - read and completely validate a model file
 * @path: file name
 * @model: out: the model
 * @err: buffer for a one-line error message, or NULL; the message starts
 *	with @path
 * @errlen: bytes of @err
 *
 * Touches no device. Every check of model.rst is made here, including the
 * whole program against the slot plan, so that nothing malformed ever
 * reaches a device.
 *
 * Return: 0; -errno of open()/read(); -EBADMSG when the file is truncated
 * or its checksum does not match; -ENOEXEC on a bad magic;
 * -EPROTONOSUPPORT on an unknown version; -EFBIG when it is larger than
 * NPU_MODEL_MAX_FILE; -ENOMEM; -EINVAL for a NULL argument, a file that is
 * not a regular file, or any other malformation.
 */
LIBNPU_API
int npu_model_load(const char *path, struct npu_model **model,
		   char *err, size_t errlen);

/**
 * npu_model_load_mem() - as npu_model_load(), from memory (copied)
 * @data: the file image
 * @size: bytes of @data
 * @model: out: the model
 * @err: buffer for a one-line error message, or NULL
 * @errlen: bytes of @err
 *
 * Return: as npu_model_load().
 */
LIBNPU_API
int npu_model_load_mem(const void *data, size_t size, struct npu_model **model,
		       char *err, size_t errlen);

/**
 * npu_model_free() - free a model
 * @model: the model, or NULL; runners using it must have been freed
 */
LIBNPU_API
void npu_model_free(struct npu_model *model);

/**
 * npu_model_name() - the model's name
 * @model: the model
 *
 * Return: the NUL-terminated name, valid while @model lives.
 */
LIBNPU_API
const char *npu_model_name(const struct npu_model *model);

/**
 * npu_model_num_inputs() - number of inputs
 * @model: the model
 *
 * Return: 1 or more.
 */
LIBNPU_API
unsigned int npu_model_num_inputs(const struct npu_model *model);

/**
 * npu_model_num_outputs() - number of outputs
 * @model: the model
 *
 * Return: 1 or more.
 */
LIBNPU_API
unsigned int npu_model_num_outputs(const struct npu_model *model);

/**
 * npu_model_input() - describe input @idx
 * @model: the model
 * @idx: input index
 *
 * Return: descriptor valid while @model lives, or NULL if @idx is out of
 * range.
 */
LIBNPU_API
const struct npu_tensor_desc *npu_model_input(const struct npu_model *model,
					      unsigned int idx);

/**
 * npu_model_output() - describe output @idx
 * @model: the model
 * @idx: output index
 *
 * Return: as npu_model_input().
 */
LIBNPU_API
const struct npu_tensor_desc *npu_model_output(const struct npu_model *model,
					       unsigned int idx);

/**
 * npu_model_num_slots() - buffer slots of a job of this model
 * @model: the model
 *
 * Return: 2..NPU_MODEL_MAX_SLOTS.
 */
LIBNPU_API
unsigned int npu_model_num_slots(const struct npu_model *model);

/**
 * npu_model_slot() - kind and size of slot @idx
 * @model: the model
 * @idx: slot index
 * @kind: out: NPU_MODEL_SLOT_* of npu_model_file.h, or NULL
 * @size: out: bytes, or NULL
 *
 * Return: 0 or -EINVAL if @idx is out of range.
 */
LIBNPU_API
int npu_model_slot(const struct npu_model *model, unsigned int idx,
		   uint32_t *kind, size_t *size);

/**
 * npu_model_const_image() - contents of slot 0 (constants and program)
 * @model: the model
 * @size: out: bytes of the image (<= the slot size; the rest is zero), or
 *	NULL
 * @prog_offset: out: offset of the program in slot 0, or NULL
 * @prog_size: out: bytes of the program, or NULL
 *
 * Return: the image, valid while @model lives.
 */
LIBNPU_API
const void *npu_model_const_image(const struct npu_model *model, size_t *size,
				  uint32_t *prog_offset, uint32_t *prog_size);

/**
 * npu_model_program() - the model's program, as the device reads it
 * @model: the model
 * @size: out: bytes of the program, or NULL
 *
 * The program of Documentation/npu/program.rst (struct npu_prog_hdr, then
 * its tensor and operator tables at the header's offsets), checked by the
 * loader; the same bytes as npu_model_const_image() at @prog_offset. Its
 * constant tensors (buf 0) refer to offsets in the constant image.
 *
 * Return: the program, 8-byte aligned, valid while @model lives.
 */
LIBNPU_API
const void *npu_model_program(const struct npu_model *model, size_t *size);

/**
 * npu_model_layers() - the model's layer table
 * @model: the model
 * @table: out: the table (include/npu/npu_model_layers.h: a struct
 *	npu_layers_hdr, one struct npu_layer_desc per program operator, the
 *	strings), checked by the loader with npu_layers_check(); or NULL
 * @size: out: its bytes, or NULL
 *
 * The table is valid while @model lives.
 *
 * Return: 0, or -ENOENT when the model file has none (no
 * NPU_MODEL_F_LAYERS).
 */
LIBNPU_API
int npu_model_layers(const struct npu_model *model, const void **table,
		     size_t *size);

/**
 * npu_model_find_layer() - the operators of a layer, by name
 * @model: the model
 * @name: the layer's name (ONNX: the node name), compared exactly
 * @first_op: out: index of its first operator in the program, or NULL
 * @n_ops: out: how many consecutive operators carry @name from there
 *	(1 or more), or NULL
 *
 * A source node may become several device operators; they are
 * consecutive. Should the name occur again after another layer, the first
 * run is the one returned.
 *
 * Return: 0; -ENOENT when the model has no layer table or no layer @name;
 * -EINVAL for a NULL @name.
 */
LIBNPU_API
int npu_model_find_layer(const struct npu_model *model, const char *name,
			 unsigned int *first_op, unsigned int *n_ops);

/* ------------------------------------------------------------------ */
/* Runner                                                               */
/* ------------------------------------------------------------------ */

/**
 * enum npu_submit_path - how a runner hands jobs to the driver
 * @NPU_SUBMIT_AUTO: io_uring when the driver and the kernel offer it
 *	(probed once per device), else the ioctls
 * @NPU_SUBMIT_IOCTL: NPU_IOCTL_SUBMIT and NPU_IOCTL_WAIT
 * @NPU_SUBMIT_URING: NPU_URING_CMD_SUBMIT commands on an io_uring ring
 *	of the runner's, whose CQEs carry the completions
 *	(Documentation/npu/libnpu.rst, "Submission paths")
 *
 * Both paths give the same results, job ids, trace records and host spans.
 */
enum npu_submit_path {
	NPU_SUBMIT_AUTO,
	NPU_SUBMIT_IOCTL,
	NPU_SUBMIT_URING,
};

/* Default of npu_runner_opts.contexts */
#define NPU_RUNNER_DEFAULT_CONTEXTS	2

/**
 * struct npu_runner_opts - how a runner schedules inferences
 * @sz: sizeof(struct npu_runner_opts); set by npu_runner_opts_init(). A
 *	program built against an older, smaller struct keeps working (the
 *	fields it lacks take their defaults); a newer, larger one is
 *	accepted when every byte this version does not know is zero.
 * @contexts: inferences that may be in flight at once, 1..64 (0: the
 *	default, NPU_RUNNER_DEFAULT_CONTEXTS). Each context owns its own
 *	input, output and scratch buffers.
 * @n_pes: entries in @pes; 0 submits every job with NPU_PE_ANY
 * @pes: PEs to use round-robin, each < npu_info.pe_count
 * @submit: enum npu_submit_path; NPU_SUBMIT_URING fails the runner's
 *	creation with -EOPNOTSUPP where io_uring submission is not offered
 *
 * Initialize with npu_runner_opts_init(), then set fields, as libbpf's
 * and libnpuprof's options structs.
 */
struct npu_runner_opts {
	size_t sz;
	unsigned int contexts;
	unsigned int n_pes;
	uint32_t pes[16];
	unsigned int submit;
};

/**
 * npu_runner_opts_init() - fill @opts with the defaults
 * @opts: the options to initialize
 *
 * Sets @sz, contexts NPU_RUNNER_DEFAULT_CONTEXTS, submit NPU_SUBMIT_AUTO,
 * and every other field to 0.
 */
LIBNPU_API
void npu_runner_opts_init(struct npu_runner_opts *opts);

/*
 * How a job went is the uapi's struct npu_job_result (linux/npu.h): the
 * job id, its NPU_JOB_* status, the PE, the failing operator, the device
 * ticks at start and end and the driver's CLOCK_MONOTONIC times of
 * submission and completion; the same struct whichever path the job took.
 */

/**
 * npu_runner_create() - prepare a model for running on a device
 * @dev: the device
 * @model: a loaded model; must outlive the runner
 * @opts: scheduling options (npu_runner_opts_init() first), or NULL for
 *	the defaults
 * @runner: out: the runner
 *
 * Uploads slot 0 (constants and program) once, and allocates the per-
 * inference buffers of @opts->contexts contexts. A runner may be used by
 * several threads at once.
 *
 * Return: 0; -EINVAL for bad options, among them an @opts->sz smaller
 * than the size field itself (an opts struct not initialized); -E2BIG when
 * @opts->sz is larger than this library's struct and a byte it does not
 * know is not zero; -ENOMEM; -EOPNOTSUPP (see @opts->submit); or -errno
 * of the driver.
 */
LIBNPU_API
int npu_runner_create(struct npu_device *dev, const struct npu_model *model,
		      const struct npu_runner_opts *opts,
		      struct npu_runner **runner);

/**
 * npu_runner_submit_path() - the path a runner submits jobs through
 * @runner: the runner
 *
 * Return: NPU_SUBMIT_IOCTL or NPU_SUBMIT_URING (never NPU_SUBMIT_AUTO).
 */
LIBNPU_API
enum npu_submit_path npu_runner_submit_path(const struct npu_runner *runner);

/**
 * npu_runner_free() - free a runner; no inference may be acquired
 * @runner: the runner, or NULL
 */
LIBNPU_API
void npu_runner_free(struct npu_runner *runner);

/**
 * npu_runner_acquire() - take a free context for one inference
 * @runner: the runner
 * @inf: out: the inference context
 *
 * Blocks until a context is free. The context belongs to the caller until
 * npu_inference_release(); one thread at a time may use it.
 *
 * Return: 0.
 */
LIBNPU_API
int npu_runner_acquire(struct npu_runner *runner, struct npu_inference **inf);

/**
 * npu_inference_set_input() - Quantize and Lower a float input
 * @inf: the inference
 * @idx: input index
 * @data: plain row-major (NHWC) floats
 * @count: elements of @data, must equal the descriptor's count
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_inference_set_input(struct npu_inference *inf, unsigned int idx,
			    const float *data, size_t count);

/**
 * npu_inference_set_input_u8() - Lower an already quantized input
 * @inf: the inference
 * @idx: input index
 * @data: plain row-major (NHWC) quantized values
 * @count: elements of @data, must equal the descriptor's count
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_inference_set_input_u8(struct npu_inference *inf, unsigned int idx,
			       const uint8_t *data, size_t count);

/**
 * npu_inference_submit() - queue the job on the device
 * @inf: the inference, with all inputs set
 *
 * Chooses the PE (round-robin over the runner's PEs, or NPU_PE_ANY).
 *
 * Return: 0, -EBUSY if already submitted and not waited for, or -errno of
 * NPU_IOCTL_SUBMIT.
 */
LIBNPU_API
int npu_inference_submit(struct npu_inference *inf);

/**
 * npu_inference_wait() - wait for the submitted job
 * @inf: the inference
 * @timeout_ns: relative timeout; < 0 waits forever, 0 polls. Signals
 *	do not restart it: after one, the wait goes on for what is left.
 * @res: out: the job's result, or NULL
 *
 * Return: 0 when the job completed with NPU_JOB_OK; -EIO when it completed
 * with another status (see @res); -ETIMEDOUT (the job stays submitted:
 * wait again); -EINVAL if nothing was submitted; -errno of NPU_IOCTL_WAIT,
 * or of the io_uring command (its CQE).
 */
LIBNPU_API
int npu_inference_wait(struct npu_inference *inf, int64_t timeout_ns,
		       struct npu_job_result *res);

/**
 * npu_inference_get_output() - Unlower and Dequantize an output
 * @inf: the inference, after a successful wait
 * @idx: output index
 * @data: out: plain row-major (NHWC) floats
 * @count: elements of @data, must equal the descriptor's count
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_inference_get_output(struct npu_inference *inf, unsigned int idx,
			     float *data, size_t count);

/**
 * npu_inference_get_output_u8() - Unlower an output, still quantized
 * @inf: the inference, after a successful wait
 * @idx: output index
 * @data: out: plain row-major (NHWC) quantized values
 * @count: elements of @data, must equal the descriptor's count
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_inference_get_output_u8(struct npu_inference *inf, unsigned int idx,
				uint8_t *data, size_t count);

/**
 * npu_inference_slot() - the mapped buffer of one slot of this context
 * @inf: the inference
 * @slot: slot index (slot 0 is the runner's shared constant buffer)
 * @size: out: bytes of the slot
 *
 * For checking a device result bit for bit; read-only use.
 *
 * Return: the mapping, or NULL if @slot is out of range.
 */
LIBNPU_API
const void *npu_inference_slot(const struct npu_inference *inf,
			       unsigned int slot, size_t *size);

/**
 * npu_inference_release() - give the context back to the runner; waits
 * for a submitted job first
 * @inf: the inference, or NULL
 *
 * The next owner of the context cannot read this inference's outputs:
 * npu_inference_get_output() fails until its own job has completed.
 */
LIBNPU_API
void npu_inference_release(struct npu_inference *inf);

/**
 * npu_runner_run() - synchronous inference of a 1-input, 1-output model
 * @runner: the runner
 * @input: plain row-major floats of input 0
 * @in_count: elements of @input
 * @output: out: plain row-major floats of output 0
 * @out_count: elements of @output
 * @res: out: the job's result, or NULL
 *
 * acquire, set_input, submit, wait, get_output, release. Thread-safe.
 *
 * Return: -EINVAL if the model has not exactly one input and one output;
 * else as the steps.
 */
LIBNPU_API
int npu_runner_run(struct npu_runner *runner, const float *input,
		   size_t in_count, float *output, size_t out_count,
		   struct npu_job_result *res);

/* ------------------------------------------------------------------ */
/* CPU operators: the host-side steps of a model                         */
/* ------------------------------------------------------------------ */

/**
 * npu_quantize() - Quantize: float -> uint8 (ONNX QuantizeLinear)
 * @in: real values
 * @out: out: q = saturate(round_half_even(in / scale) + zero_point) to
 *	0..255; NaN gives the zero point
 * @count: elements
 * @scale: > 0 and finite
 * @zero_point: 0..255
 *
 * Return: 0 or -EINVAL for a bad scale or zero point.
 */
LIBNPU_API
int npu_quantize(const float *in, uint8_t *out, size_t count, float scale,
		 int32_t zero_point);

/**
 * npu_dequantize() - Dequantize: uint8 -> float, (q - zero_point) * scale
 * @in: quantized values
 * @out: out: real values
 * @count: elements
 * @scale: the scale
 * @zero_point: 0..255
 *
 * Return: 0 or -EINVAL for a bad zero point.
 */
LIBNPU_API
int npu_dequantize(const uint8_t *in, float *out, size_t count, float scale,
		   int32_t zero_point);

/**
 * npu_nchwc16_size() - bytes of an NCHWC16 tensor of logical @dims (NHWC)
 * @dims: N, H, W, C
 *
 * Return: N * ceil(C / 16) * H * W * 16, or 0 on overflow.
 */
LIBNPU_API
size_t npu_nchwc16_size(const uint32_t dims[4]);

/**
 * npu_lower() - Lower: uint8 NHWC -> the device layout
 * @in: plain row-major NHWC, N * H * W * C bytes
 * @out: out: the tensor in @layout
 * @out_size: bytes of @out; at least the layout's size
 * @dims: N, H, W, C
 * @layout: NPU_LAYOUT_NCHWC16 or NPU_LAYOUT_PLAIN (a copy)
 * @pad: value of padding lanes (the tensor's zero point)
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_lower(const uint8_t *in, uint8_t *out, size_t out_size,
	      const uint32_t dims[4], uint32_t layout, uint8_t pad);

/**
 * npu_unlower() - Unlower: device layout -> uint8 NHWC
 * @in: the tensor in @layout
 * @in_size: bytes of @in; at least the layout's size
 * @out: out: plain row-major NHWC, N * H * W * C bytes
 * @dims: N, H, W, C
 * @layout: NPU_LAYOUT_NCHWC16 or NPU_LAYOUT_PLAIN (a copy)
 *
 * Return: 0 or -EINVAL.
 */
LIBNPU_API
int npu_unlower(const uint8_t *in, size_t in_size, uint8_t *out,
		const uint32_t dims[4], uint32_t layout);

/**
 * npu_quantize_multiplier() - real factor -> {Q31 multiplier, shift}
 * @real: factor, >= 0 and finite
 * @multiplier: out: in [0, 2^31)
 * @shift: out: in [-31, 30]; real ~= multiplier * 2^(shift - 31)
 *
 * As TFLite's QuantizeMultiplier. Factors too small for the range become
 * {0, 0}.
 *
 * Return: 0, or -EINVAL if @real is negative, not finite or >= 2^30.
 */
LIBNPU_API
int npu_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift);

/**
 * npu_crc32() - CRC-32 (IEEE 802.3, zlib's crc32())
 * @crc: previous value, 0 to start
 * @data: bytes
 * @len: bytes of @data
 *
 * Return: the updated CRC.
 */
LIBNPU_API
uint32_t npu_crc32(uint32_t crc, const void *data, size_t len);

/* ------------------------------------------------------------------ */
/* Control plane: the generic netlink family "npu"                      */
/* ------------------------------------------------------------------ */

/*
 * Device discovery, statistics and events of every NPU, without opening a
 * device (Documentation/npu/netlink.rst). Needs libnl-genl-3 at link time.
 * A handle is used by one thread at a time.
 */
struct npu_nl;

/** NPU_NL_MAX_PES - most PEs a device reports (NPU_HW_MAX_PES) */
#define NPU_NL_MAX_PES	16

/**
 * struct npu_nl_dev - one device, from NPU_CMD_DEV_GET
 * @index: N of /dev/npuN
 * @name: "npuN"
 * @pci_addr: PCI address, "DDDD:BB:SS.F"
 * @hw_version: hardware interface version, major << 16 | minor
 * @pe_count: processing elements
 * @clock_hz: device clock frequency
 * @dram_size: bytes of device memory
 * @trace_levels: bit n set when trace level n is supported
 * @trace_max_pages: most data pages of one trace ring
 * @state: enum npu_dev_state (NPU_DEV_STATE_ALIVE, _DEAD, _REMOVED)
 */
struct npu_nl_dev {
	uint32_t index;
	char name[16];
	char pci_addr[32];
	uint32_t hw_version;
	uint32_t pe_count;
	uint32_t clock_hz;
	uint64_t dram_size;
	uint32_t trace_levels;
	uint32_t trace_max_pages;
	uint32_t state;
};

/**
 * struct npu_nl_pe_stats - counters of one PE
 * @jobs_completed: jobs completed with NPU_JOB_OK
 * @jobs_failed: jobs completed with any other status
 * @busy_ns: sum of the jobs' device time in ns
 * @dma_bytes: bytes moved by DMA (jobs run while tracing was on)
 * @macs: multiply-accumulates (likewise)
 */
struct npu_nl_pe_stats {
	uint64_t jobs_completed;
	uint64_t jobs_failed;
	uint64_t busy_ns;
	uint64_t dma_bytes;
	uint64_t macs;
};

/**
 * struct npu_nl_mem_stats - device memory of one device
 * @used: bytes held by buffers now
 * @peak: highest @used since the device was bound or the peak was reset
 *	(sysfs memory/peak)
 * @allocs: buffers allocated
 * @frees: buffers whose memory was freed
 * @fail_nomem: buffer creations that failed with ENOMEM
 * @fail_quota: buffer creations that failed with EDQUOT
 * @free: bytes free now
 * @largest_free: bytes of the largest free extent now
 */
struct npu_nl_mem_stats {
	uint64_t used;
	uint64_t peak;
	uint64_t allocs;
	uint64_t frees;
	uint64_t fail_nomem;
	uint64_t fail_quota;
	uint64_t free;
	uint64_t largest_free;
};

/**
 * struct npu_nl_stats - counters of one device, from NPU_CMD_STATS_GET
 * @index: the device
 * @resets: device resets done by the driver
 * @trace_records: records written to the device's trace rings
 * @trace_lost: records the rings lost
 * @pe_count: valid entries of @pe
 * @pe: per PE, by PE index
 * @has_mem: 1 when the driver reported @mem (a driver older than the memory
 *	counters does not)
 * @mem: device memory, read at one instant
 *
 * Every counter starts at 0 when the device is bound and only grows, but
 * for the memory figures that say what is now (@mem.used, @mem.free,
 * @mem.largest_free) and @mem.peak, which can be reset.
 */
struct npu_nl_stats {
	uint32_t index;
	uint64_t resets;
	uint64_t trace_records;
	uint64_t trace_lost;
	uint32_t pe_count;
	struct npu_nl_pe_stats pe[NPU_NL_MAX_PES];
	uint32_t has_mem;
	struct npu_nl_mem_stats mem;
};

/**
 * struct npu_nl_event - one event of the "events" group
 * @type: NPU_CMD_*_NTF (uapi/linux/npu_netlink.h)
 * @dev_index: the device
 * @time_ns: CLOCK_MONOTONIC time of the event (0 for device add/remove)
 * @job_id: the job (job error, job timeout)
 * @pe: the job's PE
 * @status: the job's NPU_JOB_* status
 * @pid: the job's process, in the initial PID namespace
 * @ring_id: the trace ring that lost records (trace overflow)
 * @lost: records that ring lost so far
 * @dev: the device (device add and remove)
 */
struct npu_nl_event {
	uint32_t type;
	uint32_t dev_index;
	uint64_t time_ns;
	uint64_t job_id;
	uint32_t pe;
	uint32_t status;
	uint32_t pid;
	uint64_t ring_id;
	uint64_t lost;
	struct npu_nl_dev dev;
};

/**
 * npu_nl_open() - connect to the family "npu"
 * @nl: out: the handle
 *
 * Return: 0, -ENOENT when the family is not registered (npu.ko is not
 * loaded), -ENOMEM, or -ECONNREFUSED when no netlink socket can be made.
 */
LIBNPU_API
int npu_nl_open(struct npu_nl **nl);

/**
 * npu_nl_close() - close a handle and its sockets
 * @nl: the handle, or NULL
 */
LIBNPU_API
void npu_nl_close(struct npu_nl *nl);

/**
 * npu_nl_extack() - the kernel's message about the last failed request
 * @nl: the handle
 *
 * Return: the extended ack's text, "" if the kernel sent none; valid until
 * the next request.
 */
LIBNPU_API
const char *npu_nl_extack(const struct npu_nl *nl);

/**
 * npu_nl_dev_list() - every bound device, in index order (a dump)
 * @nl: the handle
 * @devs: out: up to @max devices
 * @max: room in @devs (0 to count only)
 *
 * Return: the number of devices, which may exceed @max (then only @max
 * were stored), or a negative errno.
 */
LIBNPU_API
int npu_nl_dev_list(struct npu_nl *nl, struct npu_nl_dev *devs,
		    unsigned int max);

/**
 * npu_nl_dev_get() - one device by index
 * @nl: the handle
 * @index: N of /dev/npuN
 * @dev: out: the device
 *
 * Return: 0, -ENODEV when no device has that index, or a negative errno.
 */
LIBNPU_API
int npu_nl_dev_get(struct npu_nl *nl, uint32_t index, struct npu_nl_dev *dev);

/**
 * npu_nl_stats_get() - the counters of one device
 * @nl: the handle
 * @index: N of /dev/npuN
 * @st: out: the counters
 *
 * Return: 0, -ENODEV when no device has that index, or a negative errno.
 */
LIBNPU_API
int npu_nl_stats_get(struct npu_nl *nl, uint32_t index,
		     struct npu_nl_stats *st);

/**
 * npu_nl_stats_list() - the counters of every device (a dump)
 * @nl: the handle
 * @st: out: up to @max devices' counters, in index order
 * @max: room in @st
 *
 * Return: the number of devices, which may exceed @max, or a negative
 * errno.
 */
LIBNPU_API
int npu_nl_stats_list(struct npu_nl *nl, struct npu_nl_stats *st,
		      unsigned int max);

/**
 * npu_nl_subscribe() - join the "events" group
 * @nl: the handle
 *
 * Events arrive on a socket of their own (npu_nl_event_fd()), apart from
 * the replies to requests. Calling it again does nothing.
 *
 * Return: 0 or a negative errno.
 */
LIBNPU_API
int npu_nl_subscribe(struct npu_nl *nl);

/**
 * npu_nl_event_fd() - the events' file descriptor, for poll()
 * @nl: the handle, subscribed
 *
 * Return: the fd (owned by @nl), or -EINVAL before npu_nl_subscribe().
 */
LIBNPU_API
int npu_nl_event_fd(const struct npu_nl *nl);

/**
 * npu_nl_event_read() - the next event, without blocking
 * @nl: the handle, subscribed
 * @ev: out: the event
 *
 * Return: 0, -EAGAIN when none is pending, -ENOBUFS when the socket
 * overflowed and events were lost (reading may go on), -EINVAL before
 * npu_nl_subscribe(), or another negative errno.
 */
LIBNPU_API
int npu_nl_event_read(struct npu_nl *nl, struct npu_nl_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* LIBNPU_H */
