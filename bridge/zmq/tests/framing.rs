//! A peer that sends bad messages: each is rejected with a typed error, counted, and nothing of
//! it reaches the ring; good messages around them go through untouched.

mod common;

use common::PATIENCE;
use spanring::std_ext::owned;
use spanring_zmq::{Endpoint, HeaderError, MessageError, Receiver, ReceiverConfig, TagHeader};

/// A raw libzmq PUSH socket connected to `address`.
fn raw_push(address: &str) -> (zmq::Context, zmq::Socket) {
    let ctx = zmq::Context::new();
    let s = ctx.socket(zmq::PUSH).unwrap();
    s.set_linger(5000).unwrap();
    s.connect(address).unwrap();
    (ctx, s)
}

fn items(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

#[test]
fn bad_framing_is_rejected_and_counted_without_tag_header() {
    let (w, mut r) = owned::portable::<u32>(64).build().unwrap();
    let rx = Receiver::spawn(w, ReceiverConfig::pull(Endpoint::bind("tcp://127.0.0.1:0"))).unwrap();
    let (_ctx, push) = raw_push(rx.endpoint());
    push.send(items(&[1, 2]), 0).unwrap();
    push.send(&[9u8, 9, 9, 9, 9][..], 0).unwrap(); // 5 bytes: not whole u32s
    push.send(&[7u8][..], 0).unwrap(); // 1 byte
    push.send_multipart([items(&[5]), items(&[6])], 0).unwrap(); // two frames
    push.send(items(&[3]), 0).unwrap();
    push.send(Vec::<u8>::new(), 0).unwrap(); // empty: zero items, accepted, nothing written
    let stats = rx
        .wait_until(PATIENCE, |s| s.messages == 3 && s.framing_errors == 2)
        .unwrap();
    assert_eq!(stats.items, 3);
    assert_eq!(stats.frame_errors, 1);
    assert_eq!(stats.last_error, Some(MessageError::Frames { count: 2 }));
    let got: Vec<u32> = (0..3).map(|_| r.pop_timeout(PATIENCE).unwrap()).collect();
    assert_eq!(got, [1, 2, 3]);
    assert!(
        r.try_pop().is_err(),
        "nothing of a rejected message was written"
    );
    rx.stop();
}

#[test]
fn bad_headers_are_rejected_and_counted() {
    let (w, mut r) = owned::portable::<u32>(64).build().unwrap();
    let rx = Receiver::spawn(
        w,
        ReceiverConfig::pull(Endpoint::bind("tcp://127.0.0.1:0")).tag_header(true),
    )
    .unwrap();
    let (_ctx, push) = raw_push(rx.endpoint());
    let with_header = |offset: u64, v: &[u32]| {
        let mut m = TagHeader::bytes(offset).to_vec();
        m.extend(items(v));
        m
    };
    push.send(with_header(0, &[10, 11]), 0).unwrap();
    push.send(items(&[1, 2, 3, 4, 5]), 0).unwrap(); // no header at all: bad magic
    let mut v2 = with_header(2, &[12]);
    v2[2] = 2; // version 2
    push.send(v2, 0).unwrap();
    push.send(&[0xf0u8, 0x5f, 1, 0][..], 0).unwrap(); // too short
    let mut cut = with_header(2, &[]);
    cut[11] = 1; // one tag announced, none there
    push.send(cut, 0).unwrap();
    let mut odd = with_header(2, &[12]);
    odd.push(0); // header fine, 5 item bytes
    push.send(odd, 0).unwrap();
    push.send(with_header(2, &[12]), 0).unwrap();
    let stats = rx.wait_until(PATIENCE, |s| s.messages == 2).unwrap();
    assert_eq!(
        (stats.header_errors, stats.framing_errors, stats.gaps),
        (4, 1, 0)
    );
    assert_eq!((stats.items, stats.next_offset), (3, Some(3)));
    let got: Vec<u32> = (0..3).map(|_| r.pop_timeout(PATIENCE).unwrap()).collect();
    assert_eq!(got, [10, 11, 12]);
    rx.stop();
}

/// A header with real GNU Radio tags (PMT-serialised, as `pmt.serialize_str` of GNU Radio
/// 3.10.5.1 writes them): the tags are skipped and the items after them arrive.
#[test]
fn tags_are_skipped() {
    let (w, mut r) = owned::portable::<u32>(64).build().unwrap();
    let rx = Receiver::spawn(
        w,
        ReceiverConfig::pull(Endpoint::bind("tcp://127.0.0.1:0")).tag_header(true),
    )
    .unwrap();
    let (_ctx, push) = raw_push(rx.endpoint());
    let mut m = TagHeader::bytes(100).to_vec();
    m[11] = 2; // two tags
    for (offset, value) in [
        (100u64, &b"\x03\x00\x00\x00\x05"[..]),
        (
            101,
            &b"\x0a\x08\x00\x00\x00\x03\x01\x00\x3f\x80\x00\x00\x40\x00\x00\x00\x40\x40\x00\x00"[..],
        ),
    ] {
        m.extend(offset.to_le_bytes());
        m.extend(b"\x02\x00\x02ab"); // key: symbol "ab"
        m.extend(value); // value: int32 5 / f32 vector [1, 2, 3]
        m.extend(b"\x09\x07\x02\x00\x01k\x00\x06"); // source id: a dict {k: true}
    }
    let h = TagHeader::parse(&m).unwrap();
    assert_eq!((h.offset, h.tags, h.items_at), (100, 2, m.len()));
    m.extend(items(&[42, 43]));
    push.send(m, 0).unwrap();
    let stats = rx.wait_until(PATIENCE, |s| s.messages == 1).unwrap();
    assert_eq!((stats.items, stats.next_offset), (2, Some(102)));
    assert_eq!(
        (r.pop_timeout(PATIENCE), r.pop_timeout(PATIENCE)),
        (Ok(42), Ok(43))
    );
    rx.stop();
}

/// Arbitrary bytes never panic the header parser: every prefix and bit flip of a header with
/// tags gives a header or a typed error.
#[test]
fn header_parser_never_panics() {
    let mut m = TagHeader::bytes(7).to_vec();
    m[11] = 1;
    m.extend(7u64.to_le_bytes());
    m.extend(b"\x02\x00\x02ab\x08\x00\x00\x00\x02\x03\x00\x00\x00\x01\x07\x06\x06\x02\x00\x01s");
    assert!(TagHeader::parse(&m).is_ok());
    for len in 0..=m.len() {
        let _ = TagHeader::parse(&m[..len]);
    }
    for i in 0..m.len() {
        for bit in 0..8 {
            let mut f = m.clone();
            f[i] ^= 1 << bit;
            let _ = TagHeader::parse(&f);
        }
    }
    // Hostile counts: a vector of 2^32-1 elements in a 30-byte message.
    let mut huge = TagHeader::bytes(0).to_vec();
    huge[11] = 1;
    huge.extend(0u64.to_le_bytes());
    huge.extend(b"\x08\xff\xff\xff\xff\x06");
    assert_eq!(TagHeader::parse(&huge), Err(HeaderError::Tag { index: 0 }));
}
