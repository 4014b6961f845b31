//! A tokio pipeline: one producer task → a spanring ring → two broadcast reader tasks, each
//! seeing every item (one computes a checksum, the other a histogram), all awaiting through
//! `reserve_async` / `read_async` with no thread per waiter.
//!
//! `cargo run --example async_tokio_pipeline`

use std::sync::Arc;

use spanring::std_ext::HeapStorage;
use spanring::{AsyncWait, ReadError, Reader, Ring, SingleProducer, Writer};

type Pipe = Ring<HeapStorage<u32>, SingleProducer, AsyncWait, 4>;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    const ITEMS: u32 = 1_000_000;
    let ring: Arc<Pipe> = Arc::new(
        Ring::builder(HeapStorage::with_capacity(4096).unwrap())
            .wait::<AsyncWait>()
            .build()
            .unwrap(),
    );
    // Readers attach before the producer starts, so both see every item.
    let mut checksum_reader = Reader::attach(ring.clone()).unwrap();
    let mut histogram_reader = Reader::attach(ring.clone()).unwrap();
    let mut writer = Writer::attach(ring.clone()).unwrap();

    let checksum = tokio::spawn(async move {
        let mut sum = 0u64;
        loop {
            match checksum_reader.read_async(1024).await {
                Ok(items) => sum += items.iter().map(|&v| u64::from(v)).sum::<u64>(),
                Err(ReadError::Closed) => return sum,
                Err(e) => panic!("{e}"),
            }
        }
    });
    let histogram = tokio::spawn(async move {
        let mut buckets = [0u64; 4];
        loop {
            match histogram_reader.read_async(100).await {
                Ok(items) => {
                    for &v in items.iter() {
                        buckets[(v % 4) as usize] += 1;
                    }
                }
                Err(ReadError::Closed) => return buckets,
                Err(e) => panic!("{e}"),
            }
        }
    });
    let producer = tokio::spawn(async move {
        let mut next = 0u32;
        while next < ITEMS {
            let n = 512.min(ITEMS - next) as usize;
            let mut span = writer.reserve_async(n).await.expect("ring open");
            for slot in span.iter_mut() {
                *slot = next;
                next += 1;
            }
            // `span` drops: published, readers woken.
        }
        // `writer` drops: the ring closes; readers drain and finish.
    });

    producer.await.unwrap();
    let sum = checksum.await.unwrap();
    let buckets = histogram.await.unwrap();
    println!("checksum reader: sum = {sum}");
    println!("histogram reader: v % 4 buckets = {buckets:?}");
    assert_eq!(sum, u64::from(ITEMS) * u64::from(ITEMS - 1) / 2);
    assert_eq!(buckets.iter().sum::<u64>(), u64::from(ITEMS));
    assert_eq!(
        ring.space_wait().registered() + ring.data_wait().registered(),
        0
    );
}
