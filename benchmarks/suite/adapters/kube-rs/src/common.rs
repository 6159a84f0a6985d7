//! What the kube-rs programs share: the clocks (as benchmarks/suite/common/measure.hpp) and
//! how a failure ends them.

use std::time::Instant;

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
