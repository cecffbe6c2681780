//! forkjoin from async code: CPU-heavy work goes to the pool with `spawn_future`, and the async
//! runtime's threads stay free while it runs (`cargo run --release --example async`).
//! `tests/futures.rs` runs this file's `run`.

use forkjoin::prelude::*;

/// How many primes lie below `n`, counted on forkjoin's pool.
fn count_primes(n: u64) -> usize {
    let is_prime = |k: &u64| (2..).take_while(|d| d * d <= *k).all(|d| k % d != 0);
    (2..n).into_par_iter().filter(is_prime).count()
}

/// An async request handler: the heavy part runs on the pool while this task is suspended.
async fn handle(n: u64) -> String {
    let primes = forkjoin::spawn_future(move || count_primes(n)).await;
    format!("{primes} primes below {n}")
}

/// Serves four requests at once on a tokio runtime; returns the answers in request order.
pub fn run() -> Vec<String> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let requests: Vec<_> = [10, 1_000, 100_000, 1_000_000]
            .into_iter()
            .map(|n| tokio::spawn(handle(n)))
            .collect();
        let mut answers = Vec::new();
        for request in requests {
            answers.push(request.await.unwrap());
        }
        answers
    })
}

fn main() {
    for answer in run() {
        println!("{answer}");
    }
    // No async runtime at hand: `block_on` waits for any future.
    let primes = forkjoin::block_on(forkjoin::spawn_future(|| count_primes(100)));
    println!("{primes} primes below 100 (block_on)");
}
