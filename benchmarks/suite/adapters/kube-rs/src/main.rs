// SPDX-License-Identifier: Apache-2.0
//! The kube-rs adapter of the benchmark suite: every scenario through kube's typed `Api<K>`
//! (k8s-openapi types, v1_35), on a tokio current-thread runtime (one thread, like the other
//! adapters' single event loops). The watch burst runs as a sibling future (`tokio::try_join!`).
//!
//!   kube-rs-bench --kubeconfig FILE --scenario S --namespace NS [--warmup W --iters N
//!                 --list-size L --stream-count C ...]
//!
//! Prints one JSON line on stdout (benchmarks/suite/run.py documents the fields); anything else
//! goes to stderr. Measures like benchmarks/suite/common/measure.hpp.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;

use futures::{AsyncBufReadExt, StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Container, Namespace, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DeleteParams, ListParams, LogParams, PostParams, WatchEvent, WatchParams};

type Error = Box<dyn std::error::Error>;
type Result<T> = std::result::Result<T, Error>;

// ---------------------------------------------------------------------------------------------
// Measurement (as common/measure.hpp; the clocks are in common.rs)

mod common;
use common::{client_from_kubeconfig, cpu_ns, exit_on_failure, now_ns, proc_status_kb};

/// The allocation counters of common/alloc_shim.c when the memory pass preloads it over malloc
/// (Rust's default allocator is the system's malloc): count, bytes allocated, live bytes, peak
/// live bytes. None in the timing pass, where nothing is preloaded.
struct AllocCounter {
    snapshot: unsafe extern "C" fn(*mut u64),
    reset_peak: unsafe extern "C" fn(),
}

impl AllocCounter {
    fn find() -> Option<Self> {
        // SAFETY: dlsym with NUL-terminated names; the symbols, when present, have exactly these
        // C signatures (alloc_shim.c).
        unsafe {
            let snapshot = libc::dlsym(libc::RTLD_DEFAULT, c"kubex_bench_alloc_snapshot".as_ptr());
            let reset = libc::dlsym(libc::RTLD_DEFAULT, c"kubex_bench_alloc_reset_peak".as_ptr());
            if snapshot.is_null() || reset.is_null() {
                return None;
            }
            Some(AllocCounter {
                snapshot: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn(*mut u64)>(
                    snapshot,
                ),
                reset_peak: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn()>(reset),
            })
        }
    }
    fn snapshot(&self) -> [u64; 4] {
        let mut out = [0u64; 4];
        // SAFETY: the shim writes exactly four counters.
        unsafe { (self.snapshot)(out.as_mut_ptr()) };
        out
    }
}

