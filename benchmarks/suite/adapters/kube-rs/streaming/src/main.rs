// SPDX-License-Identifier: Apache-2.0
//! The kube-rs adapter of the streaming benchmark (benchmarks/suite/streaming.py): exec
//! (`Api::<Pod>::exec`, WebSocket v5.channel.k8s.io or v4) and port-forward
//! (`Api::<Pod>::portforward`, which speaks the WebSocket port-forward protocol
//! v4.channel.k8s.io, passed through by the apiserver to the kubelet), one process per
//! scenario doing its iterations on a tokio current-thread runtime.
//!
//!   kube-rs-streaming --kubeconfig FILE --namespace NS --pod NAME --scenario S --iters N
//!       --warmup W [--port P] [--bytes B] [--warmup-bytes B] [--line-bytes L]
//!
//! Scenarios, phase lines and the result line are those of adapters/kubex/streaming.cpp.
//! kube's Portforwarder takes its ports when it connects and gives one stream per port, so
//! each download opens a forwarder of its own (as the other adapters open a tunnel each).

use std::io::{BufRead, Write};

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, AttachParams};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

type Error = Box<dyn std::error::Error>;
type Result<T> = std::result::Result<T, Error>;

#[path = "../../src/common.rs"]
mod common;
use common::{client_from_kubeconfig, cpu_ns, exit_on_failure, flag_pairs, now_ns, proc_status_kb};

struct Options {
    pod: String,
    iters: usize,
    warmup: usize,
    port: u16,
    bytes: u64,
    warmup_bytes: u64,
    line_bytes: usize,
}

/// Tells the driver where the loop is and waits for its go-ahead (a line on stdin).
fn phase(name: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{{\"phase\":\"{name}\"}}")?;
    out.flush()?;
    let mut ack = String::new();
    if std::io::stdin().lock().read_line(&mut ack)? == 0 {
        return Err("stdin ended before the driver's go-ahead".into());
    }
    Ok(())
}

fn line(size: usize, i: usize) -> Vec<u8> {
    let mut l = vec![b'a' + (i % 26) as u8; size];
    l[size - 1] = b'\n';
    l
}

#[derive(Default)]
struct Measured {
    samples_ns: Vec<i64>,
    bytes: u64,
    cpu_ns: i64,
    hwm_kb: i64,
}

/// Runs `once(i, warmup)` warmup times, then iters times between the phase lines, timing each.
async fn run_loop<F>(o: &Options, mut once: F) -> Result<Measured>
where
    F: AsyncFnMut(usize, bool) -> Result<u64>,
{
    for i in 0..o.warmup {
        once(i, true).await?;
    }
    let mut m = Measured {
        samples_ns: Vec::with_capacity(o.iters),
        ..Default::default()
    };
    phase("loop")?;
    let cpu0 = cpu_ns();
    for i in 0..o.iters {
        let t0 = now_ns();
        m.bytes += once(i, false).await?;
        m.samples_ns.push(now_ns() - t0);
    }
    m.cpu_ns = cpu_ns() - cpu0;
    m.hwm_kb = proc_status_kb("VmHWM");
    phase("done")?;
    Ok(m)
}

async fn exec_echo(o: &Options, pods: &Api<Pod>) -> Result<Measured> {
    run_loop(o, async |_, _| {
        let ap = AttachParams::default()
            .stdin(false)
            .stdout(true)
            .stderr(true);
        let mut attached = pods.exec(&o.pod, vec!["echo", "hi"], &ap).await?;
        let mut stdout = attached.stdout().ok_or("no stdout")?;
        let mut stderr = attached.stderr().ok_or("no stderr")?;
        let status = attached.take_status().ok_or("no status")?;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        tokio::try_join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err))?;
        let status = status.await;
        attached.join().await?;
        let ok = status.as_ref().and_then(|s| s.status.as_deref()) == Some("Success");
        if !ok || out != b"hi\n" || !err.is_empty() {
            return Err(format!(
                "echo hi gave {status:?} and {:?}",
                String::from_utf8_lossy(&out)
            )
            .into());
        }
        Ok(out.len() as u64)
    })
    .await
}

async fn exec_interactive(o: &Options, pods: &Api<Pod>) -> Result<Measured> {
    let ap = AttachParams::default()
        .stdin(true)
        .stdout(true)
        .stderr(true);
    let mut attached = pods.exec(&o.pod, vec!["cat"], &ap).await?;
    let mut stdin = attached.stdin().ok_or("no stdin")?;
    let mut stdout = attached.stdout().ok_or("no stdout")?;
    let status = attached.take_status().ok_or("no status")?;
    let mut back = vec![0u8; o.line_bytes];
    let m = run_loop(o, async |i, _| {
        let l = line(o.line_bytes, i);
        stdin.write_all(&l).await?;
        stdout.read_exact(&mut back).await?;
        if back != l {
            return Err("cat gave back something else".into());
        }
        Ok(l.len() as u64)
    })
    .await?;
    stdin.shutdown().await?;
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).await?;
    let status = status.await;
    attached.join().await?;
    if status.as_ref().and_then(|s| s.status.as_deref()) != Some("Success") {
        return Err(format!("cat ended with {status:?}").into());
    }
    Ok(m)
}

