//! An ordered parallel map with bounded memory: jobs are produced and
//! results consumed on the calling thread, in input order; the work runs on
//! `jobs` worker threads.
//!
//! At most `2 × jobs` batches are in flight (produced and not yet consumed),
//! so memory stays bounded however large the input is and however unevenly
//! the batches take time. With one job everything runs on the calling
//! thread, in the same order, so the output is the same for every `jobs`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::thread;

/// The most worker threads a run uses, however many are asked for.
pub const MAX_JOBS: usize = 256;

/// The number of worker threads: `requested`, or all cores; at most 4 ×
/// the cores and at most [`MAX_JOBS`] (more threads than that only cost
/// memory: each holds up to two batches).
pub fn jobs(requested: Option<usize>) -> usize {
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let most = cores.saturating_mul(4).min(MAX_JOBS);
    requested.unwrap_or(cores).clamp(1, most)
}

/// Runs `work` over the jobs `produce` returns until `None`, on `jobs`
/// threads, and hands each result to `consume` in production order.
///
/// An error from `produce` is returned after the results of the jobs
/// produced before it have been consumed (they may hold earlier errors); an
/// error from `consume` stops everything at once.
///
/// # Errors
/// The first error of `produce` or `consume`, in input order.
pub fn run_ordered<J, R, E>(
    jobs: usize,
    mut produce: impl FnMut() -> Result<Option<J>, E>,
    work: impl Fn(J) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    J: Send,
    R: Send,
{
    if jobs <= 1 {
        return sequential(produce, work, consume);
    }
    let cancel = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, J)>(jobs * 2);
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<(u64, R)>();
    thread::scope(|s| {
        // The system may refuse threads (a process or memory limit): run on
        // those that started, or on this thread if none did; the output is
        // the same.
        let mut workers = 0;
        for _ in 0..jobs {
            let res_tx = res_tx.clone();
            let (job_rx, work, cancel) = (&job_rx, &work, &cancel);
            let started = thread::Builder::new().spawn_scoped(s, move || {
                loop {
                    let next = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok((seq, job)) = next else { break };
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    if res_tx.send((seq, work(job))).is_err() {
                        break;
                    }
                }
            });
            if started.is_err() {
                break;
            }
            workers += 1;
        }
        drop(res_tx);
        let job_tx = job_tx;
        if workers == 0 {
            return sequential(&mut produce, &work, &mut consume);
        }
        let max_in_flight = workers * 2;
        let mut produced = 0u64;
        let mut consumed = 0u64;
        let mut pending = BTreeMap::new();
        let mut more = true;
        let mut stashed = None;
        let result = loop {
            while more && produced - consumed < max_in_flight as u64 {
                match produce() {
                    Ok(Some(job)) => {
                        // Never blocks: the channel holds jobs * 2 >= max_in_flight.
                        if job_tx.send((produced, job)).is_err() {
                            more = false;
                        } else {
                            produced += 1;
                        }
                    }
                    Ok(None) => more = false,
                    Err(e) => {
                        stashed = Some(e);
                        more = false;
                    }
                }
            }
            if produced == consumed {
                break stashed.map_or(Ok(()), Err);
            }
            let Ok((seq, r)) = res_rx.recv() else {
                // Every worker is gone (only a panic does that; the scope
                // re-raises it).
                break stashed.map_or(Ok(()), Err);
            };
            pending.insert(seq, r);
            let mut failed = None;
            while let Some(r) = pending.remove(&consumed) {
                consumed += 1;
                if let Err(e) = consume(r) {
                    failed = Some(e);
                    break;
                }
            }
            if let Some(e) = failed {
                break Err(e);
            }
        };
        cancel.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// [`run_ordered`] on the calling thread.
fn sequential<J, R, E>(
    mut produce: impl FnMut() -> Result<Option<J>, E>,
    work: impl Fn(J) -> R,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    while let Some(job) = produce()? {
        consume(work(job))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(jobs: usize, n: u64, fail_produce_at: Option<u64>) -> (Vec<u64>, Result<(), String>) {
        let mut next = 0;
        let mut out = Vec::new();
        let r = run_ordered(
            jobs,
            || {
                if Some(next) == fail_produce_at {
                    return Err(format!("produce {next}"));
                }
                next += 1;
                Ok((next <= n).then_some(next))
            },
            |x| {
                // Uneven work so that results arrive out of order.
                std::thread::sleep(std::time::Duration::from_micros((x * 7919) % 500));
                x * 2
            },
            |x| {
                out.push(x);
                Ok(())
            },
        );
        (out, r)
    }

    #[test]
    fn jobs_are_clamped() {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(jobs(Some(0)), 1);
        assert_eq!(jobs(Some(1)), 1);
        assert_eq!(jobs(Some(20_000)), (4 * cores).min(256));
        assert_eq!(jobs(Some(usize::MAX)), (4 * cores).min(256));
        assert_eq!(jobs(None), cores.min(256));
    }

    #[test]
    fn same_order_for_every_job_count() {
        let (one, r) = run(1, 50, None);
        assert!(r.is_ok());
        for jobs in [2, 3, 8] {
            assert_eq!(run(jobs, 50, None).0, one);
        }
    }

    #[test]
    fn a_produce_error_comes_after_earlier_results() {
        let (out, r) = run(3, 50, Some(10));
        assert_eq!(out, (1..=10).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(r, Err("produce 10".into()));
    }
}