/// Tells the driver that the measured loop starts ("loop") or has ended ("done"), at once, so
/// that it can read the control plane's CPU time over the loop alone.
fn announce_phase(phase: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{{\"phase\":\"{phase}\"}}");
    let _ = out.flush();
}

/// Resets VmHWM to the current RSS.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

struct Plan {
    scenario: String,
    namespace: String,
    kubeconfig: String,
    warmup: i64,
    warmup_s: f64,
    iters: i64,
    min_iters: i64,
    max_s: f64,
    list_size: i64,
    stream_count: i64,
}

impl Plan {
    fn from_args() -> Result<Plan> {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let mut values = HashMap::new();
        let mut i = 0;
        while i < argv.len() {
            let key = &argv[i];
            if !key.starts_with("--") || i + 1 >= argv.len() {
                return Err(format!("expected --name value pairs, got '{key}'").into());
            }
            values.insert(key[2..].to_string(), argv[i + 1].clone());
            i += 2;
        }
        let required = |k: &str| -> Result<String> {
            values.get(k).cloned().ok_or_else(|| format!("missing --{k}").into())
        };
        let int = |k: &str, fallback: i64| -> Result<i64> {
            match values.get(k) {
                Some(v) => v.parse().map_err(|_| format!("--{k}: not an integer: '{v}'").into()),
                None => Ok(fallback),
            }
        };
        let float = |k: &str, fallback: f64| -> Result<f64> {
            match values.get(k) {
                Some(v) => v.parse().map_err(|_| format!("--{k}: not a number: '{v}'").into()),
                None => Ok(fallback),
            }
        };
        let iters = int("iters", 30)?;
        Ok(Plan {
            scenario: required("scenario")?,
            namespace: required("namespace")?,
            kubeconfig: required("kubeconfig")?,
            warmup: int("warmup", 3)?,
            warmup_s: float("warmup-seconds", 1.0)?,
            iters,
            min_iters: iters.min(int("min-iters", 20)?),
            max_s: float("max-seconds", 90.0)?,
            list_size: int("list-size", 0)?,
            stream_count: int("stream-count", 0)?,
        })
    }
}

/// The measured loop's record, printed as one JSON line.
#[derive(Default)]
struct Recorder {
    warm_start: i64,
    warm_done: i64,
    rss_ready_kb: i64,
    rss_ready_anon_kb: i64,
    rss_done_file_kb: i64,
    cpu_start: i64,
    loop_start: i64,
    cpu_loop_ns: i64,
    loop_ns: i64,
    rss_peak_kb: i64,
    alloc: Option<(AllocCounter, [u64; 4])>,
    memory: Option<serde_json::Value>,
    samples: Vec<i64>,
    items: Vec<i64>,
    events: Vec<i64>,
}

impl Recorder {
    /// Whether another warm-up iteration is due (call before each).
    fn warming(&mut self, plan: &Plan) -> bool {
        if self.warm_start == 0 {
            self.rss_ready_kb = proc_status_kb("VmRSS");
            self.rss_ready_anon_kb = proc_status_kb("RssAnon");
            self.warm_start = now_ns().max(1);
        }
        let more = self.warm_done < plan.warmup
            || ((now_ns() - self.warm_start) as f64) < plan.warmup_s * 1e9;
        if more {
            self.warm_done += 1;
        }
        more
    }
    fn begin(&mut self) {
        self.alloc = AllocCounter::find().map(|a| {
            // SAFETY: a function of the shim without arguments.
            unsafe { (a.reset_peak)() };
            let start = a.snapshot();
            (a, start)
        });
        reset_peak_rss();
        announce_phase("loop");
        self.cpu_start = cpu_ns();
        self.loop_start = now_ns();
    }
    fn measuring(&self, plan: &Plan) -> bool {
        let n = self.samples.len() as i64;
        if n >= plan.iters {
            return false;
        }
        n < plan.min_iters || ((now_ns() - self.loop_start) as f64) < plan.max_s * 1e9
    }
    fn sample(&mut self, wall_ns: i64, items: i64) {
        self.samples.push(wall_ns);
        self.items.push(items);
    }
    fn end(&mut self) {
        self.cpu_loop_ns = cpu_ns() - self.cpu_start;
        self.loop_ns = now_ns() - self.loop_start;
        announce_phase("done");
        self.rss_peak_kb = proc_status_kb("VmHWM");
        self.rss_done_file_kb = proc_status_kb("RssFile") + proc_status_kb("RssShmem");
        if let Some((a, start)) = &self.alloc {
            let now = a.snapshot();
            let n = self.samples.len().max(1) as f64;
            self.memory = Some(serde_json::json!({
                "allocs_per_op": (now[0] - start[0]) as f64 / n,
                "alloc_bytes_per_op": (now[1] - start[1]) as f64 / n,
                "alloc_peak_live_bytes": now[3] as f64 - start[2] as f64,
                "alloc_live_growth_bytes": now[2] as f64 - start[2] as f64,
            }));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/// A pod like the seed's, with a name (and optionally a bench=<label>) of its own.
fn bench_pod(name: &str, label: Option<&str>) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: label.map(|l| BTreeMap::from([("bench".to_string(), l.to_string())])),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "c".to_string(),
                image: Some("registry.k8s.io/pause:3.9".to_string()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn random_hex(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n.div_ceil(2)];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let mut s: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    s.truncate(n);
    Ok(s)
}

fn delete_now() -> DeleteParams {
    DeleteParams::default().grace_period(0)
}

/// When each burst pod's create and delete requests were sent.
type SentTimes = RefCell<HashMap<String, (i64, i64)>>;

struct Adapter {
    pods: Api<Pod>,
    namespaces: Api<Namespace>,
    plan: Plan,
    rec: RefCell<Recorder>,
}

impl Adapter {
    async fn run(&self) -> Result<()> {
        while self.rec.borrow_mut().warming(&self.plan) {
            self.iteration(false).await?;
        }
        self.rec.borrow_mut().begin();
        while self.rec.borrow().measuring(&self.plan) {
            let start = now_ns();
            let items = self.iteration(true).await?;
            self.rec.borrow_mut().sample(now_ns() - start, items);
        }
        self.rec.borrow_mut().end();
        Ok(())
    }

    fn event(&self, ns: i64) {
        self.rec.borrow_mut().events.push(ns);
    }

    /// One iteration; returns what the validity check counts.
    async fn iteration(&self, measured: bool) -> Result<i64> {
        let limit = || ListParams::default().limit(self.plan.list_size as u32);
        match self.plan.scenario.as_str() {
            "single_get" => {
                self.pods.get("seed-0").await?;
                Ok(1)
            }
            "single_get_metadata" => {
                self.pods.get_metadata("seed-0").await?;
                Ok(1)
            }
            "single_create_delete" => {
                let pod = bench_pod(&format!("bench-{}", random_hex(10)?), None);
                let created = self.pods.create(&PostParams::default(), &pod).await?;
                let name = created.metadata.name.ok_or("created pod has no name")?;
                self.pods.delete(&name, &delete_now()).await?;
                Ok(1)
            }
            "list_small" | "list_medium" | "list_large" => {
                Ok(self.pods.list(&limit()).await?.items.len() as i64)
            }
            "list_metadata_only" => Ok(self.pods.list_metadata(&limit()).await?.items.len() as i64),
            "list_namespaces" => {
                Ok(self.namespaces.list(&ListParams::default()).await?.items.len() as i64)
            }
            "watch_n_events" => {
                let (events, ()) =
                    tokio::try_join!(self.receive_n(measured), self.burst("watch-bench-", None, None))?;
                Ok(events)
            }
            "watch_live" => self.watch_live(measured).await,
            "stream_logs_n_lines" => self.stream_logs(measured).await,
            s => Err(format!("unknown scenario '{s}'").into()),
        }
    }

    /// Kubex's semantics: a watch without resourceVersion (so the first events replay the
    /// existing pods), read until N events, timed as inter-arrival gaps; then closed (dropped).
    async fn receive_n(&self, measured: bool) -> Result<i64> {
        let params = WatchParams::default().disable_bookmarks();
        let mut stream = self.pods.watch(&params, "").await?.boxed_local();
        let mut seen = 0;
        let mut last = 0;
        while seen < self.plan.stream_count {
            let Some(event) = stream.try_next().await? else {
                break;
            };
            let t = now_ns();
            if let WatchEvent::Error(e) = event {
                return Err(format!("watch error event: {e}").into());
            }
            if measured && seen > 0 {
                self.event(t - last);
            }
            last = t;
            seen += 1;
        }
        Ok(seen)
    }

    /// 25 sequential create+delete pairs; `sent` (when given) records when each request left.
    async fn burst(&self, prefix: &str, label: Option<&str>, sent: Option<&SentTimes>) -> Result<()> {
        if label.is_none() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let pp = PostParams::default();
        let dp = delete_now();
        for i in 0..25 {
            let name = format!("{prefix}{i}");
            let pod = bench_pod(&name, label);
            if let Some(s) = sent {
                s.borrow_mut().entry(name.clone()).or_default().0 = now_ns();
            }
            self.pods.create(&pp, &pod).await?;
            if let Some(s) = sent {
                s.borrow_mut().entry(name.clone()).or_default().1 = now_ns();
            }
            self.pods.delete(&name, &dp).await?;
        }
        Ok(())
    }

    /// The live watch: from a list's resourceVersion, only the burst's pods (by label); counts
    /// their ADDED and DELETED events (MODIFIED ones are read, not counted) and times each from
    /// the moment its create or delete request was sent.
    async fn watch_live(&self, measured: bool) -> Result<i64> {
        let selector = format!("bench=live-{}", random_hex(6)?);
        let label = &selector["bench=".len()..];
        let list = self.pods.list(&ListParams::default().labels(&selector).limit(1)).await?;
        let rv = list.metadata.resource_version.ok_or("list has no resourceVersion")?;
        let params = WatchParams::default().labels(&selector).disable_bookmarks();
        let stream = self.pods.watch(&params, &rv).await?.boxed_local();
        let sent = SentTimes::default();
        let receive = async {
            let mut stream = stream;
            let mut counted = 0;
            while counted < 50 {
                let Some(event) = stream.try_next().await? else {
                    break;
                };
                let t = now_ns();
                let (pod, added) = match event {
                    WatchEvent::Added(p) => (p, true),
                    WatchEvent::Deleted(p) => (p, false),
                    WatchEvent::Error(e) => return Err(format!("watch error event: {e}").into()),
                    _ => continue,
                };
                counted += 1;
                let name = pod.metadata.name.unwrap_or_default();
                if measured {
                    if let Some(&(create, delete)) = sent.borrow().get(&name) {
                        self.event(t - if added { create } else { delete });
                    }
                }
            }
            Ok::<i64, Error>(counted)
        };
        let (counted, ()) = tokio::try_join!(receive, self.burst("watch-live-", Some(label), Some(&sent)))?;
        Ok(counted)
    }

    /// Follow log-emitter's log (from its start, as Kubex does) until N lines, then close.
    async fn stream_logs(&self, measured: bool) -> Result<i64> {
        let params = LogParams { container: Some("c".to_string()), follow: true, ..Default::default() };
        let mut lines = self.pods.log_stream("log-emitter", &params).await?.lines();
        let mut seen = 0;
        let mut last = 0;
        while seen < self.plan.stream_count {
            if lines.try_next().await?.is_none() {
                break;
            }
            let t = now_ns();
            if measured && seen > 0 {
                self.event(t - last);
            }
            last = t;
            seen += 1;
        }
        Ok(seen)
    }
}

fn result_line(plan: &Plan, rec: &Recorder, accept_encoding: &str) -> String {
    let mut line = serde_json::json!({
        "adapter": "kube-rs",
        "variant": "typed",
        "scenario": plan.scenario,
        "runtime": "rust tokio current_thread",
        "http": "1.1",
        "accept_encoding": accept_encoding,
        "warmup": rec.warm_done,
        "n": rec.samples.len(),
        "cpu_ns": rec.cpu_loop_ns,
        "loop_ns": rec.loop_ns,
        "rss_ready_kb": rec.rss_ready_kb,
        "rss_peak_loop_kb": rec.rss_peak_kb,
        "rss_ready_anon_kb": rec.rss_ready_anon_kb,
        "rss_done_file_kb": rec.rss_done_file_kb,
        "items": rec.items,
        "events_ns": rec.events,
        "samples_ns": rec.samples,
    });
    if let (Some(serde_json::Value::Object(m)), Some(out)) = (&rec.memory, line.as_object_mut()) {
        out.extend(m.clone());
    }
    line.to_string()
}

async fn run() -> Result<()> {
    let plan = Plan::from_args()?;
    let client = client_from_kubeconfig(&plan.kubeconfig).await?;
    // Without kube's `gzip` feature no Accept-Encoding is sent, except that watch requests
    // always carry `Accept-Encoding: identity` (kube-client's request_events).
    let accept_encoding = match plan.scenario.as_str() {
        "watch_n_events" | "watch_live" => "identity",
        _ => "",
    };
    let adapter = Adapter {
        pods: Api::namespaced(client.clone(), &plan.namespace),
        namespaces: Api::all(client),
        rec: RefCell::new(Recorder::default()),
        plan,
    };
    adapter.run().await?;
    println!("{}", result_line(&adapter.plan, &adapter.rec.borrow(), accept_encoding));
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    now_ns();
    if let Err(e) = run().await {
        exit_on_failure("kube-rs-bench", e.as_ref());
    }
}
