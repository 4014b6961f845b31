//! Placeholder: the bm_Buffer-style benchmark lands here.
fn main() {}
