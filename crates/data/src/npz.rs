//! A minimal `.npz` writer and reader: a zip archive of `.npy` arrays, stored or deflated
//! (`numpy.savez` or `numpy.savez_compressed`), readable by `numpy.load`. Written by hand on
//! top of a deflate codec to control exactly what goes to disk, and to read one array (a
//! shard's metadata) without the rest.
//!
//! Only what hane's shards need: little-endian `u8`, `i8`, `f32` arrays in C order. The
//! reader goes by the central directory (with numpy's zip64 fields), checks it against the
//! file's length and every size before use, and refuses a member that unpacks beyond its
//! announced size, so a hostile file gives an error, never a panic or a huge allocation.
//!
//! What bounds the memory a read takes: members may not share or overlap their bytes, nor
//! repeat a name (numpy would read the last of two `policy_nm.npy`, this reader the first);
//! a member may announce at most [`MAX_RATIO`] times its packed size (deflate's own limit), and
//! exactly the size its `.npy` header's shape and type give, which is checked after the header
//! alone is unpacked. So a read holds at most the sum of the sizes of members whose packed
//! bytes are all distinct parts of the file: a few hundred times the file's length at worst,
//! however many central directory entries it has.

use hane_host::show::list;
use std::io::{Read, Seek, SeekFrom, Write};

/// Element type of an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `uint8`.
    U8,
    /// `int8`.
    I8,
    /// `float32`, little-endian.
    F32,
}

impl Dtype {
    /// NumPy's name of the type (`uint8`, `int8`, `float32`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "uint8",
            Dtype::I8 => "int8",
            Dtype::F32 => "float32",
        }
    }

    fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::F32 => "<f4",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::F32 => 4,
        }
    }

    fn from_descr(s: &str) -> Option<Dtype> {
        match s {
            "|u1" => Some(Dtype::U8),
            "|i1" => Some(Dtype::I8),
            "<f4" => Some(Dtype::F32),
            _ => None,
        }
    }
}

/// One named array: shape, type and raw little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// Name inside the archive, without `.npy`.
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// Shape, C order.
    pub shape: Vec<usize>,
    /// Raw data, `shape.product() * dtype.size()` bytes.
    pub data: Vec<u8>,
}

impl Array {
    /// An `f32` array.
    pub fn f32(name: &str, shape: Vec<usize>, values: &[f32]) -> Array {
        assert_eq!(shape.iter().product::<usize>(), values.len(), "{name}: shape and data disagree");
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Array { name: name.into(), dtype: Dtype::F32, shape, data }
    }

    /// A `u8` array.
    pub fn u8(name: &str, shape: Vec<usize>, values: Vec<u8>) -> Array {
        assert_eq!(shape.iter().product::<usize>(), values.len(), "{name}: shape and data disagree");
        Array { name: name.into(), dtype: Dtype::U8, shape, data: values }
    }

    /// An `i8` array.
    pub fn i8(name: &str, shape: Vec<usize>, values: &[i8]) -> Array {
        assert_eq!(shape.iter().product::<usize>(), values.len(), "{name}: shape and data disagree");
        Array { name: name.into(), dtype: Dtype::I8, shape, data: values.iter().map(|&v| v as u8).collect() }
    }

    /// The data as `f32` values (for `F32` arrays).
    pub fn as_f32(&self) -> Vec<f32> {
        self.data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn npy(&self) -> Vec<u8> {
        let shape = match self.shape.len() {
            1 => format!("({},)", self.shape[0]),
            _ => format!("({})", self.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
        };
        let mut header =
            format!("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", self.dtype.descr(), shape);
        // Magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes.
        let total = 10 + header.len() + 1;
        header.push_str(&" ".repeat((64 - total % 64) % 64));
        header.push('\n');
        let mut out = Vec::with_capacity(10 + header.len() + self.data.len());
        out.extend_from_slice(b"\x93NUMPY\x01\x00");
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }
}

/// CRC-32 (IEEE), as zip and `zlib.crc32` compute it: flate2's, the one CRC-32 of the
/// workspace.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(data);
    c.sum()
}

/// [`crc32`] fed in pieces, for data that is not in one buffer (a shard's arrays, a
/// checkpoint's tensors): the result is that of the pieces concatenated.
pub use flate2::Crc as Crc32;

/// How [`write`] stores each array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// As is (`numpy.savez`): the fastest to write and read.
    Stored,
    /// Deflated (`numpy.savez_compressed`): self-play rows shrink several times.
    Deflated,
}

