//! The same small program with rtrb and with spanring, side by side: a producer thread sends
//! 0..N, a consumer sums them. Differences a port has to respect (see the README's "coming
//! from" table):
//! - rtrb's `push` never waits (it returns `Err(Full)`); spanring's `push` waits for space
//!   (`try_push` is the non-waiting form).
//! - rtrb's consumer pops with `pop()` → `Err(Empty)` and has no end of stream; spanring's
//!   reader waits for data and ends with `ReadError::Closed` once every writer is dropped, so
//!   `for x in reader` ends by itself.
//! - spanring is broadcast: every reader sees every item, and `pop` returns a clone.
//!
//! `cargo run --example from_rtrb`

const N: u64 = 1_000_000;
const CAPACITY: usize = 1024;

/// rtrb: single producer, single consumer; the program spins (yields) on Full / Empty itself
/// and marks the end of the stream out of band (here: by counting).
fn with_rtrb() -> u64 {
    let (mut producer, mut consumer) = rtrb::RingBuffer::<u64>::new(CAPACITY);
    let t = std::thread::spawn(move || {
        for i in 0..N {
            let mut item = i;
            while let Err(rtrb::PushError::Full(back)) = producer.push(item) {
                item = back;
                std::thread::yield_now();
            }
        }
    });
    let (mut sum, mut seen) = (0u64, 0u64);
    while seen < N {
        match consumer.pop() {
            Ok(x) => {
                sum += x;
                seen += 1;
            }
            Err(rtrb::PopError::Empty) => std::thread::yield_now(),
        }
    }
    t.join().expect("producer");
    sum
}

/// spanring: `push` waits for space, the reader waits for data, and dropping the writer ends
/// the stream, so the loop is just `for x in reader`.
fn with_spanring() -> Result<u64, Box<dyn std::error::Error>> {
    let (mut writer, reader) = spanring::std_ext::owned::portable::<u64>(CAPACITY).build()?;
    let t = std::thread::spawn(move || -> Result<(), spanring::PushError<u64>> {
        for i in 0..N {
            writer.push(i)?; // waits while the ring is full; Err only if every reader is gone
        }
        Ok(())
        // `writer` drops: the ring closes, the reader's loop ends after the last item.
    });
    let sum = reader.into_iter().sum();
    t.join().expect("producer")?;
    Ok(sum)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let expected = N * (N - 1) / 2;
    let a = with_rtrb();
    let b = with_spanring()?;
    assert_eq!(a, expected);
    assert_eq!(a, b, "both programs compute the same sum");
    println!("from_rtrb: rtrb {a}, spanring {b}");
    Ok(())
}
