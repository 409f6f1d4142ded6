// SPDX-License-Identifier: GPL-2.0-only
//
// expect.mjs - what the viewer test's traces hold, for the viewers'
// checks to compare with what each viewer imported: the traces that
// npuprof-viewer-gen writes (gen_trace.c), as `npuprof export --format
// chrome` must show them. Every time is an exact integer in ns on the
// host's CLOCK_MONOTONIC; the JSON carries them as µs with 3 decimals.
// A trace is { id, processes (pid -> name), threads, slices (with their
// depth and some args), flows, counters, instants (scope "p" or "t") }.
// Constant data, no state.

export const T0 = 5000000123;		// chrome_gen.h's T0

export const PID_HOST = 100;
export const PID_NPU = 1073741824;	// device tracks: 2^30 + device index
export const PID_NPUPROF = 1073741823;	// the capture session's own track

// pid -> process name, and [pid, tid] -> thread (track) name
const basicProcesses = new Map([
	[PID_HOST, 'npu-classify'],
	[PID_NPU, 'npu3'],
	[PID_NPUPROF, 'npuprof'],
]);
const basicThreads = [
	{ pid: PID_HOST, tid: 101, name: 'worker' },
	{ pid: PID_NPU, tid: 2, name: 'PE 1' },
	{ pid: PID_NPU, tid: 65536, name: 'queue 0' },
	{ pid: PID_NPUPROF, tid: 1, name: 'capture' },
];

// Every slice, with its nesting depth on its track and some of its args
const basicSlices = [
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
	{ pid: PID_NPU, tid: 65536, name: 'queued', cat: 'queue',
	  ts: T0 + 2000, dur: 8000, depth: 0 },
	{ pid: PID_NPU, tid: 2, name: 'exec', cat: 'npu',
	  ts: T0 + 10000, dur: 500000, depth: 0,
	  args: { job_id: 7, run_ns: 375000, iowait_ns: 125000,
		  total_ns: 500000, dma_bytes: 1000000 } },
	{ pid: PID_NPU, tid: 2, name: 'CONV2D', cat: 'npu-op',
	  ts: T0 + 20000, dur: 200000, depth: 1 },
	{ pid: PID_NPU, tid: 2, name: 'ADD', cat: 'npu-op',
	  ts: T0 + 230000, dur: 270000, depth: 1 },
];

// The one flow: from the submit span to the execution of its job
const basicFlows = [{ from: 'submit', to: 'exec' }];

// Counters of the npu3 process: name, the key of their value, samples
const basicCounters = [
	{ pid: PID_NPU, name: 'PE 1 DMA', key: 'MB/s',
	  samples: [[T0 + 10000, 2000], [T0 + 510000, 0]] },
	{ pid: PID_NPU, name: 'PE 1 utilization', key: '%',
	  samples: [[5000000000, 50], [5001000000, 0]] },
];

// The basic trace: write_basic() of chrome_gen.h
export const basic = {
	id: 'basic', processes: basicProcesses, threads: basicThreads,
	slices: basicSlices, flows: basicFlows, counters: basicCounters,
	instants: [],
};

// The loss trace: npuprof-viewer-gen --loss. Its executions have no
// submit span (lost): no flow.
export const loss = {
	id: 'loss',
	processes: new Map([[PID_HOST, 'pid 100'], [PID_NPU, 'npu0'],
			    [PID_NPUPROF, 'npuprof']]),
	threads: [
		{ pid: PID_HOST, tid: 102, name: 'feeder' },
		{ pid: PID_NPU, tid: 1, name: 'PE 0' },
		{ pid: PID_NPU, tid: 65536, name: 'queue 0' },
	],
	slices: [
		{ pid: PID_NPU, tid: 65536, name: 'queued', cat: 'queue',
		  ts: T0, dur: 10000, depth: 0 },
		{ pid: PID_NPU, tid: 1, name: 'exec', cat: 'npu',
		  ts: T0 + 10000, dur: 50000, depth: 0,
		  args: { job_id: 1, run_ns: 37500, iowait_ns: 12500 } },
		{ pid: PID_NPU, tid: 1, name: 'exec', cat: 'npu',
		  ts: T0 + 2000000, dur: 400000, depth: 0,
		  args: { job_id: 2, submit_ns: T0 + 3000000, violation: true } },
	],
	flows: [],
	counters: [
		{ pid: PID_HOST, name: 'host spans lost', key: 'count',
		  samples: [[T0 + 10000, 4]] },
		{ pid: PID_NPU, name: 'PE 0 DMA', key: 'MB/s',
		  samples: [[T0 + 10000, 0], [T0 + 60000, 0],
			    [T0 + 2000000, 0], [T0 + 2400000, 0]] },
		{ pid: PID_NPU, name: 'PE 0 utilization', key: '%',
		  samples: [[5000000000, 5], [5001000000, 0],
			    [5002000000, 40], [5003000000, 0]] },
		{ pid: PID_NPU, name: 'records lost (ring full)', key: 'count',
		  samples: [[T0 + 10000, 6], [T0 + 2000000, 8]] },
	],
	instants: [
		{ scope: 'p', pid: PID_NPU, name: 'records lost (ring full)',
		  ts: T0 + 10000, args: { count: 6, reason: 'ring-full' } },
		{ scope: 't', pid: PID_HOST, tid: 102, name: 'host spans lost',
		  ts: T0 + 10000, args: { count: 4 } },
		{ scope: 't', pid: PID_NPU, tid: 1, name: 'causality violation',
		  ts: T0 + 2000000, args: { job_id: 2, submit_ns: T0 + 3000000 } },
		{ scope: 'p', pid: PID_NPU, name: 'records lost (ring full)',
		  ts: T0 + 2000000, args: { count: 2, reason: 'ring-full' } },
	],
};

