//! Giving memory back when a turn ends. A streamed reply allocates and
//! frees a lot (the wrapped rows of a 1 MB line, the provider's decode
//! buffers, event copies) on several threads; glibc keeps what was freed in
//! its per-thread arenas, so an idle zut would go on holding it. After a
//! turn (and after a resumed conversation is painted) the free pages are
//! returned to the system with `malloc_trim`.

/// Returns freed heap pages of every arena to the system (glibc only;
/// elsewhere nothing happens).
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists (under
    // its locks) and releases whole free pages; it touches no live
    // allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
