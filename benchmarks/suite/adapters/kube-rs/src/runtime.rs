// SPDX-License-Identifier: Apache-2.0
//! The kube-rs adapter of the runtime benchmark (benchmarks/suite/runtime.py): kube-runtime's
//! reflector over `watcher` (or `metadata_watcher`) for a namespace's pods, synced and held, or a
//! typed `Api::watch` read through a stream of modifications. Tokio current-thread runtime.
//!
//!   kube-rs-runtime --kubeconfig FILE --namespace NS --scenario reflector --expect N
//!                   [--initial list|watch_list] [--variant full|no_managed_fields|metadata]
//!                   [--settle-seconds S]
//!   kube-rs-runtime --kubeconfig FILE --namespace NS --scenario watch_throughput
//!                   --resource-version RV --expect N
//!
//! Prints one JSON line on stdout; anything else goes to stderr.

use std::time::Duration;

use futures::{Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, WatchEvent, WatchParams};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, Lookup, Store};
use kube::runtime::{watcher, WatchStreamExt};

type Error = Box<dyn std::error::Error>;
type Result<T> = std::result::Result<T, Error>;

mod common;
use common::{client_from_kubeconfig, cpu_ns, exit_on_failure, flag_pairs, now_ns, proc_status_kb};

/// Bytes glibc's malloc holds (Rust's default allocator is the system malloc): every arena's
/// chunks in use plus mmapped blocks, measured as the kubex adapter does.
fn heap_bytes() -> i64 {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    let m = unsafe { libc::mallinfo2() };
    (m.uordblks + m.hblkhd) as i64
}

/// Tells the driver that the measured part starts ("loop") or has ended ("done"), so that it
/// reads the control plane's CPU time over it.
fn phase(p: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{{\"phase\":\"{p}\"}}");
    let _ = out.flush();
}

/// Runs `stream` (a reflector's) in a task until the store holds `expect` objects, then holds it
/// for `settle`; records sync time, CPU and memory against the baseline taken before.
async fn hold<K, S>(
    reader: Store<K>,
    stream: S,
    expect: usize,
    settle: Duration,
    base: (i64, i64),
    out: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<()>
where
    K: Lookup + Clone + 'static,
    K::DynamicType: Eq + std::hash::Hash + Clone,
    S: Stream + Send + 'static,
{
    phase("loop");
    let (t0, c0) = (now_ns(), cpu_ns());
    let task = tokio::spawn(stream.for_each(|_| futures::future::ready(())));
    reader.wait_until_ready().await?;
    while reader.len() < expect {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let (t1, c1) = (now_ns(), cpu_ns());
    phase("done");
    tokio::time::sleep(settle).await;
    out.insert("sync_ms".into(), ((t1 - t0) as f64 / 1e6).into());
    out.insert("sync_cpu_ms".into(), ((c1 - c0) as f64 / 1e6).into());
    out.insert("objects".into(), reader.len().into());
    out.insert("rss_baseline_kb".into(), base.0.into());
    out.insert(
        "rss_delta_kb".into(),
        (proc_status_kb("VmRSS") - base.0).into(),
    );
    out.insert("heap_delta_bytes".into(), (heap_bytes() - base.1).into());
    task.abort();
    Ok(())
}

async fn run() -> Result<()> {
    let f = flag_pairs()?;
    let get = |k: &str| f.get(k).cloned().ok_or_else(|| format!("missing --{k}"));
    let (scenario, namespace) = (get("scenario")?, get("namespace")?);
    let expect: usize = f.get("expect").map_or(Ok(0), |v| v.parse())?;
    let client = client_from_kubeconfig(&get("kubeconfig")?).await?;
    // The connection is up before the baseline, as in the other adapters.
    Api::<Namespace>::all(client.clone())
        .get(&namespace)
        .await?;
    let pods: Api<Pod> = Api::namespaced(client.clone(), &namespace);
    // kube's metadata-only calls: an Api of PartialObjectMeta.
    let pod_metas: Api<PartialObjectMeta<Pod>> = Api::namespaced(client, &namespace);
    let mut out = serde_json::Map::new();
    out.insert("adapter".into(), "kube-rs".into());
    out.insert("scenario".into(), scenario.clone().into());

    match scenario.as_str() {
        "watch_throughput" => {
            let rv = get("resource-version")?;
            phase("loop");
            let (t0, c0) = (now_ns(), cpu_ns());
            let mut stream = pods.watch(&WatchParams::default(), &rv).await?.boxed();
            let mut modified = 0usize;
            while modified < expect {
                match stream.try_next().await? {
                    None => break,
                    Some(WatchEvent::Modified(_)) => modified += 1,
                    Some(WatchEvent::Error(e)) => {
                        return Err(format!("the watch ended with an ERROR event: {e:?}").into())
                    }
                    Some(_) => {}
                }
            }
            let (t1, c1) = (now_ns(), cpu_ns());
            phase("done");
            out.insert("events".into(), modified.into());
            out.insert("wall_ms".into(), ((t1 - t0) as f64 / 1e6).into());
            out.insert("cpu_ms".into(), ((c1 - c0) as f64 / 1e6).into());
        }
        "reflector" => {
            let initial = f.get("initial").map_or("list", String::as_str).to_string();
            let variant = f.get("variant").map_or("full", String::as_str).to_string();
            let settle = Duration::from_secs(f.get("settle-seconds").map_or(Ok(2), |v| v.parse())?);
            let cfg = match initial.as_str() {
                "list" => watcher::Config::default(),
                "watch_list" => watcher::Config::default().streaming_lists(),
                _ => return Err("--initial must be list or watch_list".into()),
            };
            out.insert("initial".into(), initial.into());
            out.insert("variant".into(), variant.clone().into());
            let base = (proc_status_kb("VmRSS"), heap_bytes());
            match variant.as_str() {
                "full" | "no_managed_fields" => {
                    let strip = variant == "no_managed_fields";
                    let (reader, writer) = reflector::store::<Pod>();
                    let stream = watcher(pods, cfg)
                        .default_backoff()
                        .modify(move |p: &mut Pod| {
                            if strip {
                                p.metadata.managed_fields = None;
                            }
                        })
                        .reflect(writer);
                    hold(reader, stream, expect, settle, base, &mut out).await?;
                }
                "metadata" => {
                    let (reader, writer) = reflector::store();
                    let stream = watcher(pod_metas, cfg).default_backoff().reflect(writer);
                    hold(reader, stream, expect, settle, base, &mut out).await?;
                }
                _ => return Err("--variant must be full, no_managed_fields or metadata".into()),
            }
        }
        _ => return Err(format!("unknown scenario '{scenario}'").into()),
    }
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    now_ns();
    if let Err(e) = run().await {
        exit_on_failure("kube-rs-runtime", e.as_ref());
    }
}