/// Serialises arrays into a zip (`.npz`) in memory.
pub fn write(arrays: &[Array], compression: Compression) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for a in arrays {
        let name = format!("{}.npy", a.name);
        let body = a.npy();
        let crc = crc32(&body);
        let offset = out.len() as u32;
        let size = u32::try_from(body.len()).expect("array under 4 GiB");
        let (method, packed) = match compression {
            Compression::Stored => (0u16, body),
            Compression::Deflated => {
                let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                z.write_all(&body).expect("deflate into memory");
                (8, z.finish().expect("deflate into memory"))
            }
        };
        let packed_size = u32::try_from(packed.len()).expect("array under 4 GiB");
        // Local file header: version 2.0, no flags, the method, a fixed date (1980-01-01).
        out.extend_from_slice(&LOCAL.to_le_bytes());
        for v in [20u16, 0, method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, packed_size, size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&packed);
        // Central directory entry.
        central.extend_from_slice(&CENTRAL.to_le_bytes());
        for v in [20u16, 20, 0, method, 0, 0x21] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, packed_size, size] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        for v in [name.len() as u16, 0, 0, 0, 0] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&END.to_le_bytes());
    for v in [0u16, 0, arrays.len() as u16, arrays.len() as u16] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Signatures of a local file header, a central directory entry and the end of the central
/// directory.
const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;

/// The largest array the reader unpacks (a 19x19 shard of 100,000 rows is about 1 GB).
const MAX_MEMBER: u64 = 2 << 30;

/// The most bytes a deflate stream unpacks to per packed byte (258 bytes per 2 bits, plus
/// rounding: 1032), so a member announcing more is refused before anything is unpacked.
pub const MAX_RATIO: u64 = 1032;

/// Bytes a member may announce beyond [`MAX_RATIO`] times its packed size: a tiny stream's
/// fixed overhead.
const RATIO_SLACK: u64 = 1024;

/// The longest `.npy` header read (numpy writes under a hundred bytes; its own limit is
/// 10,000).
const MAX_HEADER: usize = 1 << 16;

hane_engine::message_error!(
    /// Why an archive could not be read.
    NpzError,
    prefix = "bad npz: "
);

impl From<std::io::Error> for NpzError {
    fn from(e: std::io::Error) -> NpzError {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof => NpzError("truncated".into()),
            _ => NpzError(e.to_string()),
        }
    }
}

fn bad<T>(msg: impl Into<String>) -> Result<T, NpzError> {
    Err(NpzError(msg.into()))
}

/// Little-endian fields of a record read whole.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes([self.0[at], self.0[at + 1]])
    }

    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.0[at..at + 4].try_into().expect("4 bytes"))
    }

    fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.0[at..at + 8].try_into().expect("8 bytes"))
    }
}

/// A member as the central directory lists it.
struct Entry {
    name: String,
    method: u16,
    crc: u32,
    packed: u64,
    size: u64,
    offset: u64,
    /// Where the next member (or the central directory) starts: this one's bytes end before.
    limit: u64,
}

fn read_exact<R: Read>(r: &mut R, n: u64) -> Result<Vec<u8>, NpzError> {
    let mut buf = Vec::new();
    r.take(n).read_to_end(&mut buf)?;
    if buf.len() as u64 != n {
        return bad("truncated");
    }
    Ok(buf)
}

/// The central directory of the archive in `r`, checked against the file's length: a
/// truncated or spliced file is refused even if some members are intact.
fn entries<R: Read + Seek>(r: &mut R) -> Result<Vec<Entry>, NpzError> {
    let len = r.seek(SeekFrom::End(0))?;
    if len < 22 {
        return bad("truncated");
    }
    r.seek(SeekFrom::Start(len - 22))?;
    let end = read_exact(r, 22)?;
    let end = Fields(&end);
    if end.u32(0) != END {
        return bad("missing end of central directory (truncated, or an archive comment)");
    }
    let (count, cd_size, cd_offset) = (end.u16(10), u64::from(end.u32(12)), u64::from(end.u32(16)));
    if cd_offset.checked_add(cd_size) != Some(len - 22) {
        return bad("inconsistent end of central directory");
    }
    r.seek(SeekFrom::Start(cd_offset))?;
    let cd = read_exact(r, cd_size)?;
    // Each entry takes 46 bytes at least: a count beyond what the directory holds reserves no
    // more (a fuzzed count of 65,535 once reserved 4 MiB for a 1.5 kB file).
    let mut out = Vec::with_capacity(usize::from(count).min(cd.len() / 46));
    let mut at = 0;
    for _ in 0..count {
        let f = Fields(cd.get(at..at + 46).ok_or(NpzError("central directory truncated".into()))?);
        if f.u32(0) != CENTRAL {
            return bad("bad central directory entry");
        }
        let (name_len, extra_len, comment_len) =
            (usize::from(f.u16(28)), usize::from(f.u16(30)), usize::from(f.u16(32)));
        let var = cd
            .get(at + 46..at + 46 + name_len + extra_len + comment_len)
            .ok_or(NpzError("central directory truncated".into()))?;
        let name = String::from_utf8(var[..name_len].to_vec()).or(bad("member name is not UTF-8"))?;
        if f.u16(8) & 1 != 0 {
            return bad(format!("{name}: encrypted"));
        }
        let mut e = Entry {
            name,
            method: f.u16(10),
            crc: f.u32(16),
            packed: u64::from(f.u32(20)),
            size: u64::from(f.u32(24)),
            offset: u64::from(f.u32(42)),
            limit: cd_offset,
        };
        zip64_sizes(&var[name_len..name_len + extra_len], &mut e)?;
        check_ratio(&e)?;
        out.push(e);
        at += 46 + name_len + extra_len + comment_len;
    }
    if out.is_empty() {
        return bad("no arrays");
    }
    disjoint(&mut out)?;
    Ok(out)
}

