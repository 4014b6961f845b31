//! The bytes a sender puts on the wire: GNU Radio's tag header (`f0 5f 01`, the offset of the
//! first item, zero tags, little-endian) followed by the raw items, checked with a raw libzmq
//! PULL socket.

mod common;

use common::PATIENCE;
use spanring::std_ext::owned;
use spanring_zmq::{Endpoint, Sender, SenderConfig};

#[test]
fn sender_writes_gnu_radio_tag_header_then_items() {
    let (mut w, r) = owned::portable::<[f32; 2]>(64).build().unwrap();
    let tx = Sender::spawn(
        r,
        SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0"))
            .tag_header(true)
            .first_offset(5)
            .max_items(3),
    )
    .unwrap();
    let ctx = zmq::Context::new();
    let pull = ctx.socket(zmq::PULL).unwrap();
    pull.set_rcvtimeo(i32::try_from(PATIENCE.as_millis()).unwrap())
        .unwrap();
    pull.connect(tx.endpoint()).unwrap();
    for i in 0..5 {
        w.push([i as f32, 0.5]).unwrap();
    }
    drop(w);
    assert_eq!(tx.join().stats.items, 5);
    let mut offset = 5u64;
    let mut seen = 0;
    while seen < 5 {
        let m = pull.recv_bytes(0).expect("message missing");
        assert_eq!(
            &m[..3],
            &[0xf0, 0x5f, 0x01],
            "magic 0x5FF0 little-endian, version 1"
        );
        assert_eq!(&m[3..11], &offset.to_le_bytes(), "offset of the first item");
        assert_eq!(&m[11..19], &[0u8; 8], "no tags");
        let body = &m[19..];
        assert_eq!(body.len() % 8, 0);
        let n = body.len() / 8;
        assert!((1..=3).contains(&n), "at most max_items per message");
        for (k, item) in body.chunks(8).enumerate() {
            let re = f32::from_ne_bytes(item[..4].try_into().unwrap());
            let im = f32::from_ne_bytes(item[4..].try_into().unwrap());
            assert_eq!((re, im), ((seen + k) as f32, 0.5));
        }
        seen += n;
        offset += n as u64;
    }
}

#[test]
fn sender_without_tag_header_sends_raw_items() {
    let (mut w, r) = owned::portable::<i16>(64).build().unwrap();
    let tx = Sender::spawn(r, SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0"))).unwrap();
    let ctx = zmq::Context::new();
    let pull = ctx.socket(zmq::PULL).unwrap();
    pull.set_rcvtimeo(i32::try_from(PATIENCE.as_millis()).unwrap())
        .unwrap();
    pull.connect(tx.endpoint()).unwrap();
    w.push(-2).unwrap();
    w.push(300).unwrap();
    drop(w);
    tx.join();
    let mut bytes = Vec::new();
    while bytes.len() < 4 {
        bytes.extend(pull.recv_bytes(0).expect("message missing"));
    }
    assert_eq!(
        bytes,
        [(-2i16).to_ne_bytes(), 300i16.to_ne_bytes()].concat()
    );
}
