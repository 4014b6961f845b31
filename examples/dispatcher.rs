//! The dispatcher: several threads post closures that run, one at a time and in each poster's
//! order, on one worker thread that owns the state (`Ctx`) — no lock around the state, no
//! allocation per post (each closure is built in place in a ring slot).
//!
//! `cargo run --example dispatcher`

use std::collections::HashMap;

use spanring::std_ext::Dispatcher;

/// The state only the worker touches: word counts.
type Counts = HashMap<&'static str, u64>;

const WORDS: [&str; 4] = ["alpha", "beta", "gamma", "delta"];
const POSTS_PER_THREAD: u64 = 10_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A ring of 256 events; closures may capture up to 4 machine words (the default).
    let (dispatcher, poster) = Dispatcher::spawn(256, Counts::new())?;

    let threads: Vec<_> = WORDS
        .iter()
        .map(|&word| {
            let mut poster = poster.clone(); // one poster per thread
            std::thread::spawn(move || {
                for _ in 0..POSTS_PER_THREAD {
                    // Captures a `&'static str` (2 words): fits. Waits while the ring is full.
                    poster
                        .post(move |counts: &mut Counts| *counts.entry(word).or_default() += 1)
                        .expect("the dispatcher is running");
                }
            })
        })
        .collect();
    drop(poster); // only the threads' posters are left
    for t in threads {
        t.join().expect("poster thread");
    }

    // A closure bigger than 4 words needs a bigger slot: `Dispatcher::<Ctx, N>::spawn_sized`
    // (with the default slot it is a compile error that says so).
    let table = [3u64; 6]; // 48 bytes on 64-bit targets
    let (sized, mut poster6) = Dispatcher::<u64, 6>::spawn_sized(16, 0)?;
    poster6
        .post(move |sum: &mut u64| *sum += table.iter().sum::<u64>())
        .expect("running");
    drop(poster6);
    assert_eq!(sized.join().expect("worker"), 18);

    // Every poster is gone: the worker runs what is left, exits, and hands the state back.
    let counts = dispatcher.join().expect("no callback panicked");
    for word in WORDS {
        assert_eq!(counts[word], POSTS_PER_THREAD, "{word}");
    }
    println!("dispatcher: {counts:?}");
    Ok(())
}
