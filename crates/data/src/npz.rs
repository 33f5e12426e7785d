//! A minimal `.npz` writer and reader: a zip archive of `.npy` arrays, stored uncompressed,
//! readable by `numpy.load`. Written by hand to keep the data path free of heavy
//! dependencies and to control exactly what goes to disk.
//!
//! Only what hane's shards need: little-endian `u8`, `i8`, `f32` arrays in C order. The
//! reader accepts only archives of that shape (our own files) and checks every size before
//! use, so a hostile file gives an error, never a panic or a huge allocation.

use std::fmt;

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

/// CRC-32 (IEEE), as zip and `zlib.crc32` compute it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::default();
    c.update(data);
    c.finish()
}

/// [`crc32`] fed in pieces, for data that is not in one buffer (a shard's arrays, a
/// checkpoint's tensors): the result is that of the pieces concatenated.
#[derive(Clone, Copy, Debug)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Crc32 {
        Crc32(!0)
    }
}

impl Crc32 {
    /// Adds `data`.
    pub fn update(&mut self, data: &[u8]) {
        static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
        let t = TABLE.get_or_init(|| {
            let mut t = [0u32; 256];
            for (i, e) in t.iter_mut().enumerate() {
                let mut c = i as u32;
                for _ in 0..8 {
                    c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                }
                *e = c;
            }
            t
        });
        self.0 = data.iter().fold(self.0, |c, &b| t[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8));
    }

    /// The checksum of everything added.
    pub fn finish(self) -> u32 {
        !self.0
    }
}

/// Serialises arrays into an uncompressed zip (`.npz`) in memory.
pub fn write(arrays: &[Array]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for a in arrays {
        let name = format!("{}.npy", a.name);
        let body = a.npy();
        let crc = crc32(&body);
        let offset = out.len() as u32;
        let size = u32::try_from(body.len()).expect("array under 4 GiB");
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        for v in [20u16, 0, 0, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, size, size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&body);
        // Central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        for v in [20u16, 20, 0, 0, 0, 0x21] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, size, size] {
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
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, arrays.len() as u16, arrays.len() as u16] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Why an archive could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpzError(pub String);

impl fmt::Display for NpzError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad npz: {}", self.0)
    }
}

impl std::error::Error for NpzError {}

fn bad<T>(msg: impl Into<String>) -> Result<T, NpzError> {
    Err(NpzError(msg.into()))
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NpzError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else { return bad("truncated") };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u16(&mut self) -> Result<u16, NpzError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, NpzError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Reads an uncompressed `.npz` written by [`write`], verifying each member's CRC-32.
pub fn read(data: &[u8]) -> Result<Vec<Array>, NpzError> {
    let mut c = Cursor { data, pos: 0 };
    let mut out = Vec::new();
    while c.data.len() - c.pos >= 4 && c.data[c.pos..c.pos + 4] == 0x0403_4b50u32.to_le_bytes() {
        c.take(4)?;
        let _version = c.u16()?;
        let flags = c.u16()?;
        let method = c.u16()?;
        c.take(4)?;
        let crc = c.u32()?;
        let size = c.u32()? as usize;
        let usize_ = c.u32()? as usize;
        let name_len = c.u16()? as usize;
        let extra = c.u16()? as usize;
        if method != 0 || flags & 0x08 != 0 || size != usize_ {
            return bad("only stored (uncompressed) members with sizes in the header are supported");
        }
        let name = String::from_utf8(c.take(name_len)?.to_vec()).or(bad("member name is not UTF-8"))?;
        c.take(extra)?;
        let body = c.take(size)?;
        if crc32(body) != crc {
            return bad(format!("{name}: CRC mismatch"));
        }
        let Some(stem) = name.strip_suffix(".npy") else { return bad(format!("{name}: not an .npy member")) };
        out.push(parse_npy(stem, body)?);
    }
    if out.is_empty() {
        return bad("no arrays");
    }
    // The archive must end with an intact end-of-central-directory record that counts the same
    // members: a truncated or spliced file is refused even if its members are intact.
    let eocd = data.len().checked_sub(22).map(|i| &data[i..]);
    match eocd {
        Some(e)
            if e[..4] == 0x0605_4b50u32.to_le_bytes()
                && usize::from(u16::from_le_bytes([e[10], e[11]])) == out.len() =>
        {
            Ok(out)
        }
        _ => bad("missing or inconsistent end of central directory"),
    }
}

fn parse_npy(name: &str, body: &[u8]) -> Result<Array, NpzError> {
    let mut c = Cursor { data: body, pos: 0 };
    if c.take(6)? != b"\x93NUMPY" {
        return bad(format!("{name}: not an npy array"));
    }
    let version = c.take(2)?;
    let hlen = if version[0] == 1 { c.u16()? as usize } else { c.u32()? as usize };
    let header = std::str::from_utf8(c.take(hlen)?).or(bad(format!("{name}: header not UTF-8")))?;
    let field = |key: &str| -> Result<&str, NpzError> {
        let i = header.find(key).ok_or_else(|| NpzError(format!("{name}: no {key} in header")))?;
        Ok(&header[i + key.len()..])
    };
    let descr = field("'descr': '")?;
    let descr = &descr[..descr.find('\'').unwrap_or(descr.len())];
    let dtype =
        Dtype::from_descr(descr).ok_or_else(|| NpzError(format!("{name}: dtype {descr} unsupported")))?;
    if field("'fortran_order': ")?.starts_with("True") {
        return bad(format!("{name}: Fortran order unsupported"));
    }
    let shape = field("'shape': (")?;
    let shape = &shape[..shape.find(')').unwrap_or(0)];
    let shape: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| NpzError(format!("{name}: bad shape"))))
        .collect::<Result<_, _>>()?;
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let bytes = count.and_then(|n| n.checked_mul(dtype.size()));
    let data = &body[c.pos..];
    if bytes != Some(data.len()) {
        return bad(format!("{name}: shape {shape:?} does not match {} data bytes", data.len()));
    }
    Ok(Array { name: name.into(), dtype, shape, data: data.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let arrays = vec![
            Array::f32("policy_nm", vec![2, 3], &[0.5, 0.25, 0.25, 1.0, 0.0, 0.0]),
            Array::u8("input_nchw", vec![1, 2, 2, 2], vec![1, 0, 1, 1, 0, 0, 1, 0]),
            Array::i8("ownership_nhw", vec![4], &[-1, 0, 1, 1]),
        ];
        let bytes = write(&arrays);
        assert_eq!(read(&bytes).unwrap(), arrays);
        let mut broken = bytes.clone();
        let i = broken.len() / 3;
        broken[i] ^= 0xFF;
        assert!(read(&broken).is_err());
        assert!(read(&bytes[..bytes.len() / 2]).is_err());
        assert!(read(b"").is_err());
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut pieces = Crc32::default();
        for piece in [&b"1234"[..], b"", b"56789"] {
            pieces.update(piece);
        }
        assert_eq!(pieces.finish(), 0xCBF4_3926);
    }
}
