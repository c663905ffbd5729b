//! The histograms both evaluators fill (`simulator/contract/histograms.py` makes RunResult sections
//! of them): a neighbour's latencies in 1 % buckets, HdrHistogram style, and batch sizes in log2
//! buckets.

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// log(1.01): a latency bucket's width.
fn step() -> f64 {
    1.01f64.ln()
}

/// Upper edge (ms) of a latency bucket, never over the largest latency counted.
pub fn upper_edge_ms(index: usize, maximum: f64) -> f64 {
    let edge = (index as f64 * step()).exp() / 1e3;
    let most = maximum * 1e3;
    if most < edge { most } else { edge }
}

/// A latency's figures as a RunResult gives them: count, p50, p95, p99, p999 and max (ms).
pub fn latency_summary<'py>(py: Python<'py>, count: i64, percentile: impl Fn(f64) -> Option<f64>, any: bool,
                            maximum: f64) -> PyResult<Bound<'py, PyDict>> {
    let summary = PyDict::new(py);
    summary.set_item("count", count)?;
    for (name, fraction) in [("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)] {
        summary.set_item(name, percentile(fraction))?;
    }
    summary.set_item("max", if any { Some(maximum * 1e3) } else { None })?;
    Ok(summary)
}

/// Log-bucketed latencies (1 % wide buckets from 1 microsecond), HdrHistogram style.
#[pyclass(module = "simulator._core")]
#[derive(Default, Clone)]
pub struct LatencyHistogram {
    counts: Vec<u64>, // by bucket
    #[pyo3(get)]
    count: u64,
    #[pyo3(get)]
    maximum: f64,
}

impl LatencyHistogram {
    pub fn bucket_of(seconds: f64) -> usize {
        let micros = seconds * 1e6;
        if micros > 1.0 { (micros.ln() / step()) as usize + 1 } else { 0 }
    }

    pub fn record_in(&mut self, index: usize, seconds: f64) {
        if index >= self.counts.len() {
            self.counts.resize(index + 1, 0);
        }
        self.counts[index] += 1;
        self.count += 1;
        if seconds > self.maximum {
            self.maximum = seconds;
        }
    }

    /// The largest latency counted, where the buckets were counted without it (`of_buckets`).
    pub fn set_maximum(&mut self, maximum: f64) {
        self.maximum = maximum;
    }

    pub fn percentile_ms(&self, fraction: f64) -> Option<f64> {
        self.percentile(fraction)
    }
}

#[pymethods]
impl LatencyHistogram {
    #[new]
    fn new() -> Self {
        LatencyHistogram::default()
    }

    /// log(1.01), the buckets' width in the logarithm of microseconds.
    #[classattr]
    #[pyo3(name = "STEP")]
    fn step_attribute() -> f64 {
        step()
    }

    /// The bucket a latency counts in.
    #[staticmethod]
    fn bucket(seconds: f64) -> usize {
        LatencyHistogram::bucket_of(seconds)
    }

    /// The histogram of latencies given by their buckets (`bucket`) and the largest of them.
    #[staticmethod]
    fn of_buckets(buckets: Vec<usize>, maximum: f64) -> Self {
        let mut histogram = LatencyHistogram::default();
        for index in buckets {
            histogram.record_in(index, 0.0);
        }
        histogram.maximum = maximum;
        histogram
    }

