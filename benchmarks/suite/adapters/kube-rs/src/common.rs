// SPDX-License-Identifier: Apache-2.0
//! What the kube-rs programs share: the command line, the client from a kubeconfig, the clocks
//! (as benchmarks/suite/common/measure.hpp) and how a failure ends them. Each program uses a
//! part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// The command line as `--name value` pairs.
pub fn flag_pairs() -> Result<HashMap<String, String>, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut flags = HashMap::new();
    for pair in args.chunks(2) {
        match pair {
            [k, v] if k.starts_with("--") => {
                flags.insert(k[2..].to_string(), v.clone());
            }
            _ => return Err(format!("expected --name value pairs, got {pair:?}")),
        }
    }
    Ok(flags)
}

/// kube's standard client for the kubeconfig's current context.
pub async fn client_from_kubeconfig(path: &str) -> Result<Client, Box<dyn std::error::Error>> {
    let kubeconfig =
        Kubeconfig::read_from(path).map_err(|e| format!("cannot read the kubeconfig: {e}"))?;
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| format!("cannot use the kubeconfig: {e}"))?;
    Ok(Client::try_from(config)?)
}

/// CLOCK_REALTIME in nanoseconds since the Unix epoch (what a driver on the same machine
/// stamps into objects to time their arrival).
pub fn realtime_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Monotonic nanoseconds since the first call.
pub fn now_ns() -> i64 {
    thread_local! {
        static EPOCH: Instant = Instant::now();
    }
    EPOCH.with(|e| e.elapsed().as_nanos() as i64)
}

/// User plus system CPU of the whole process (all threads), in nanoseconds.
pub fn cpu_ns() -> i64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ns = |t: libc::timeval| t.tv_sec as i64 * 1_000_000_000 + t.tv_usec as i64 * 1000;
    ns(u.ru_utime) + ns(u.ru_stime)
}

/// A field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable.
pub fn proc_status_kb(field: &str) -> i64 {
    let Ok(text) = std::fs::read_to_string("/proc/self/status") else {
        return -1;
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(field).and_then(|r| r.strip_prefix(':')) {
            return rest
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(-1);
        }
    }
    -1
}

/// Prints `e` and its causes (kube's top-level errors are terse: "client error (Connect)") as
/// `program: ...` on stderr and exits with status 1.
pub fn exit_on_failure(program: &str, e: &dyn std::error::Error) -> ! {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text += &format!(": {c}");
        cause = c.source();
    }
    eprintln!("{program}: {text}");
    std::process::exit(1);
}
