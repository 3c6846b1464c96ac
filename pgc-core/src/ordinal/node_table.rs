//! The table the opening caches keep their trees in: entries (parent node,
//! label) → (child node, value), in a fixed table of `SLOTS` slots (a power
//! of two) allocated on the first insertion and at most half filled, found
//! by open addressing (Fibonacci hashing, linear probing). Entry i leads to
//! node i + 1; node 0 is the root.

/// A table key: the parent node and the label below it, never
/// [`Key::EMPTY`].
pub(crate) trait Key: Copy + Eq {
    /// The key of an empty slot.
    const EMPTY: Self;
    /// The key as 64 bits, to hash.
    fn bits(self) -> u64;
}

impl Key for u32 {
    const EMPTY: u32 = 0;
    #[inline(always)]
    fn bits(self) -> u64 {
        u64::from(self)
    }
}

impl Key for u64 {
    const EMPTY: u64 = 0;
    #[inline(always)]
    fn bits(self) -> u64 {
        self
    }
}

#[derive(Clone, Copy)]
struct Slot<K, V> {
    key: K,
    child: u32,
    /// `None` in an empty slot only.
    value: Option<V>,
}

/// Entries (key → child node, value); see the module doc.
#[derive(Clone)]
pub(crate) struct NodeTable<K, V, const SLOTS: usize> {
    slots: Vec<Slot<K, V>>,
    entries: usize,
}

impl<K, V, const SLOTS: usize> Default for NodeTable<K, V, SLOTS> {
    fn default() -> Self {
        NodeTable {
            slots: Vec::new(),
            entries: 0,
        }
    }
}

impl<K: Key, V: Copy, const SLOTS: usize> NodeTable<K, V, SLOTS> {
    /// The most entries kept: half the slots.
    pub(crate) const CAPACITY: usize = SLOTS / 2;

    /// Entries made.
    pub(crate) fn len(&self) -> usize {
        self.entries
    }

    /// The first slot to probe for `key`.
    #[inline(always)]
    fn home(key: K) -> usize {
        (key.bits().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// The value and child node of `key`, when entered.
    #[inline]
    pub(crate) fn get(&self, key: K) -> Option<(V, u32)> {
        if self.slots.is_empty() {
            return None;
        }
        let mut at = Self::home(key);
        loop {
            let slot = &self.slots[at];
            if slot.key == key {
                return slot.value.map(|v| (v, slot.child));
            }
            if slot.key == K::EMPTY {
                return None;
            }
            at = (at + 1) & (SLOTS - 1);
        }
    }

    /// Enters `value` under `key` (kept as it is when `key` is there) and
    /// returns the child node, or `None` when the table is full.
    #[inline]
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<u32> {
        if self.entries >= Self::CAPACITY {
            return None;
        }
        if self.slots.is_empty() {
            self.slots = vec![
                Slot {
                    key: K::EMPTY,
                    child: 0,
                    value: None,
                };
                SLOTS
            ];
        }
        let mut at = Self::home(key);
        while self.slots[at].key != K::EMPTY {
            if self.slots[at].key == key {
                return Some(self.slots[at].child);
            }
            at = (at + 1) & (SLOTS - 1);
        }
        self.entries += 1;
        let child = self.entries as u32;
        self.slots[at] = Slot {
            key,
            child,
            value: Some(value),
        };
        Some(child)
    }
}
