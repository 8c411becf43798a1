//! Text-only input costs no heap allocation per chunk: deltas borrow from the
//! chunk and the parser's buffers stay untouched.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolsieve::{Event, Format, Parser};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set on the thread under test: the test harness allocates on its own
    /// threads meanwhile, which must not count.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTED.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// A code point split across chunks is completed in a small owned string
// (the one text allocation the parser makes), so chunks keep characters whole.
use toolsieve::contract::char_chunks;

#[test]
fn text_only_chunks_do_not_allocate() {
    let prose =
        "Plain prose with punctuation, numbers 1 2 3, unicode é 世界 and `ticks`. ".repeat(64);
    let prose = prose.as_str();
    COUNTED.with(|c| c.set(true));
    for format in [Format::Hermes, Format::Gemma] {
        let mut parser = Parser::new(format);
        let mut bytes = 0usize;
        // Warm up: the first stream may size the parser's buffers.
        parser.feed_str("warm up", &mut |_| {});
        parser.finish(&mut |_| {});
        for size in [1, 4, 16, 64, 4096] {
            let chunks = char_chunks(prose, size);
            let before = ALLOCATIONS.load(Ordering::SeqCst);
            for chunk in chunks {
                parser.feed_str(chunk, &mut |e| {
                    if let Event::TextDelta { delta, .. } = e {
                        bytes += delta.len();
                    }
                });
            }
            let after = ALLOCATIONS.load(Ordering::SeqCst);
            assert_eq!(after - before, 0, "{format} allocated at chunk size {size}");
            parser.finish(&mut |_| {});
        }
        assert_eq!(bytes, prose.len() * 5);
    }
}
