//! `shared::validate` against mutated, random and truncated headers: it returns a typed error
//! or a layout that is consistent with the object and the expectation, never panics. Pure (no
//! system call), so it also runs under Miri (`cargo +nightly miri test -p spanring-std --test
//! shared_header_fuzz`), with fewer iterations.
#![cfg(all(target_os = "linux", target_has_atomic = "64"))]

use spanring_std::shared::{
    validate, ClaimMode, Expected, Header, HeaderError, HeaderInfo, ItemIdentity, SegmentLayout,
    StateLayout, HEADER_LEN,
};

/// xorshift64*: deterministic, seedable, no dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A value that hits edges often: 0, 1, powers of two and their neighbours, maxima.
    fn interesting(&mut self) -> u64 {
        match self.below(6) {
            0 => 0,
            1 => 1 << self.below(64),
            2 => (1u64 << self.below(64)).wrapping_sub(1),
            3 => u64::MAX - self.below(4096),
            4 => self.below(1 << 20),
            _ => self.next(),
        }
    }
}

/// Scaled down under Miri, which interprets every instruction.
const fn scaled(native: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

/// A few valid layouts of different shapes, with their expectations.
fn samples() -> Vec<(SegmentLayout, Expected)> {
    let cases: [(ItemIdentity, u64, u32, ClaimMode, StateLayout, u64); 3] = [
        (
            ItemIdentity::of::<u64>(),
            512,
            1,
            ClaimMode::SingleProducer,
            StateLayout { size: 64, align: 8 },
            4096,
        ),
        (
            ItemIdentity::of::<[f32; 2]>(),
            4096,
            7,
            ClaimMode::MultiProducer,
            StateLayout {
                size: 5000,
                align: 128,
            },
            4096,
        ),
        (
            ItemIdentity::of::<[u8; 3]>(),
            16384,
            2,
            ClaimMode::SingleProducer,
            StateLayout { size: 1, align: 1 },
            16384,
        ),
    ];
    cases
        .iter()
        .map(|&(item, cap, slots, claim, state, page)| {
            let layout = SegmentLayout::compute(item, cap, slots, claim, state, page).unwrap();
            let expected = Expected {
                item,
                claim,
                state,
                capacity: Some(cap),
                reader_slots: Some(slots),
                page_size: page,
                object_size: layout.total,
            };
            (layout, expected)
        })
        .collect()
}

/// What an accepted header must satisfy, whatever bytes it came from.
fn assert_consistent(info: &HeaderInfo, expected: &Expected) {
    let l = &info.layout;
    assert_eq!(l.total, expected.object_size);
    assert_eq!(l.item, expected.item);
    assert_eq!(l.claim, expected.claim);
    assert_eq!(l.state, expected.state);
    if let Some(c) = expected.capacity {
        assert_eq!(l.capacity, c);
    }
    if let Some(s) = expected.reader_slots {
        assert_eq!(l.reader_slots, s);
    }
    assert_eq!(l.page_size, expected.page_size);
    let parts = [l.header, l.state_block, l.slots, l.data];
    let mut end = 0;
    for p in parts {
        assert_eq!(p.offset % l.page_size, 0);
        assert_eq!(p.len % l.page_size, 0);
        assert!(p.offset >= end);
        end = p.end().unwrap();
    }
    assert!(end <= l.total);
    assert!(l.state_block.len >= l.state.size);
    assert_eq!(l.data.len, l.capacity * l.item.size);
    assert_eq!(l.slots.len, u64::from(l.reader_slots) * l.page_size);
    // Accepted means it is the layout the creator's function gives for these parameters.
    let again = SegmentLayout::compute(
        l.item,
        l.capacity,
        l.reader_slots,
        l.claim,
        l.state,
        l.page_size,
    )
    .unwrap();
    assert_eq!(&again, l);
}

/// Validates and checks the outcome: a typed error (its `Display` works) or a consistent layout.
fn check(bytes: &[u8], expected: &Expected) -> Result<HeaderInfo, HeaderError> {
    let result = validate(bytes, expected);
    match &result {
        Ok(info) => assert_consistent(info, expected),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    result
}

#[test]
fn valid_headers_validate() {
    for (layout, expected) in samples() {
        let info = check(&Header::for_layout(&layout).to_bytes(), &expected).unwrap();
        assert_eq!(info.layout, layout);
        // A longer slice (the header page) is fine: only the header's bytes are read.
        let mut page = vec![0u8; 4096];
        page[..HEADER_LEN].copy_from_slice(&Header::for_layout(&layout).to_bytes());
        assert_eq!(check(&page, &expected).unwrap().layout, layout);
    }
}

#[test]
fn every_single_byte_change_is_caught() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for (layout, expected) in samples() {
        let good = Header::for_layout(&layout).to_bytes();
        for i in 0..HEADER_LEN {
            let mut flips = if cfg!(miri) {
                vec![0xFFu8]
            } else {
                vec![0x01u8, 0x80, 0xFF]
            };
            for _ in 0..scaled(8, 1) {
                flips.push((rng.below(255) + 1) as u8);
            }
            for flip in flips {
                let mut bytes = good;
                bytes[i] ^= flip;
                // Every field is covered by the magic, the marker or the layout hash (or is
                // the hash): no single changed byte may be accepted.
                let result = check(&bytes, &expected);
                assert!(result.is_err(), "byte {i} ^ {flip:#x} accepted");
            }
        }
    }
}

#[test]
fn truncations_are_typed_errors() {
    for (layout, expected) in samples() {
        let good = Header::for_layout(&layout).to_bytes();
        for len in 0..HEADER_LEN {
            assert_eq!(
                check(&good[..len], &expected),
                Err(HeaderError::Truncated {
                    len: len as u64,
                    needed: HEADER_LEN as u64
                })
            );
        }
        // An object smaller than a header, whatever the bytes say.
        for size in [0, 1, HEADER_LEN as u64 - 1] {
            let small = Expected {
                object_size: size,
                ..expected
            };
            assert!(matches!(
                check(&good, &small),
                Err(HeaderError::Truncated { .. })
            ));
        }
        // An object of any other size than recorded.
        for size in [HEADER_LEN as u64, layout.total - 1, layout.total + 4096] {
            let other = Expected {
                object_size: size,
                ..expected
            };
            assert!(check(&good, &other).is_err());
        }
    }
}

#[test]
fn random_bytes_are_refused() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    let (_, expected) = samples().remove(0);
    for _ in 0..scaled(20_000, 100) {
        let mut bytes = [0u8; HEADER_LEN];
        for b in &mut bytes {
            *b = rng.next() as u8;
        }
        assert!(check(&bytes, &expected).is_err());
    }
}