/// GET /bytes/size through a new forwarder: the body's bytes once all have arrived (checked
/// against the pattern when `check`).
async fn download(o: &Options, pods: &Api<Pod>, size: u64, check: bool) -> Result<u64> {
    let mut forwarder = pods.portforward(&o.pod, &[o.port]).await?;
    let mut stream = forwarder.take_stream(o.port).ok_or("no stream")?;
    stream
        .write_all(
            format!("GET /bytes/{size} HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await?;
    let mut buf = vec![0u8; 64 << 10];
    let mut head = Vec::new();
    let mut body: u64 = 0;
    let take = |p: &[u8], body: &mut u64| -> Result<()> {
        if check {
            for (k, c) in p.iter().enumerate() {
                if *c != b'a' + ((*body + k as u64) % 26) as u8 {
                    return Err(format!("body byte {} differs", *body + k as u64).into());
                }
            }
        }
        *body += p.len() as u64;
        Ok(())
    };
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err("the response ended in its head".into());
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            let h = String::from_utf8_lossy(&head[..end]).to_string();
            if !h.starts_with("HTTP/1.1 200")
                || !(h.clone() + "\r\n").contains(&format!("Content-Length: {size}\r\n"))
            {
                return Err(format!("unexpected response head: {h}").into());
            }
            take(&head[end + 4..], &mut body)?;
            break;
        }
    }
    while body < size {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err(format!("the body ended after {body} bytes").into());
        }
        take(&buf[..n], &mut body)?;
    }
    drop(stream);
    forwarder.abort();
    Ok(body)
}

async fn pf_download(o: &Options, pods: &Api<Pod>) -> Result<Measured> {
    run_loop(o, async |_, warmup| {
        if warmup {
            download(o, pods, o.warmup_bytes, true).await
        } else {
            download(o, pods, o.bytes, false).await
        }
    })
    .await
}

async fn pf_echo(o: &Options, pods: &Api<Pod>) -> Result<Measured> {
    let mut forwarder = pods.portforward(&o.pod, &[o.port]).await?;
    let mut stream = forwarder.take_stream(o.port).ok_or("no stream")?;
    let mut back = vec![0u8; o.line_bytes];
    let m = run_loop(o, async |i, _| {
        let l = line(o.line_bytes, i);
        stream.write_all(&l).await?;
        stream.read_exact(&mut back).await?;
        if back != l {
            return Err("the echo gave back something else".into());
        }
        Ok(l.len() as u64)
    })
    .await?;
    drop(stream);
    forwarder.abort();
    Ok(m)
}

async fn run() -> Result<()> {
    let f = flag_pairs()?;
    let get = |k: &str, default: &str| f.get(k).cloned().unwrap_or_else(|| default.to_string());
    let num = |k: &str, default: &str| -> Result<u64> {
        get(k, default)
            .parse::<u64>()
            .map_err(|e| format!("--{k}: {e}").into())
    };
    let o = Options {
        pod: get("pod", ""),
        iters: num("iters", "10")? as usize,
        warmup: num("warmup", "1")? as usize,
        port: num("port", "0")? as u16,
        bytes: num("bytes", "200000000")?,
        warmup_bytes: num("warmup-bytes", "1000000")?,
        line_bytes: num("line-bytes", "64")? as usize,
    };
    let (kubeconfig, namespace, scenario) = (
        get("kubeconfig", ""),
        get("namespace", ""),
        get("scenario", ""),
    );
    if kubeconfig.is_empty()
        || namespace.is_empty()
        || o.pod.is_empty()
        || scenario.is_empty()
        || o.line_bytes < 2
    {
        return Err("--kubeconfig, --namespace, --pod and --scenario are required".into());
    }
    let client = client_from_kubeconfig(&kubeconfig).await?;
    let pods: Api<Pod> = Api::namespaced(client, &namespace);
    let m = match scenario.as_str() {
        "exec_echo" => exec_echo(&o, &pods).await?,
        "exec_interactive" => exec_interactive(&o, &pods).await?,
        "pf_download" => pf_download(&o, &pods).await?,
        "pf_echo" => pf_echo(&o, &pods).await?,
        other => return Err(format!("unknown scenario {other}").into()),
    };
    let samples: Vec<String> = m.samples_ns.iter().map(|s| s.to_string()).collect();
    println!(
        "{{\"samples_ns\":[{}],\"bytes\":{},\"cpu_ns\":{},\"hwm_kb\":{},\"rss_kb\":{}}}",
        samples.join(","),
        m.bytes,
        m.cpu_ns,
        m.hwm_kb,
        proc_status_kb("VmRSS")
    );
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        exit_on_failure("kube-rs-streaming", e.as_ref());
    }
}
