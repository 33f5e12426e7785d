//! The memory a hostile archive makes the reader take, measured by a counting allocator: a
//! small file whose central directory lists one big member many times (under other names)
//! once made a read allocate the member once per entry.

// A global allocator is the one way to see every allocation of a read.
#![allow(unsafe_code)]

use hane_data::npz::{self, Array, Compression};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held now and the most held since a reset.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes held at once while `f` runs, beyond those held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst) - before)
}

/// `bytes` (an archive of one member, `a.npy`) with `copies` more central directory entries
/// named `b.npy`, `c.npy`... that point at the same member's bytes.
fn with_copies(bytes: &[u8], copies: u8) -> Vec<u8> {
    let cd = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let end = bytes.len() - 22;
    let mut out = bytes[..end].to_vec();
    for k in 0..copies {
        let mut copy = bytes[cd..end].to_vec();
        let name = copy.len() - 5;
        copy[name] = b'b' + k;
        out.extend_from_slice(&copy);
    }
    let count = u16::from(copies) + 1;
    out.extend_from_slice(&bytes[end..end + 8]);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&((out.len() - 12 - cd) as u32).to_le_bytes());
    out.extend_from_slice(&bytes[end + 16..]);
    out
}

#[test]
fn entries_sharing_one_big_member_are_refused_without_unpacking_it() {
    const BIG: usize = 32 << 20;
    let one = npz::write(&[Array::u8("a", vec![BIG], vec![0; BIG])], Compression::Deflated);
    assert!(one.len() < BIG / 500, "{} bytes packed", one.len());
    // The one member alone unpacks (once).
    let (arrays, peak) = peak_of(|| npz::read(&mut std::io::Cursor::new(&one), true).unwrap());
    assert_eq!(arrays[0].data.len(), BIG);
    assert!(peak < BIG + (4 << 20), "{peak} bytes for one {BIG}-byte member");
    drop(arrays);
    // Listed 9 times, it is refused before anything is unpacked.
    let hostile = with_copies(&one, 8);
    let (read, peak) = peak_of(|| npz::read(&mut std::io::Cursor::new(&hostile), true));
    let e = read.unwrap_err();
    assert!(e.to_string().contains("overlap another member's"), "{e}");
    assert!(peak < 1 << 20, "{peak} bytes to refuse it");
}