/// Random field values with the magic, marker and layout hash kept right, so that the checks
/// behind the hash (part bounds, order, overflow, re-derivation, expectations) are reached.
#[test]
fn rehashed_field_mutations_never_panic() {
    let mut rng = XorShift(0x0dd_ba11_cafe_f00d);
    let mut accepted = 0;
    let mut refused = 0;
    for (layout, expected) in samples() {
        let good = Header::for_layout(&layout);
        for _ in 0..scaled(20_000, 150) {
            let mut h = good;
            for _ in 0..=rng.below(3) {
                let v = rng.interesting();
                match rng.below(18) {
                    0 => h.page_size = v,
                    1 => h.item_name_hash = v,
                    2 => h.item_size = v,
                    3 => h.item_align = v,
                    4 => h.capacity = v,
                    5 => h.reader_slots = v as u32,
                    6 => h.state_size = v,
                    7 => h.state_align = v,
                    8 => h.state_offset = v,
                    9 => h.state_len = v,
                    10 => h.slots_offset = v,
                    11 => h.slot_len = v,
                    12 => h.data_offset = v,
                    13 => h.data_len = v,
                    14 => h.total_size = v,
                    15 => h.claim_mode = v as u32,
                    16 => h.version = v as u32,
                    _ => h.reserved = v as u32,
                }
            }
            h.layout_hash = h.compute_layout_hash();
            // Half the time the attacher accepts any capacity and slot count, and the object
            // is as large as the mutated header claims: more headers get deep into the checks.
            let loose = Expected {
                capacity: None,
                reader_slots: None,
                object_size: h.total_size,
                ..expected
            };
            let e = if rng.below(2) == 0 { expected } else { loose };
            match check(&h.to_bytes(), &e) {
                Ok(_) => accepted += 1,
                Err(_) => refused += 1,
            }
        }
    }
    // Both outcomes occur (the unchanged draws and harmless changes are accepted).
    assert!(refused > 0);
    assert!(
        accepted > 0,
        "no mutation was accepted: the generator misses valid headers"
    );
}