/// Refuses a member that announces more than its packed bytes can unpack to: as many for a
/// stored one, [`MAX_RATIO`] times as many (and at most [`MAX_MEMBER`]) for a deflated one.
fn check_ratio(e: &Entry) -> Result<(), NpzError> {
    let (name, size, packed) = (&e.name, e.size, e.packed);
    if size > MAX_MEMBER || packed > MAX_MEMBER {
        return bad(format!("{name}: {size} bytes, more than an array may hold"));
    }
    let most = match e.method {
        0 => packed,
        _ => packed.saturating_mul(MAX_RATIO).saturating_add(RATIO_SLACK),
    };
    if size > most {
        return bad(format!("{name}: announces {size} bytes from {packed} packed, more than they can hold"));
    }
    Ok(())
}

/// Refuses members that repeat a name or share bytes (a local header or data), and sets each
/// member's [`Entry::limit`]: the offset of the member after it.
fn disjoint(entries: &mut [Entry]) -> Result<(), NpzError> {
    let mut names = std::collections::HashSet::new();
    if let Some(e) = entries.iter().find(|e| !names.insert(e.name.as_str())) {
        return bad(format!("{}: listed twice", e.name));
    }
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].offset);
    for k in (0..order.len()).rev() {
        let e = &entries[order[k]];
        let limit = order.get(k + 1).map_or(e.limit, |&j| entries[j].offset);
        // The local header is 30 bytes and the name, at least.
        let least = (30 + e.name.len() as u64).saturating_add(e.packed);
        if e.offset.saturating_add(least) > limit {
            return bad(format!("{}: its bytes overlap another member's or the directory", e.name));
        }
        entries[order[k]].limit = limit;
    }
    Ok(())
}

/// Replaces the sizes and offset a zip64 extra field stands in for (`numpy.savez` writes
/// one for every member).
fn zip64_sizes(mut extra: &[u8], e: &mut Entry) -> Result<(), NpzError> {
    while extra.len() >= 4 {
        let f = Fields(extra);
        let (id, n) = (f.u16(0), usize::from(f.u16(2)));
        let Some(body) = extra.get(4..4 + n) else { return bad("bad extra field") };
        if id == 1 {
            let mut k = 0;
            for v in [&mut e.size, &mut e.packed, &mut e.offset] {
                if *v == 0xFFFF_FFFF {
                    let Some(b) = body.get(k..k + 8) else { return bad("bad zip64 field") };
                    *v = Fields(b).u64(0);
                    k += 8;
                }
            }
        }
        extra = &extra[4 + n..];
    }
    Ok(())
}

