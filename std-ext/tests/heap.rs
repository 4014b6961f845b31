//! Behaviour of `HeapStorage`: owns and drops its items, refuses emptiness.

use std::rc::Rc;

use spanring_core::Storage;
use spanring_std::{EmptyStorage, HeapStorage};

#[test]
fn drops_every_item_once() {
    let counter = Rc::new(());
    let storage = HeapStorage::new(vec![counter.clone(); 5]).unwrap();
    assert_eq!(Rc::strong_count(&counter), 6);
    assert_eq!(storage.capacity(), 5);
    drop(storage);
    assert_eq!(Rc::strong_count(&counter), 1);
}

#[test]
fn writes_through_the_pointer_are_kept() {
    let storage = HeapStorage::<u32>::with_capacity(4).unwrap();
    // SAFETY: index 3 < capacity; nobody else accesses the storage.
    unsafe { storage.as_mut_ptr().add(3).write(9) };
    // SAFETY: as above.
    assert_eq!(unsafe { storage.as_mut_ptr().add(3).read() }, 9);
    const { assert!(!<HeapStorage<u32> as Storage>::DOUBLE_MAPPED) };
}

#[test]
fn empty_is_an_error() {
    assert_eq!(
        HeapStorage::<u8>::new(Vec::new()).unwrap_err(),
        EmptyStorage
    );
    assert_eq!(
        HeapStorage::<u8>::with_capacity(0).unwrap_err(),
        EmptyStorage
    );
    assert!(!EmptyStorage.to_string().is_empty());
}

#[test]
fn is_send_and_sync_for_send_items() {
    fn check<T: Send + Sync>() {}
    check::<HeapStorage<String>>();
}