    /// The latencies counted, by bucket (buckets with none left out), in bucket order.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = PyDict::new(py);
        for (index, count) in self.counts.iter().enumerate() {
            if *count > 0 {
                counts.set_item(index, *count)?;
            }
        }
        Ok(counts)
    }

    fn record(&mut self, seconds: f64) {
        self.record_in(LatencyHistogram::bucket_of(seconds), seconds);
    }

    /// The latencies counted in `bucket` and the buckets above it.
    fn count_from(&self, bucket: usize) -> u64 {
        self.counts.iter().skip(bucket).sum()
    }

    /// Count a latency whose bucket (`bucket`) is already known.
    #[pyo3(name = "record_in")]
    fn py_record_in(&mut self, index: usize, seconds: f64) {
        self.record_in(index, seconds);
    }

    /// Another histogram's latencies counted here too.
    fn add(&mut self, other: &LatencyHistogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (index, count) in other.counts.iter().enumerate() {
            self.counts[index] += count;
        }
        self.count += other.count;
        if other.maximum > self.maximum {
            self.maximum = other.maximum;
        }
    }

    /// Upper edge of the bucket holding the given quantile, in milliseconds.
    fn percentile(&self, fraction: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((fraction * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (index, count) in self.counts.iter().enumerate() {
            if *count == 0 {
                continue;
            }
            seen += count;
            if seen >= rank {
                return Some(upper_edge_ms(index, self.maximum));
            }
        }
        Some(self.maximum * 1e3)
    }

    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        latency_summary(py, self.count as i64, |fraction| self.percentile(fraction), self.count > 0, self.maximum)
    }
}

/// the first batch-size bucket's upper bound; each next one doubles
pub const BATCH_BUCKET_FIRST_BYTES: f64 = 1024.0;

/// Batch sizes counted in log2 buckets: bucket 0 holds sizes up to 1 KiB, bucket i those in
/// (2^(i-1), 2^i] KiB, so a batch of exactly `batch.size` (a power of two) counts in its bucket.
#[pyclass(module = "simulator._core")]
#[derive(Default, Clone)]
pub struct SizeHistogram {
    #[pyo3(get)]
    counts: Vec<u64>,
}

/// `math.frexp`'s exponent of a positive finite float: x = m 2^e with m in [0.5, 1).
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        let (m, e) = frexp(x * 2f64.powi(54));
        return (m, e - 54);
    }
    let mantissa = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (mantissa, exponent - 1022)
}

impl SizeHistogram {
    pub fn record(&mut self, size: f64) {
        // the least i with size <= 2^i KiB, off the float's exponent: exact, since dividing by
        // 1024 only moves the exponent, and a bound (mantissa 0.5) counts in the bucket below
        let index = if size > BATCH_BUCKET_FIRST_BYTES {
            let (mantissa, exponent) = frexp(size / BATCH_BUCKET_FIRST_BYTES);
            (if mantissa == 0.5 { exponent - 1 } else { exponent }) as usize
        } else {
            0
        };
        if index >= self.counts.len() {
            self.counts.resize(index + 1, 0);
        }
        self.counts[index] += 1;
    }

    pub fn add(&mut self, other: &SizeHistogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (index, count) in other.counts.iter().enumerate() {
            self.counts[index] += count;
        }
    }
}

#[pymethods]
impl SizeHistogram {
    #[new]
    fn new() -> Self {
        SizeHistogram::default()
    }

    #[pyo3(name = "record")]
    fn py_record(&mut self, size: f64) {
        self.record(size);
    }

    #[pyo3(name = "add")]
    fn py_add(&mut self, other: &SizeHistogram) {
        self.add(other);
    }
}

/// The batches a producer sent, by size on the wire and by uncompressed record bytes.
#[pyclass(module = "simulator._core")]
pub struct BatchSizes {
    #[pyo3(get)]
    wire: Py<SizeHistogram>,
    #[pyo3(get)]
    records: Py<SizeHistogram>,
}

#[pymethods]
impl BatchSizes {
    #[new]
    pub(crate) fn new(py: Python<'_>) -> PyResult<Self> {
        Ok(BatchSizes { wire: Py::new(py, SizeHistogram::default())?, records: Py::new(py, SizeHistogram::default())? })
    }

    pub(crate) fn record(&self, py: Python<'_>, wire: f64, records: f64) {
        self.wire.borrow_mut(py).record(wire);
        self.records.borrow_mut(py).record(records);
    }

    fn add(&self, py: Python<'_>, other: &BatchSizes) {
        let (wire, records) = (other.wire.borrow(py).clone(), other.records.borrow(py).clone());
        self.wire.borrow_mut(py).add(&wire);
        self.records.borrow_mut(py).add(&records);
    }
}
