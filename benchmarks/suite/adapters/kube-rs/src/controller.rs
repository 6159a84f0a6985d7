// SPDX-License-Identifier: Apache-2.0
//! The kube-rs program of the controller benchmark (benchmarks/suite/controller.py): a
//! kube-runtime `Controller` for the Echo custom resource (bench.kubex.dev/v1, as a
//! `DynamicObject` with its `ApiResource`) that owns ConfigMaps. Each reconcile applies the
//! Echo's ConfigMap (server-side apply, field manager "bench", force) holding spec.value, owned by
//! the Echo, and then awaits a change. Tokio current-thread runtime.
//!
//!   kube-rs-controller --kubeconfig FILE --namespace NS --count N --workers W --samples M
//!
//! stdout, one JSON line each, flushed at once: {"phase":"converged"} when N distinct Echoes
//! have been reconciled; {"phase":"latency","us":[...]} when M changed Echoes (annotation
//! bench.kubex.dev/sent = the driver's CLOCK_REALTIME in ns) have reached a reconcile; on SIGTERM
//! or stdin EOF {"phase":"done","cpu_ms":..,"rss_kb":..,"hwm_kb":..,"reconciles":..}, exit 0.
//! Errors go to stderr; a fatal one exits 1.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
};
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

type Error = Box<dyn std::error::Error>;
type Result<T> = std::result::Result<T, Error>;

mod common;
use common::{
    client_from_kubeconfig, cpu_ns, exit_on_failure, flag_pairs, proc_status_kb, realtime_ns,
};

const LABEL: &str = "bench.kubex.dev/echo";
const SENT: &str = "bench.kubex.dev/sent";

/// One line on stdout, flushed at once.
fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[derive(Default)]
struct Progress {
    /// Echo names reconciled successfully, until `count` of them were (then cleared).
    reconciled: HashSet<String>,
    converged: bool,
    /// (name, sent) pairs already sampled, and the samples in microseconds.
    sampled: HashSet<(String, String)>,
    latencies_us: Vec<i64>,
}

struct Ctx {
    ar: ApiResource,
    configmaps: Api<ConfigMap>,
    apply: PatchParams,
    count: usize,
    samples: usize,
    reconciles: AtomicU64,
    progress: Mutex<Progress>,
}

impl Ctx {
    /// At the start of a reconcile: the latency of a change the driver stamped, once per
    /// (name, sent value).
    fn sample(&self, echo: &DynamicObject) {
        let Some(sent) = echo.annotations().get(SENT) else {
            return;
        };
        let Ok(sent_ns) = sent.parse::<i64>() else {
            return;
        };
        let us = (realtime_ns() - sent_ns) / 1000;
        let mut p = self.progress.lock().unwrap();
        if p.latencies_us.len() >= self.samples
            || !p.sampled.insert((echo.name_any(), sent.clone()))
        {
            return;
        }
        p.latencies_us.push(us);
        if p.latencies_us.len() == self.samples {
            emit(&serde_json::json!({"phase": "latency", "us": p.latencies_us}).to_string());
        }
    }

    /// After a successful apply: convergence once `count` distinct Echoes got there.
    fn reconciled(&self, name: String) {
        let mut p = self.progress.lock().unwrap();
        if p.converged {
            return;
        }
        p.reconciled.insert(name);
        if p.reconciled.len() >= self.count {
            p.converged = true;
            p.reconciled = HashSet::new();
            emit(r#"{"phase":"converged"}"#);
        }
    }
}

async fn reconcile(echo: Arc<DynamicObject>, ctx: Arc<Ctx>) -> kube::Result<Action> {
    ctx.reconciles.fetch_add(1, Ordering::Relaxed);
    ctx.sample(&echo);
    let name = echo.name_any();
    let value = echo.data["spec"]["value"].as_str().unwrap_or_default();
    let owner = OwnerReference {
        block_owner_deletion: Some(true),
        ..echo
            .controller_owner_ref(&ctx.ar)
            .expect("an Echo from the apiserver has a name and a uid")
    };
    let configmap = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: echo.namespace(),
            labels: Some(BTreeMap::from([(LABEL.to_string(), "true".to_string())])),
            owner_references: Some(vec![owner]),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("value".to_string(), value.to_string())])),
        ..ConfigMap::default()
    };
    ctx.configmaps
        .patch(&name, &ctx.apply, &Patch::Apply(&configmap))
        .await?;
    ctx.reconciled(name);
    Ok(Action::await_change())
}

