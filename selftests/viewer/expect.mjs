// SPDX-License-Identifier: GPL-2.0-only
//
// expect.mjs - what the viewer test's trace holds, for the viewers'
// checks to compare with what each viewer imported: the trace that
// npuprof-viewer-gen writes (write_basic() of
// selftests/host/npuprof/chrome_gen.h), as `npuprof export --format
// chrome` must show it. Every time is an exact integer in ns on the
// host's CLOCK_MONOTONIC; the JSON carries them as µs with 3 decimals.
// Constant data, no state.

export const T0 = 5000000123;		// chrome_gen.h's T0

export const PID_HOST = 100;
export const PID_NPU3 = 1073741824;	// device tracks: 2^30 + device index
export const PID_NPUPROF = 1073741823;	// the capture session's own track

// pid -> process name, and [pid, tid] -> thread (track) name
export const processes = new Map([
	[PID_HOST, 'npu-classify'],
	[PID_NPU3, 'npu3'],
	[PID_NPUPROF, 'npuprof'],
]);
export const threads = [
	{ pid: PID_HOST, tid: 101, name: 'worker' },
	{ pid: PID_NPU3, tid: 2, name: 'PE 1' },
	{ pid: PID_NPU3, tid: 65536, name: 'queue 0' },
	{ pid: PID_NPUPROF, tid: 1, name: 'capture' },
];

// Every slice, with its nesting depth on its track and some of its args
export const slices = [
	{ pid: PID_NPUPROF, tid: 1, name: 'capture', cat: 'session',
	  ts: T0 - 1000000, dur: 1900000, depth: 0 },
	{ pid: PID_HOST, tid: 101, name: 'warm up', cat: 'label',
	  ts: T0 - 500, dur: 800500, depth: 0 },
	{ pid: PID_HOST, tid: 101, name: 'inference', cat: 'cpu',
	  ts: T0, dur: 700000, depth: 1 },
	{ pid: PID_HOST, tid: 101, name: 'submit', cat: 'cpu',
	  ts: T0 + 1000, dur: 2001, depth: 2,
	  args: { trace_id: '0123456789abcdeffedcba9876543210',
		  span_id: '0000000000000012', parent_id: '0000000000000011',
		  job_id: 7, npu: 3 } },
	{ pid: PID_HOST, tid: 101, name: 'wait', cat: 'cpu',
	  ts: T0 + 4000, dur: 595000, depth: 2 },
	{ pid: PID_NPU3, tid: 65536, name: 'queued', cat: 'queue',
	  ts: T0 + 2000, dur: 8000, depth: 0 },
	{ pid: PID_NPU3, tid: 2, name: 'exec', cat: 'npu',
	  ts: T0 + 10000, dur: 500000, depth: 0,
	  args: { job_id: 7, run_ns: 375000, iowait_ns: 125000,
		  total_ns: 500000, dma_bytes: 1000000 } },
	{ pid: PID_NPU3, tid: 2, name: 'CONV2D', cat: 'npu-op',
	  ts: T0 + 20000, dur: 200000, depth: 1 },
	{ pid: PID_NPU3, tid: 2, name: 'ADD', cat: 'npu-op',
	  ts: T0 + 230000, dur: 270000, depth: 1 },
];

// The one flow: from the submit span to the execution of its job
export const flows = [{ from: 'submit', to: 'exec' }];

// Whether a viewer's flows (@got: [{src, dst}], slice names) are these
export function flowsOk(got) {
	return got.length === flows.length &&
	       flows.every(f => got.some(g => g.src === f.from && g.dst === f.to));
}

// The check's text, with the known cause of a flow ending on an operator
export function flowsWhat(got) {
	const op = got.find(g => slices.some(s => s.name === g.dst && s.cat === 'npu-op'));
	return `a flow from submit to exec: ${JSON.stringify(got)}` +
	       (op ? `: the flow end ("f", bound to the enclosing slice) lies inside operator ${op.dst}` : '');
}

// Counters of the npu3 process: name, the key of their value, samples
export const counters = [
	{ pid: PID_NPU3, name: 'PE 1 DMA', key: 'MB/s',
	  samples: [[T0 + 10000, 2000], [T0 + 510000, 0]] },
	{ pid: PID_NPU3, name: 'PE 1 utilization', key: '%',
	  samples: [[5000000000, 50], [5001000000, 0]] },
];

// No loss and no causality violation: no instant event
export const instants = 0;

export const slice = name => slices.find(s => s.name === name);
