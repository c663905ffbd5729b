//! A producer's sender thread, what it counts and what its host's cores make of it
//! (Kafka's `Sender.SenderMetrics`: request-latency-avg, batch-size-avg; the drain interval).
//!
//! The sender reads the responses that arrived and drains what is ready once per run
//! (`Sender.runOnce`): `read` (or `wake`, with the wait for a core of a sender leaving poll()) takes
//! the run's share of its host's cores and its first response's latency in one call, `drained` the
//! interval since the last drain and its first batch's sizes in one more; the rest (a run that
//! reads several responses, a drain of several batches) the sender counts after them, in order.

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

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
}

#[pymethods]
impl SenderMetrics {
    /// `host`: the cores the sender runs on (none: a core of its own).
    #[new]
    #[pyo3(signature = (host=None))]
    fn new(py: Python<'_>, host: Option<Py<Cores>>) -> PyResult<Self> {
        Ok(SenderMetrics {
            host,
            request_latency: Py::new(py, Mean::default())?,
            drain_interval: Py::new(py, Mean::default())?,
            batch_sizes: Py::new(py, BatchSizes::new(py)?)?,
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
    fn read(&self, py: Python<'_>, elsewhere: f64, now: f64, created: f64) -> f64 {
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
    fn wake(&self, py: Python<'_>, elsewhere: f64, now: f64, created: f64) -> (f64, f64) {
        if let Some(host) = &self.host {
            let wait = host.borrow_mut(py).wake_delay(py, elsewhere);
            if wait > 0.0 {
                return (wait, 1.0);
            }
        }
        (0.0, self.read(py, elsewhere, now, created))
    }

    /// A drain `interval` after the one before (NaN for the first) and the first batch it sent,
    /// `wire` bytes of `records` bytes (the sender counts the others, after it, in `batch_sizes`).
    fn drained(&self, py: Python<'_>, interval: f64, wire: f64, records: f64) {
        if !interval.is_nan() {
            self.drain_interval.borrow_mut(py).add(interval);
        }
        self.batch_sizes.borrow(py).record(py, wire, records);
    }
}
