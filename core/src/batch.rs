//! A producer batch: the records of one partition that leave in one produce request.
//!
//! Sizes follow the v2 record batch format (`DefaultRecordBatch`) and the Java client's size
//! estimate for compressed batches (`MemoryRecordsBuilder`, `CompressionRatioEstimator`).
//! The broker's Python code reads a batch by the same names as the accumulator fills it.

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use pyo3::types::PyList;

pub const BATCH_HEADER: i64 = 61; // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
pub const REQUEST_HEADER: i64 = 120; // produce request + topic entry, approximately
pub const PARTITION_HEADER: i64 = 30;
pub const ESTIMATION_FACTOR: f64 = 1.05; // MemoryRecordsBuilder.COMPRESSION_RATE_ESTIMATION_FACTOR
pub const IMPROVING_STEP: f64 = 0.005; // CompressionRatioEstimator
pub const DETERIORATE_STEP: f64 = 0.05;

pub(crate) static BATCH_TYPE: crate::TypeCell = crate::TypeCell::new();

#[pyclass(module = "simulator._core")]
pub struct Batch {
    #[pyo3(get, set)]
    pub partition: PyObject,
    /// compression.type: the batch header's attributes say it
    #[pyo3(get, set)]
    pub codec: PyObject,
    #[pyo3(get, set)]
    pub created: f64,
    /// uncompressed record bytes
    #[pyo3(get, set)]
    pub bytes: f64,
    #[pyo3(get, set)]
    pub records: f64,
    /// closed for appends
    #[pyo3(get, set)]
    pub full: bool,
    #[pyo3(get, set)]
    pub memory: i64,
    /// neighbours' records: their intended send times
    #[pyo3(get)]
    pub intended: Option<Py<PyList>>,
    /// bytes on the wire once closed (compressed + header)
    #[pyo3(get, set)]
    pub wire: f64,
    /// when it stopped taking records
    #[pyo3(get, set)]
    pub closed_at: f64,
    /// its accumulator's count of the batches it made (0: made elsewhere), its partition's place there
    pub serial: u64,
    pub slot: usize,
    /// the flushes waiting for it, by their place in the accumulator
    pub waiters: Vec<usize>,
    /// failed by delivery.timeout.ms while in flight
    pub expired: bool,
}

impl Drop for Batch {
    /// Its records' intended times let go of as a `Bound` (see `Request`'s drop).
    fn drop(&mut self) {
        if let Some(intended) = self.intended.take() {
            // SAFETY: a Batch is dropped with the GIL held (its object's deallocation)
            drop(intended.into_bound(unsafe { Python::assume_gil_acquired() }));
        }
    }
}

impl Batch {
    pub fn made(partition: PyObject, created: f64, memory: i64, codec: PyObject, serial: u64, slot: usize) -> Self {
        Batch {
            partition,
            codec,
            created,
            bytes: 0.0,
            records: 0.0,
            full: false,
            memory,
            intended: None,
            wire: 0.0,
            closed_at: 0.0,
            serial,
            slot,
            waiters: Vec::new(),
            expired: false,
        }
    }
}

#[pymethods]
impl Batch {
    /// A batch made outside an accumulator (a replayed request's).
    #[new]
    fn new(partition: PyObject, created: f64, memory: i64, codec: PyObject) -> Self {
        Batch::made(partition, created, memory, codec, 0, 0)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // a partition's waiting requests hold their batches, and a batch its partition
        visit.call(&self.partition)?;
        visit.call(&self.codec)?;
        if let Some(intended) = &self.intended {
            visit.call(intended)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.intended = None;
    }
}

/// The bytes of a produce request of batches that many `wire` bytes.
pub fn request_wire(py: Python<'_>, batches: &[Py<Batch>]) -> f64 {
    let mut wire = REQUEST_HEADER as f64;
    for batch in batches {
        wire += batch.borrow(py).wire + PARTITION_HEADER as f64;
    }
    wire
}
