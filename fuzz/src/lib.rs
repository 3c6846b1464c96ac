//! Support for the fuzz targets: the invariants ([`checks`]) and an
//! allocator that aborts on an allocation larger than the input justifies
//! ([`CappedAlloc`]).

pub mod checks;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Length of the current fuzz input (set by [`set_input_len`]).
static INPUT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Fixed allowance: the readers' refill buffers (PGC 64 KiB, PGN 256 KiB
/// growing by doubling), the decoder's output buffer and such.
const FLOOR: usize = 4 << 20;
/// Allowance per input byte: PGC → PGN text grows at most ~16× (one ordinal
/// byte becomes a move number and SAN), and buffers double.
const PER_BYTE: usize = 64;

/// Records the input length that bounds single allocations.
pub fn set_input_len(n: usize) {
    INPUT_LEN.store(n, Ordering::Relaxed);
}

/// The largest single allocation allowed for an input of `n` bytes.
pub fn cap(n: usize) -> usize {
    FLOOR.saturating_add(n.saturating_mul(PER_BYTE))
}

/// The system allocator, aborting on any single allocation over [`cap`] of
/// the current input: a length field believed before it was checked shows
/// up as a crash, not as a slow out-of-memory.
pub struct CappedAlloc;

fn check(size: usize) {
    let limit = cap(INPUT_LEN.load(Ordering::Relaxed));
    if size > limit {
        // No allocation here: a panic message would allocate, so write raw.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"CappedAlloc: allocation larger than the input justifies\n",
        );
        std::process::abort();
    }
}

// SAFETY: every call is forwarded unchanged to `System`; `check` only reads
// an atomic and may abort.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Declares the capped allocator and a libFuzzer target running `$check`.
#[macro_export]
macro_rules! target {
    ($check:path) => {
        #[global_allocator]
        static ALLOC: $crate::CappedAlloc = $crate::CappedAlloc;

        libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $crate::set_input_len(data.len());
            $check(data);
        });
    };
}
