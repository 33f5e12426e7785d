//! The memory a hostile archive makes the reader take, measured by a counting allocator: a
//! small file whose central directory lists one big member many times (under other names)
//! once made a read allocate the member once per entry.

mod common;

use common::peak_of;
use hane_data::npz::{self, Array, Compression};

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
fn entries_sharing_a_small_member_are_refused_and_one_entry_reads() {
    let one = npz::write(&[Array::u8("a", vec![64], vec![7; 64])], Compression::Deflated);
    let read = |bytes: &[u8]| npz::read(&mut std::io::Cursor::new(bytes), true);
    assert_eq!(read(&with_copies(&one, 0)).unwrap().len(), 1);
    let e = read(&with_copies(&one, 3)).unwrap_err();
    assert!(e.to_string().ends_with(".npy: its bytes overlap another member's or the directory"), "{e}");
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