fn error_policy(echo: Arc<DynamicObject>, e: &kube::Error, _: Arc<Ctx>) -> Action {
    eprintln!(
        "kube-rs-controller: reconcile of {} failed: {e}",
        echo.name_any()
    );
    Action::requeue(Duration::from_secs(1))
}

/// Listens at once for SIGTERM and for EOF of stdin; the future resolves on whichever comes first.
fn shutdown_requested() -> Result<impl std::future::Future<Output = ()>> {
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let (eof_tx, eof_rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = eof_tx.send(());
    });
    Ok(async move {
        tokio::select! {
            _ = sigterm.recv() => {}
            _ = eof_rx => {}
        }
    })
}

async fn run() -> Result<()> {
    let f = flag_pairs()?;
    let get = |k: &str| f.get(k).cloned().ok_or_else(|| format!("missing --{k}"));
    let namespace = get("namespace")?;
    let count: usize = get("count")?.parse()?;
    let workers: u16 = get("workers")?.parse()?;
    let samples: usize = get("samples")?.parse()?;
    // Listening before anything else, so that an early SIGTERM is not lost.
    let shutdown = shutdown_requested()?;
    let client = client_from_kubeconfig(&get("kubeconfig")?).await?;

    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("bench.kubex.dev", "v1", "Echo"),
        "echoes",
    );
    let echoes: Api<DynamicObject> = Api::namespaced_with(client.clone(), &namespace, &ar);
    // Fails fast (a missing CRD, no access) instead of a watcher retrying forever.
    echoes.list(&ListParams::default().limit(1)).await?;
    let configmaps: Api<ConfigMap> = Api::namespaced(client, &namespace);

    let ctx = Arc::new(Ctx {
        ar: ar.clone(),
        configmaps: configmaps.clone(),
        apply: PatchParams::apply("bench").force(),
        count,
        samples,
        reconciles: AtomicU64::new(0),
        progress: Mutex::new(Progress::default()),
    });
    let controller = Controller::new_with(echoes, watcher::Config::default(), ar)
        .owns(
            configmaps,
            watcher::Config::default().labels(&format!("{LABEL}=true")),
        )
        .with_config(controller::Config::default().concurrency(workers))
        .run(reconcile, error_policy, ctx.clone())
        .for_each(|result| {
            match result {
                // A reconcile's own failure was reported by error_policy; a trigger for an Echo
                // that is gone is no failure.
                Err(controller::Error::ReconcilerFailed(..))
                | Err(controller::Error::ObjectNotFound(..))
                | Ok(_) => {}
                // The watchers retry with their backoff.
                Err(e) => eprintln!("kube-rs-controller: {e}"),
            }
            futures::future::ready(())
        });

    tokio::select! {
        _ = shutdown => {}
        _ = controller => return Err("the controller stopped by itself".into()),
    }
    // Read before anything is shut down (the controller's tasks end with the process).
    // In the protocol's key order (serde_json's maps sort theirs).
    emit(&format!(
        r#"{{"phase":"done","cpu_ms":{},"rss_kb":{},"hwm_kb":{},"reconciles":{}}}"#,
        cpu_ns() as f64 / 1e6,
        proc_status_kb("VmRSS"),
        proc_status_kb("VmHWM"),
        ctx.reconciles.load(Ordering::Relaxed),
    ));
    std::process::exit(0);
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        exit_on_failure("kube-rs-controller", e.as_ref());
    }
}
