//! A FIFO ring of `Copy` records with a power-of-two capacity: a link's packets in
//! propagation and its unfinished transmissions (`net/link.rs`), pushed and popped once per
//! packet per hop. `VecDeque` does the same job; this one wraps indices with a mask instead
//! of a compare-and-subtract and never shrinks, which is what the hot path needs (measured
//! in docs/performance.md, *Speed III*). Growth doubles the capacity (amortised O(1)) and
//! keeps the order; in steady state nothing is allocated.

#[derive(Clone, Debug)]
pub struct Ring<T: Copy> {
    /// Slots; the length is 0 or a power of two. Slots outside `[head, head + len)` hold
    /// stale copies (any value of `T`: only the live ones are ever read).
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = x;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(x)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.buf[self.head])
    }

    /// The `i`-th record from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        Some(&self.buf[(self.head + i) & self.mask()])
    }

    /// Front to back.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }

    /// Double the capacity (at least 16 slots), the live records first and in order; `fill`
    /// pads the new slots.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(16);
        let mut b = Vec::with_capacity(cap);
        b.extend(self.iter().copied());
        b.resize(cap, fill);
        self.buf = b;
        self.head = 0;
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("ring index out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_vecdeque_across_growth_and_wrap_around() {
        let mut r = Ring::new();
        let mut d = VecDeque::new();
        let mut x = 0u64;
        // A random walk of pushes and pops (xorshift), long enough to wrap many times and
        // to grow from 0 to a few hundred slots.
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for step in 0..200_000u32 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let push = if step < 100_000 {
                !s.is_multiple_of(3)
            } else {
                s.is_multiple_of(3)
            };
            if push {
                x += 1;
                r.push_back(x);
                d.push_back(x);
            } else {
                assert_eq!(r.pop_front(), d.pop_front());
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            if step.is_multiple_of(997) {
                assert!(r.iter().eq(d.iter()));
                for i in [0, 1, r.len() / 2, r.len().saturating_sub(1), r.len()] {
                    assert_eq!(r.get(i), d.get(i));
                }
            }
        }
        while let Some(v) = d.pop_front() {
            assert_eq!(r.pop_front(), Some(v));
        }
        assert!(r.is_empty());
        assert_eq!(r.pop_front(), None);
    }
}
