//! A producer's sender thread, what it counts and what its host's cores make of it
//! (Kafka's `Sender.SenderMetrics`: request-latency-avg, batch-size-avg; the drain interval).
//!
//! The sender reads the responses that arrived and drains what is ready once per run
//! (`Sender.runOnce`): `read` (or `wake`, with the wait for a core of a sender leaving poll()) takes
//! the run's share of its host's cores and its first response's latency in one call (a run that
//! reads several responses: the sender counts the others after it, in order); a drain's requests
//! (the interval since the last drain, every batch's sizes, what the producer sent) are counted
//! by the accumulator's drain itself (`sent`).

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::batch::Batch;
use crate::cpu::Cores;
use crate::histograms::BatchSizes;
use crate::metrics::Mean;

#[pyclass(module = "simulator._core")]
pub struct SenderMetrics {
    host: Option<Py<Cores>>,
    #[pyo3(get)]
    request_latency: Py<Mean>,
    #[pyo3(get)]
    drain_interval: Py<Mean>,
    #[pyo3(get)]
    batch_sizes: Py<BatchSizes>,
    last_drain: f64,
    /// what the producer sent: produce requests, batches, their record bytes, wire bytes and records
    #[pyo3(get)]
    requests: i64,
    #[pyo3(get)]
    batches_sent: i64,
    #[pyo3(get)]
    bytes_sent: f64,
    #[pyo3(get)]
    wire_sent: f64,
    #[pyo3(get)]
    records_sent: f64,
    /// how long throttled responses held the connections
    #[pyo3(get)]
    throttled_seconds: f64,
}

impl SenderMetrics {
    /// A response read `latency` after its request was made (a run's after its first).
    pub(crate) fn count_latency(&self, py: Python<'_>, latency: f64) {
        self.request_latency.borrow_mut(py).add(latency);
    }

    /// A throttled response held its connection `seconds`.
    pub(crate) fn count_throttle(&mut self, seconds: f64) {
        self.throttled_seconds += seconds;
    }

    /// A drain at `now` made these requests (none: nothing is counted): the interval since the
    /// drain before (none for the first), each batch's sizes, and what they send.
    pub(crate) fn count_sent(&mut self, py: Python<'_>, now: f64, requests: &[&[Py<Batch>]]) {
        if requests.is_empty() {
            return;
        }
        let interval = now - self.last_drain;
        if !interval.is_nan() {
            self.drain_interval.borrow_mut(py).add(interval);
        }
        self.last_drain = now;
        let sizes = self.batch_sizes.borrow(py);
        for request in requests {
            self.requests += 1;
            for batch in request.iter() {
                let batch = batch.borrow(py);
                self.batches_sent += 1;
                self.bytes_sent += batch.bytes;
                self.wire_sent += batch.wire;
                self.records_sent += batch.records;
                sizes.record(py, batch.wire, batch.bytes);
            }
        }
    }
}

#[pymethods]
impl SenderMetrics {
    /// `host`: the cores the sender runs on (none: a core of its own).
    #[new]
    #[pyo3(signature = (host=None))]
    pub(crate) fn new(py: Python<'_>, host: Option<Py<Cores>>) -> PyResult<Self> {
        Ok(SenderMetrics {
            host,
            request_latency: Py::new(py, Mean::default())?,
            drain_interval: Py::new(py, Mean::default())?,
            batch_sizes: Py::new(py, BatchSizes::new(py)?)?,
            last_drain: f64::NAN,
            requests: 0,
            batches_sent: 0,
            bytes_sent: 0.0,
            wire_sent: 0.0,
            records_sent: 0.0,
            throttled_seconds: 0.0,
        })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(host) = &self.host {
            visit.call(host)?;
        }
        Ok(())
    }

    /// A run starting `now` with `elsewhere` threads runnable on the host besides the sender:
    /// how much longer its CPU work takes there (`Cores.stretch`; 1.0 without a host). `created`:
    /// when the first response it reads was made (NaN: none), counted in request-latency-avg (the
    /// sender counts the others, after it, in `request_latency`).
    pub(crate) fn read(&self, py: Python<'_>, elsewhere: f64, now: f64, created: f64) -> f64 {
        if !created.is_nan() {
            self.request_latency.borrow_mut(py).add(now - created);
        }
        match &self.host {
            Some(host) => host.borrow(py).stretch(elsewhere + 1.0),
            None => 1.0,
        }
    }

    /// The sender leaves poll() `now`: how long it waits for a core (`Cores.wake_delay`, one draw),
    /// and when it waits not at all, its run's `read` at once: (wait, 1.0) or (0.0, the stretch).
    pub(crate) fn wake(&self, py: Python<'_>, elsewhere: f64, now: f64, created: f64) -> (f64, f64) {
        if let Some(host) = &self.host {
            let wait = host.borrow_mut(py).wake_delay(py, elsewhere);
            if wait > 0.0 {
                return (wait, 1.0);
            }
        }
        (0.0, self.read(py, elsewhere, now, created))
    }

    /// A drain at `now` made `requests`, each a list of batches: counted as `count_sent` counts them.
    fn sent(&mut self, py: Python<'_>, now: f64, requests: Vec<Vec<Py<Batch>>>) {
        let requests: Vec<&[Py<Batch>]> = requests.iter().map(|r| r.as_slice()).collect();
        self.count_sent(py, now, &requests);
    }
}
