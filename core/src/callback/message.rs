//! A compile-time message builder: lets a `const` assertion name the sizes involved (a
//! `const` panic can format only a `&str`, so the numbers are written into a buffer first).

/// A message of at most 512 bytes, built in `const` evaluation.
pub(crate) struct ConstMessage {
    buf: [u8; 512],
    len: usize,
}

impl ConstMessage {
    /// An empty message.
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; 512],
            len: 0,
        }
    }

    /// Appends `s` (cut at the buffer's end).
    pub(crate) const fn str(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends `n` in decimal.
    pub(crate) const fn num(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while count > 0 && self.len < self.buf.len() {
            count -= 1;
            self.buf[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// The message so far.
    pub(crate) const fn as_str(&self) -> &str {
        // Only whole `&str`s and ASCII digits were appended, but a cut at the end may split a
        // character: fall back to a fixed text then.
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "closure does not fit its CallbackSlot (message cut)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ConstMessage;

    #[test]
    fn builds_text_and_numbers() {
        const M: ConstMessage = ConstMessage::new().str("a ").num(0).str(" b ").num(1234);
        assert_eq!(M.as_str(), "a 0 b 1234");
        assert_eq!(
            ConstMessage::new().num(u32::MAX as usize).as_str(),
            "4294967295"
        );
    }
}
