//! A small TensorBoard event-file writer: scalars and histograms.
//!
//! Why our own: `tensorboard-rs` is unmaintained since 2022, panics in `add_histogram` and
//! on I/O errors, and pulls `protobuf 2` (RUSTSEC-2024-0437); `tboard` needs `protoc` at
//! build time. The format is small enough to write by hand:
//!
//! * the file is a sequence of TFRecords: `u64` length (little-endian), the masked CRC-32C
//!   of those 8 bytes, the payload, and the masked CRC-32C of the payload;
//! * each payload is a `tensorflow.Event` protocol buffer: `wall_time` (field 1, double),
//!   `step` (2, int64), and either `file_version` (3, string; the first record says
//!   `brain.Event:2`) or `summary` (5). A `Summary` holds repeated `Value`s (1): `tag` (1),
//!   `simple_value` (2, float) or `histo` (5, a `HistogramProto`: `min` 1, `max` 2, `num` 3,
//!   `sum` 4, `sum_squares` 5, packed `bucket_limit` 6 and `bucket` 7, all doubles).
//!
//! Every write goes straight to the file (buffered; [`EventWriter::flush`] after each
//! logging round), so a killed trainer loses at most the last round. Errors are returned,
//! never panics.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Buckets of a histogram.
const BUCKETS: usize = 30;

