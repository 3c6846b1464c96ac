//! Zeroed output buffers on transparent huge pages.
//!
//! The training arrays of a large input are hundreds of megabytes written
//! once (`board` alone is 64 bytes a position). On 4 KiB pages the kernel
//! takes a page fault and zeroes a page for every 4 KiB the threads first
//! write: a fifth of `training_arrays`' time on one thread, and the two
//! threads contend for the process's page tables. Linux backs a range with
//! 2 MiB pages where a process asks for them (`madvise(MADV_HUGEPAGE)`,
//! honoured when the system's transparent huge page mode is `always` or
//! `madvise`), one fault per 2 MiB.
//!
//! This module holds the crate's one hand-written `unsafe` call: the
//! advice, which changes neither the buffer's contents nor its mapping.

/// Buffers of fewer bytes stay on normal pages (the advice only applies to
/// whole aligned 2 MiB blocks).
const HUGE_PAGE: usize = 2 << 20;

/// A buffer of `n` default values, advised onto huge pages where it holds
/// whole 2 MiB blocks. For the integer and float types (whose default is
/// all zero bits) nothing has touched it yet: a large zeroed `vec!` is
/// fresh memory from the system (calloc), first touched when written.
pub(crate) fn zeroed<T: Clone + Default>(n: usize) -> Vec<T> {
    let v = vec![T::default(); n];
    advise_huge(v.as_ptr().cast(), std::mem::size_of_val(v.as_slice()));
    v
}

/// Asks the kernel for huge pages for the whole 2 MiB blocks of
/// `[start, start + len)`; a refusal (no transparent huge pages, another
/// system) only leaves normal pages.
#[cfg(target_os = "linux")]
fn advise_huge(start: *const u8, len: usize) {
    let begin = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize).saturating_add(len) / HUGE_PAGE * HUGE_PAGE;
    if end <= begin {
        return;
    }
    // Within the allocation: `begin` is at or after `start`, `end` at or
    // before its end, so the offset stays inside it.
    let at = start.wrapping_add(begin - start as usize).cast_mut();
    // SAFETY: `[at, at + (end - begin))` lies inside a live allocation that
    // this function's caller owns and nothing else refers to yet. The
    // advice MADV_HUGEPAGE only chooses the page size the kernel backs the
    // range with: it changes no byte (the pages are zero either way) and
    // no mapping, so no reference anywhere can observe it. An error (the
    // advice is not supported) leaves the range as it was.
    #[allow(unsafe_code)]
    let _ =
        unsafe { rustix::mm::madvise(at.cast(), end - begin, rustix::mm::Advice::LinuxHugepage) };
}

/// Other systems: normal pages.
#[cfg(not(target_os = "linux"))]
fn advise_huge(_start: *const u8, _len: usize) {}