/// The array of member `e`, unpacked; its CRC-32 is checked when `verify`.
fn member<R: Read + Seek>(r: &mut R, e: &Entry, verify: bool) -> Result<Array, NpzError> {
    let name = &e.name;
    r.seek(SeekFrom::Start(e.offset))?;
    let head = read_exact(r, 30)?;
    let head = Fields(&head);
    if head.u32(0) != LOCAL {
        return bad(format!("{name}: bad local header"));
    }
    // The local header repeats the method, CRC and sizes (unless a data descriptor follows
    // the data, or zip64 fields hold the sizes): a copy that disagrees is damage.
    let sizes_here = head.u16(6) & 0x08 == 0;
    let agrees =
        |local: u32, central: u64| !sizes_here || local == 0xFFFF_FFFF || u64::from(local) == central;
    if head.u16(8) != e.method
        || !agrees(head.u32(14), u64::from(e.crc))
        || !agrees(head.u32(18), e.packed)
        || !agrees(head.u32(22), e.size)
    {
        return bad(format!("{name}: the local header disagrees with the central directory"));
    }
    let start = e.offset + 30 + u64::from(head.u16(26)) + u64::from(head.u16(28));
    if start + e.packed > e.limit {
        return bad(format!("{name}: its bytes overlap another member's or the directory"));
    }
    r.seek(SeekFrom::Start(start))?;
    let packed = r.take(e.packed);
    let Some(stem) = name.strip_suffix(".npy") else { return bad(format!("{name}: not an .npy member")) };
    let crc = verify.then_some(e.crc);
    match e.method {
        0 => read_npy(stem, packed, e.size, crc),
        8 => read_npy(stem, flate2::read::DeflateDecoder::new(packed), e.size, crc),
        m => bad(format!("{name}: compression method {m} (only stored and deflated)")),
    }
    .map_err(|err| NpzError(format!("{name}: {}", err.0)))
}

/// Reads `n` bytes of `src` into `out`, adding them to `crc`.
fn read_into(src: &mut impl Read, out: &mut [u8], crc: &mut Crc32) -> Result<(), NpzError> {
    src.read_exact(out).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => NpzError("unpacks to fewer bytes than announced".into()),
        _ => NpzError(e.to_string()),
    })?;
    crc.update(out);
    Ok(())
}

/// Unpacks an `.npy` array of `size` bytes from `src`: its header first, whose shape and type
/// must account for exactly `size` bytes, then its data, into one buffer of that size that
/// fills as the data comes. The data's CRC-32 must be `crc` if given.
fn read_npy(name: &str, mut src: impl Read, size: u64, crc: Option<u32>) -> Result<Array, NpzError> {
    let mut sum = Crc32::new();
    let mut lead = [0u8; 10];
    read_into(&mut src, &mut lead, &mut sum)?;
    if lead[..6] != *b"\x93NUMPY" {
        return bad("not an npy array");
    }
    let mut hlen = usize::from(u16::from_le_bytes([lead[8], lead[9]]));
    let mut prefix = 10;
    if lead[6] != 1 {
        let mut high = [0u8; 2];
        read_into(&mut src, &mut high, &mut sum)?;
        hlen += usize::from(u16::from_le_bytes(high)) << 16;
        prefix = 12;
    }
    if hlen > MAX_HEADER {
        return bad(format!("an npy header of {hlen} bytes"));
    }
    let mut header = vec![0u8; hlen];
    read_into(&mut src, &mut header, &mut sum)?;
    let header = std::str::from_utf8(&header).or(bad("header not UTF-8"))?;
    let (dtype, shape) = parse_header(header)?;
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let bytes = count.and_then(|n| n.checked_mul(dtype.size()));
    let whole = bytes.and_then(|b| b.checked_add(prefix + hlen));
    if whole.map(|w| w as u64) != Some(size) {
        return bad(format!("shape [{}] does not match the {size} bytes announced", list(&shape)));
    }
    // Zeroed memory is mapped lazily: only the pages the data reaches are touched.
    let mut data = vec![0u8; bytes.unwrap_or(0)];
    read_into(&mut src, &mut data, &mut sum)?;
    if src.read(&mut [0u8; 1])? != 0 {
        return bad(format!("unpacks beyond the {size} bytes announced"));
    }
    if crc.is_some_and(|c| c != sum.sum()) {
        return bad("CRC mismatch");
    }
    Ok(Array { name: name.into(), dtype, shape, data })
}

/// Reads every array of an `.npz` (stored or deflated members, as [`write`] and `numpy`
/// write them), verifying each member's CRC-32 when `verify`.
pub fn read<R: Read + Seek>(r: &mut R, verify: bool) -> Result<Vec<Array>, NpzError> {
    entries(r)?.iter().map(|e| member(r, e, verify)).collect()
}

/// Reads the array `name` alone (e.g. a shard's metadata without its rows).
pub fn read_one<R: Read + Seek>(r: &mut R, name: &str) -> Result<Array, NpzError> {
    let file = format!("{name}.npy");
    let entries = entries(r)?;
    let e = entries.iter().find(|e| e.name == file).ok_or(NpzError(format!("no {name} array")))?;
    member(r, e, true)
}