const CRC32C_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0x82F6_3B78 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// CRC-32C (Castagnoli), as TFRecord uses.
fn crc32c(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c = CRC32C_TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// TFRecord's masked CRC: rotated and offset so a CRC of CRCs does not degenerate.
fn masked_crc(data: &[u8]) -> u32 {
    crc32c(data).rotate_right(15).wrapping_add(0xa282_ead8)
}

/// A protocol-buffer message under construction.
#[derive(Default)]
struct Proto(Vec<u8>);

impl Proto {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }

    fn double(&mut self, field: u32, v: f64) {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn float(&mut self, field: u32, v: f32) {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn int64(&mut self, field: u32, v: i64) {
        self.key(field, 0);
        self.varint(v as u64);
    }

    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    fn packed_doubles(&mut self, field: u32, vs: &[f64]) {
        let raw: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.bytes(field, &raw);
    }
}

/// The summary statistics and buckets of a histogram, as `HistogramProto` holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Number of values.
    pub num: f64,
    /// Sum of the values.
    pub sum: f64,
    /// Sum of their squares.
    pub sum_squares: f64,
    /// Right edge of each bucket.
    pub bucket_limit: Vec<f64>,
    /// Count in each bucket.
    pub bucket: Vec<f64>,
}

impl Histogram {
    /// Equal-width buckets between the smallest and largest finite value (non-finite values
    /// are left out).
    pub fn of(values: &[f32]) -> Histogram {
        let vs: Vec<f64> = values.iter().map(|&v| f64::from(v)).filter(|v| v.is_finite()).collect();
        let min = vs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (sum, sum_squares) = vs.iter().fold((0.0, 0.0), |(s, q), v| (s + v, q + v * v));
        if vs.is_empty() {
            return Histogram {
                min: 0.0,
                max: 0.0,
                num: 0.0,
                sum,
                sum_squares,
                bucket_limit: vec![0.0],
                bucket: vec![0.0],
            };
        }
        let width = (max - min) / BUCKETS as f64;
        let (bucket_limit, bucket) = if width <= 0.0 {
            (vec![max], vec![vs.len() as f64])
        } else {
            let mut counts = vec![0.0; BUCKETS];
            for v in &vs {
                counts[(((v - min) / width) as usize).min(BUCKETS - 1)] += 1.0;
            }
            let limits =
                (1..=BUCKETS).map(|i| if i == BUCKETS { max } else { min + width * i as f64 }).collect();
            (limits, counts)
        };
        Histogram { min, max, num: vs.len() as f64, sum, sum_squares, bucket_limit, bucket }
    }

    fn encode(&self) -> Vec<u8> {
        let mut p = Proto::default();
        p.double(1, self.min);
        p.double(2, self.max);
        p.double(3, self.num);
        p.double(4, self.sum);
        p.double(5, self.sum_squares);
        p.packed_doubles(6, &self.bucket_limit);
        p.packed_doubles(7, &self.bucket);
        p.0
    }
}

/// Writes one event file in a log directory.
#[derive(Debug)]
pub struct EventWriter {
    path: PathBuf,
    file: BufWriter<File>,
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

impl EventWriter {
    /// Creates `events.out.tfevents.<secs>.<host>.<pid>.<n>` in `dir` (created if needed)
    /// and writes the file-version record. Each writer gets a new file; TensorBoard reads
    /// all files of a directory in order.
    pub fn create(dir: &Path) -> io::Result<EventWriter> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        std::fs::create_dir_all(dir)?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_"))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into());
        let name = format!(
            "events.out.tfevents.{}.{host}.{}.{}",
            now() as u64,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        let file = BufWriter::new(std::fs::OpenOptions::new().create_new(true).write(true).open(&path)?);
        let mut w = EventWriter { path, file };
        let mut e = Proto::default();
        e.double(1, now());
        e.bytes(3, b"brain.Event:2");
        w.record(&e.0)?;
        w.flush()?;
        Ok(w)
    }

    /// The event file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn record(&mut self, payload: &[u8]) -> io::Result<()> {
        let len = (payload.len() as u64).to_le_bytes();
        self.file.write_all(&len)?;
        self.file.write_all(&masked_crc(&len).to_le_bytes())?;
        self.file.write_all(payload)?;
        self.file.write_all(&masked_crc(payload).to_le_bytes())
    }

    fn summary(&mut self, step: u64, value: &[u8]) -> io::Result<()> {
        let mut summary = Proto::default();
        summary.bytes(1, value);
        let mut e = Proto::default();
        e.double(1, now());
        e.int64(2, step as i64);
        e.bytes(5, &summary.0);
        self.record(&e.0)
    }

    /// Logs a scalar.
    pub fn scalar(&mut self, tag: &str, step: u64, value: f64) -> io::Result<()> {
        let mut v = Proto::default();
        v.bytes(1, tag.as_bytes());
        v.float(2, value as f32);
        self.summary(step, &v.0)
    }

    /// Logs a histogram of `values`.
    pub fn histogram(&mut self, tag: &str, step: u64, values: &[f32]) -> io::Result<()> {
        let mut v = Proto::default();
        v.bytes(1, tag.as_bytes());
        v.bytes(5, &Histogram::of(values).encode());
        self.summary(step, &v.0)
    }

    /// Pushes buffered records to the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_known_values() {
        // RFC 3720 B.4 test vectors.
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn varints_and_records_are_framed() {
        let mut p = Proto::default();
        p.varint(300);
        assert_eq!(p.0, [0xac, 0x02]);
        let dir = std::env::temp_dir().join(format!("hane-tb-unit-{}", std::process::id()));
        let mut w = EventWriter::create(&dir).unwrap();
        w.scalar("a/b", 3, 1.5).unwrap();
        w.flush().unwrap();
        let bytes = std::fs::read(w.path()).unwrap();
        // Walk the records and check every length and CRC.
        let mut at = 0;
        let mut n = 0;
        while at < bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            assert_eq!(
                masked_crc(&bytes[at..at + 8]),
                u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap())
            );
            let payload = &bytes[at + 12..at + 12 + len];
            let crc = u32::from_le_bytes(bytes[at + 12 + len..at + 16 + len].try_into().unwrap());
            assert_eq!(masked_crc(payload), crc);
            at += 16 + len;
            n += 1;
        }
        assert_eq!(n, 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn histograms_count_every_value() {
        let h = Histogram::of(&[0.0, 1.0, 2.0, 3.0, f32::NAN]);
        assert_eq!((h.min, h.max, h.num, h.sum, h.sum_squares), (0.0, 3.0, 4.0, 6.0, 14.0));
        assert_eq!(h.bucket.iter().sum::<f64>(), 4.0);
        assert_eq!(h.bucket_limit.len(), h.bucket.len());
        assert_eq!(*h.bucket_limit.last().unwrap(), 3.0);
        let flat = Histogram::of(&[2.0; 5]);
        assert_eq!((flat.bucket_limit, flat.bucket), (vec![2.0], vec![5.0]));
    }
}