// The back-to-back trace: npuprof-viewer-gen --b2b, write_b2b() of
// chrome_gen.h, whose constants and durations these are. MobileNet-like
// inferences of process 100 on the 2 PEs of npu0 in turn, at 10 days of
// uptime, each execution exactly spanning its operators, each operator
// starting when the one before ends: in double, ts + dur of one lands on
// either side of the next one's ts unless the exporter sees to it
// (Documentation/npu/export.rst, "Slice ends"). An operator may be
// written half a ns short, which a viewer that reads ns by truncating
// reads 1 ns short (durMin), and an execution half a ns long (durMax;
// Perfetto truncates it back). Numbers are exact: below 2^53.
export const B2B_T0 = 864000123456789;
const B2B_EXECS = 8, B2B_OPS = 30, B2B_PES = 2;
const b2bDur = (j, k) => 1000 + (j * 7919 + k * 104729 + j * k * 13) % 299001;
const b2bGap = j => 20000 + j * 37;
const b2bOp = k => k === B2B_OPS - 3 ? 'AVGPOOL' : k === B2B_OPS - 2 ? 'FC' :
	k === B2B_OPS - 1 ? 'RESHAPE' : k % 2 ? 'DWCONV2D' : 'CONV2D';

function b2bSlices() {
	const out = [];
	let t = B2B_T0;
	for (let j = 0; j < B2B_EXECS; j++) {
		const tid = 1 + j % B2B_PES, start = t, ops = [];
		for (let k = 0; k < B2B_OPS; k++) {
			const d = b2bDur(j, k);
			ops.push({ pid: PID_NPU, tid, name: b2bOp(k), cat: 'npu-op',
				   ts: t, dur: d, durMin: d - 1, depth: 1,
				   args: { job_id: j + 1, op_index: k } });
			t += d;
		}
		out.push({ pid: PID_NPU, tid: 65536, name: 'queued', cat: 'queue',
			   ts: start - 2000, dur: 2000, depth: 0 },
			 { pid: PID_NPU, tid, name: 'exec', cat: 'npu', ts: start,
			   dur: t - start, durMax: t - start + 1, depth: 0,
			   args: { job_id: j + 1, n_ops: B2B_OPS } },
			 ...ops);
		t += b2bGap(j);
	}
	return out;
}

export const b2b = {
	id: 'b2b',
	processes: new Map([[PID_NPU, 'npu0'], [PID_NPUPROF, 'npuprof']]),
	threads: [
		{ pid: PID_NPU, tid: 1, name: 'PE 0' },
		{ pid: PID_NPU, tid: 2, name: 'PE 1' },
		{ pid: PID_NPU, tid: 65536, name: 'queue 0' },
	],
	slices: b2bSlices(),
	flows: [],
	counters: [],	// utilization and DMA: not checked here
	instants: [],
	// catapult's times are doubles of ms: 1/8 ns at 10 days
	catapultTol: 0.25,
	execs: B2B_EXECS, ops: B2B_OPS, pes: B2B_PES,
};

export const traces = { basic, loss, b2b };

// The slice of @trace named @name (the first)
export const slice = (trace, name) => trace.slices.find(s => s.name === name);

// Whether @dur (ns) is slice @w's, within @tol: its dur, or down to its
// durMin or up to its durMax where the exporter may write those
export const durOk = (dur, w, tol) =>
	dur >= (w.durMin ?? w.dur) - tol && dur <= (w.durMax ?? w.dur) + tol;

// Whether a viewer's flows (@got: [{src, dst}], slice names) are @flows
export function flowsOk(flows, got) {
	return got.length === flows.length &&
	       flows.every(f => got.some(g => g.src === f.from && g.dst === f.to));
}

// The check's text, with the known cause of a flow ending on an operator
export function flowsWhat(trace, got) {
	const op = got.find(g => trace.slices.some(s => s.name === g.dst && s.cat === 'npu-op'));
	const want = trace.flows.map(f => `${f.from} -> ${f.to}`).join(', ') || 'none';
	return `flows: ${want}: ${JSON.stringify(got)}` +
	       (op ? `: the flow end ("f", bound to the enclosing slice) lies inside operator ${op.dst}` : '');
}
