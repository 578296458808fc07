//! The C library's memory functions for zut's static musl build (see the
//! README): `memcpy`, `memmove`, `memset`, `memcmp`, `bcmp`. Exported under
//! their C names only for `x86_64` musl targets; elsewhere they are plain
//! functions the tests compare with the standard library's.

#![no_std]
#![no_builtins]

/// Lengths up to this use 16-byte blocks; longer ones `rep movsb`/`stosb`.
const BLOCK_MAX: usize = 256;

/// Copies `n` bytes from `src` to `dst`; the areas must not overlap.
///
/// # Safety
/// As C's `memcpy`: both areas valid for `n` bytes, not overlapping.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), no_mangle)]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    forward(dst, src, n);
    dst
}

/// Copies `n` bytes from `src` to `dst`; the areas may overlap.
///
/// # Safety
/// As C's `memmove`: both areas valid for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), no_mangle)]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // Short copies load everything before storing anything; a forward
    // copy is safe whenever the destination starts first.
    if n <= 32 || (dst as usize).wrapping_sub(src as usize) >= n {
        forward(dst, src, n);
    } else {
        backward(dst, src, n);
    }
    dst
}

/// Fills `n` bytes at `dst` with the low byte of `c`.
///
/// # Safety
/// As C's `memset`: `dst` valid for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), no_mangle)]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    let b = c as u8;
    let w = u64::from_ne_bytes([b; 8]);
    if n <= 16 {
        if n >= 8 {
            store::<u64>(dst, w);
            store::<u64>(dst.add(n - 8), w);
        } else if n >= 4 {
            store::<u32>(dst, w as u32);
            store::<u32>(dst.add(n - 4), w as u32);
        } else if n > 0 {
            *dst = b;
            *dst.add(n / 2) = b;
            *dst.add(n - 1) = b;
        }
        return dst;
    }
    let q = u128::from_ne_bytes([b; 16]);
    if n <= BLOCK_MAX {
        let mut i = 0;
        while i + 16 < n {
            store::<u128>(dst.add(i), q);
            i += 16;
        }
        store::<u128>(dst.add(n - 16), q);
        return dst;
    }
    fill_long(dst, b, n);
    dst
}

/// Compares `n` bytes: negative, zero or positive as the first differing
/// byte (unsigned) of `a` is below, equal to or above that of `b`.
///
/// # Safety
/// As C's `memcmp`: both areas valid for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i + 8 <= n {
        let x = load::<u64>(a.add(i));
        let y = load::<u64>(b.add(i));
        if x != y {
            // In memory order, the first byte is the most significant.
            return if x.to_be() < y.to_be() { -1 } else { 1 };
        }
        i += 8;
    }
    while i < n {
        let (x, y) = (*a.add(i), *b.add(i));
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

/// Whether `n` bytes are equal: zero if so, non-zero otherwise.
///
/// # Safety
/// As C's `bcmp`: both areas valid for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if load::<u64>(a.add(i)) != load::<u64>(b.add(i)) {
                return 1;
            }
            i += 8;
        }
        // The last 8 bytes (overlapping what was compared).
        return i32::from(load::<u64>(a.add(n - 8)) != load::<u64>(b.add(n - 8)));
    }
    let mut i = 0;
    while i < n {
        if *a.add(i) != *b.add(i) {
            return 1;
        }
        i += 1;
    }
    0
}

/// An unaligned load.
#[inline(always)]
unsafe fn load<T: Copy>(p: *const u8) -> T {
    (p as *const T).read_unaligned()
}

/// An unaligned store.
#[inline(always)]
unsafe fn store<T: Copy>(p: *mut u8, v: T) {
    (p as *mut T).write_unaligned(v)
}

/// Copies front to back (safe when `dst` does not start inside
/// `src + 1 .. src + n`, or when `n <= 32`).
#[inline(always)]
unsafe fn forward(dst: *mut u8, src: *const u8, n: usize) {
    if n <= 16 {
        if n >= 8 {
            let (x, y) = (load::<u64>(src), load::<u64>(src.add(n - 8)));
            store(dst, x);
            store(dst.add(n - 8), y);
        } else if n >= 4 {
            let (x, y) = (load::<u32>(src), load::<u32>(src.add(n - 4)));
            store(dst, x);
            store(dst.add(n - 4), y);
        } else if n > 0 {
            let (x, y, z) = (*src, *src.add(n / 2), *src.add(n - 1));
            *dst = x;
            *dst.add(n / 2) = y;
            *dst.add(n - 1) = z;
        }
        return;
    }
    if n <= 32 {
        let (x, y) = (load::<u128>(src), load::<u128>(src.add(n - 16)));
        store(dst, x);
        store(dst.add(n - 16), y);
        return;
    }
    if n <= BLOCK_MAX {
        blocks_forward(dst, src, n);
        return;
    }
    copy_long(dst, src, n);
}

/// Copies `n > 16` bytes front to back in 16-byte blocks.
#[inline(always)]
unsafe fn blocks_forward(dst: *mut u8, src: *const u8, n: usize) {
    // The last block is read first: with an overlapping destination
    // before the source, the loop may overwrite it.
    let tail = load::<u128>(src.add(n - 16));
    let mut i = 0;
    while i + 16 < n {
        store(dst.add(i), load::<u128>(src.add(i)));
        i += 16;
    }
    store(dst.add(n - 16), tail);
}

/// Copies back to front, for a destination that starts inside the source
/// (`n > 32`).
#[inline(always)]
unsafe fn backward(dst: *mut u8, src: *const u8, n: usize) {
    // The first block is read first: the loop may overwrite it.
    let head = load::<u128>(src);
    let mut end = n;
    while end > 16 {
        end -= 16;
        store(dst.add(end), load::<u128>(src.add(end)));
    }
    store(dst, head);
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_long(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's areas; `rep movsb` copies front to back (the
    // direction flag is clear by the ABI) and touches only rcx, rdi, rsi.
    core::arch::asm!(
        "rep movsb",
        inout("rcx") n => _,
        inout("rdi") dst => _,
        inout("rsi") src => _,
        options(nostack, preserves_flags)
    );
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn copy_long(dst: *mut u8, src: *const u8, n: usize) {
    blocks_forward(dst, src, n);
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fill_long(dst: *mut u8, b: u8, n: usize) {
    // SAFETY: the caller's area; `rep stosb` touches only rcx and rdi.
    core::arch::asm!(
        "rep stosb",
        inout("rcx") n => _,
        inout("rdi") dst => _,
        in("al") b,
        options(nostack, preserves_flags)
    );
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn fill_long(dst: *mut u8, b: u8, n: usize) {
    let q = u128::from_ne_bytes([b; 16]);
    let mut i = 0;
    while i + 16 < n {
        store::<u128>(dst.add(i), q);
        i += 16;
    }
    store::<u128>(dst.add(n - 16), q);
}
