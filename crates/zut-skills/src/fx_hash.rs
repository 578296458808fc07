//! A fast, non-cryptographic hasher (the "Fx" hash of rustc) for the small
//! maps of a discovery: skill names, folder identities, cache keys. Keys
//! come from the user's own files, so resistance to crafted collisions
//! (what std's SipHash buys, at several times the cost) is not needed.

use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hasher: per word, rotate, xor, multiply.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// `HashMap`/`HashSet` builder with [`FxHasher`].
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
/// A `HashMap` with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
/// A `HashSet` with [`FxHasher`].
pub(crate) type FxHashSet<T> = std::collections::HashSet<T, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_work_and_hashes_differ() {
        let mut m: FxHashMap<String, usize> = FxHashMap::default();
        for i in 0..1000 {
            m.insert(format!("skill-{i}"), i);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get("skill-537"), Some(&537));
        let h = |s: &str| {
            let mut h = FxHasher::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_ne!(h("a"), h("b"));
        assert_ne!(h("abcdefgh1"), h("abcdefgh2"));
    }
}