/// The type and shape an `.npy` header gives.
fn parse_header(header: &str) -> Result<(Dtype, Vec<usize>), NpzError> {
    let field = |key: &str| -> Result<&str, NpzError> {
        let i = header.find(key).ok_or_else(|| NpzError(format!("no {key} in header")))?;
        Ok(&header[i + key.len()..])
    };
    let descr = field("'descr': '")?;
    let descr = &descr[..descr.find('\'').unwrap_or(descr.len())];
    let dtype = Dtype::from_descr(descr).ok_or_else(|| NpzError(format!("dtype {descr} unsupported")))?;
    if field("'fortran_order': ")?.starts_with("True") {
        return bad("Fortran order unsupported");
    }
    let shape = field("'shape': (")?;
    let shape = &shape[..shape.find(')').unwrap_or(0)];
    let shape = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| NpzError("bad shape".into())))
        .collect::<Result<_, _>>()?;
    Ok((dtype, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_bytes(bytes: &[u8]) -> Result<Vec<Array>, NpzError> {
        read(&mut std::io::Cursor::new(bytes), true)
    }

    #[test]
    fn round_trip_and_corruption() {
        let arrays = vec![
            Array::f32("policy_nm", vec![2, 3], &[0.5, 0.25, 0.25, 1.0, 0.0, 0.0]),
            Array::u8("input_nchw", vec![1, 2, 2, 2], vec![1, 0, 1, 1, 0, 0, 1, 0]),
            Array::i8("ownership_nhw", vec![4], &[-1, 0, 1, 1]),
        ];
        for compression in [Compression::Stored, Compression::Deflated] {
            let bytes = write(&arrays, compression);
            assert_eq!(read_bytes(&bytes).unwrap(), arrays);
            let one = read_one(&mut std::io::Cursor::new(&bytes), "input_nchw").unwrap();
            assert_eq!(one, arrays[1]);
            let mut broken = bytes.clone();
            let i = broken.len() / 3;
            broken[i] ^= 0xFF;
            assert!(read_bytes(&broken).is_err());
            assert!(read_bytes(&bytes[..bytes.len() / 2]).is_err());
            assert!(read_bytes(&bytes[..bytes.len() - 1]).is_err());
        }
        assert!(read_bytes(b"").is_err());
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut pieces = Crc32::new();
        for piece in [&b"1234"[..], b"", b"56789"] {
            pieces.update(piece);
        }
        assert_eq!(pieces.sum(), 0xCBF4_3926);
    }

    #[test]
    fn a_member_that_announces_another_size_than_its_header_is_refused() {
        let arrays = vec![Array::u8("a", vec![4096], vec![0; 4096])];
        let mut bytes = write(&arrays, Compression::Deflated);
        // Announce 100 bytes less in the central directory: the local header disagrees.
        let cd = central(&bytes);
        let size = u32::from_le_bytes(bytes[cd + 24..cd + 28].try_into().unwrap());
        bytes[cd + 24..cd + 28].copy_from_slice(&(size - 100).to_le_bytes());
        let e = read_bytes(&bytes).unwrap_err();
        assert!(e.0.contains("disagrees"), "{e}");
        // In the local header too: the npy header's shape says otherwise.
        bytes[22..26].copy_from_slice(&(size - 100).to_le_bytes());
        let e = read_bytes(&bytes).unwrap_err();
        assert_eq!(e.0, "a.npy: shape [4096] does not match the 4124 bytes announced");
    }

    /// Where the central directory starts.
    fn central(bytes: &[u8]) -> usize {
        bytes.windows(4).position(|w| w == CENTRAL.to_le_bytes()).unwrap()
    }

    #[test]
    fn members_of_one_name_are_refused() {
        // Members that share bytes: tests/npz_memory.rs. Two members of one name: numpy would read the last, this reader the first.
        let arrays = [Array::u8("policy_nm", vec![1], vec![1]), Array::u8("policy_nm", vec![1], vec![2])];
        let e = read_bytes(&write(&arrays, Compression::Stored)).unwrap_err();
        assert_eq!(e.0, "policy_nm.npy: listed twice");
    }

    #[test]
    fn a_member_announcing_more_than_its_packed_bytes_can_hold_is_refused_unread() {
        for (compression, most) in [(Compression::Stored, 1), (Compression::Deflated, MAX_RATIO)] {
            let mut bytes = write(&[Array::u8("a", vec![64], vec![7; 64])], compression);
            let cd = central(&bytes);
            let packed = u64::from(u32::from_le_bytes(bytes[cd + 20..cd + 24].try_into().unwrap()));
            let size = (packed * most + RATIO_SLACK + 1) as u32;
            for at in [22, cd + 24] {
                bytes[at..at + 4].copy_from_slice(&size.to_le_bytes());
            }
            let e = read_bytes(&bytes).unwrap_err();
            let want = format!("a.npy: announces {size} bytes from {packed} packed, more than they can hold");
            assert_eq!(e.0, want);
        }
    }
}
