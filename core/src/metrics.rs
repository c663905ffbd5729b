//! The model's plain counters (`simulator/model/metrics.py` holds the rest).

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use pyo3::types::{PyDict, PyList};

use crate::histograms::{latency_summary, upper_edge_ms, LatencyHistogram};
use crate::timeline::Timeline;

/// A mean of values added one by one (None until one is).
#[pyclass(module = "simulator._core")]
#[derive(Default)]
pub struct Mean {
    #[pyo3(get)]
    total: f64,
    #[pyo3(get)]
    count: u64,
}

#[pymethods]
impl Mean {
    #[new]
    fn new() -> Self {
        Mean::default()
    }

    pub(crate) fn add(&mut self, value: f64) {
        self.total += value;
        self.count += 1;
    }

    #[getter]
    fn value(&self) -> Option<f64> {
        if self.count > 0 { Some(self.total / self.count as f64) } else { None }
    }
}

/// points a flow's batch may count its records at, stepping through its span from batch to batch
const SPAN_POINTS: u32 = 8;

/// A batch job's records' latency, `send()` to acknowledgement, over the whole job, as
/// kafka-producer-perf-test reports its own, in the latency histogram's 1 % buckets (weighted:
/// a batch counts its records at once). Records appended one by one (`records_acked`) count at
/// their intended send times. A flow's batch (`batch_acked`) took its records evenly from its
/// creation to its close: it counts them at one point of that span, the point stepping through
/// `SPAN_POINTS` evenly spaced positions from one batch to the next, so that over many batches
/// their records spread over their spans as they were appended (one point a batch keeps the run
/// as fast as it was).
#[pyclass(module = "simulator._core")]
#[derive(Default)]
pub struct RecordLatencies {
    weights: Vec<f64>, // by bucket (LatencyHistogram.bucket)
    #[pyo3(get)]
    maximum: f64,
    #[pyo3(get)]
    records: f64,
    phase: u32,
}

impl RecordLatencies {
    fn count(&mut self, latency: f64, weight: f64) {
        let index = if latency > 0.0 { LatencyHistogram::bucket_of(latency) } else { 0 };
        if index >= self.weights.len() {
            self.weights.resize(index + 1, 0.0);
        }
        self.weights[index] += weight;
        self.records += weight;
    }
}

#[pymethods]
impl RecordLatencies {
    #[new]
    fn new() -> Self {
        RecordLatencies::default()
    }

    fn records_acked(&mut self, intended: Vec<f64>, done: f64) {
        for t in intended {
            self.count(done - t, 1.0);
            if done - t > self.maximum {
                self.maximum = done - t;
            }
        }
    }

    fn batch_acked(&mut self, created: f64, closed: f64, records: f64, done: f64) {
        if records <= 0.0 {
            return;
        }
        self.phase = (self.phase + 1) % SPAN_POINTS;
        self.count(done - closed + (closed - created) * (self.phase as f64 + 0.5) / SPAN_POINTS as f64, records);
        if done - created > self.maximum {
            self.maximum = done - created;
        }
    }

    fn add(&mut self, other: &RecordLatencies) {
        if other.weights.len() > self.weights.len() {
            self.weights.resize(other.weights.len(), 0.0);
        }
        for (index, weight) in other.weights.iter().enumerate() {
            self.weights[index] += weight;
        }
        self.records += other.records;
        if other.maximum > self.maximum {
            self.maximum = other.maximum;
        }
    }

    /// Upper edge (ms) of the bucket holding the quantile, as `LatencyHistogram.percentile`.
    fn percentile(&self, fraction: f64) -> Option<f64> {
        if self.records <= 0.0 {
            return None;
        }
        let rank = fraction * self.records;
        let mut seen = 0.0;
        for (index, weight) in self.weights.iter().enumerate() {
            seen += weight;
            if *weight > 0.0 && seen >= rank - 1e-9 {
                return Some(upper_edge_ms(index, self.maximum));
            }
        }
        Some(self.maximum * 1e3)
    }

    /// count, p50, p95, p99, p999 and max (ms), as the neighbours' latency is given.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        latency_summary(py, self.records.round_ties_even() as i64, |fraction| self.percentile(fraction), self.records > 0.0,
                        self.maximum)
    }
}

/// One request kind's metrics, as Kafka's `RequestChannel.Metrics` keeps them per ApiKeys:
/// `RequestsPerSec` (per second and counted), by client.id with the records they carried, and
/// the time parts (`times`, by part name: what the caller keeps them in).
#[pyclass(module = "simulator._core")]
pub struct RequestMetrics {
    #[pyo3(get)]
    count: u64,
    #[pyo3(get)]
    per_second: Py<Timeline>,
    /// client.id -> Timeline of its requests, in the order the clients first came
    #[pyo3(get)]
    by_client: Py<PyDict>,
    /// client.id -> Timeline of the records its requests carried
    #[pyo3(get)]
    records_by_client: Py<PyDict>,
    #[pyo3(get)]
    pub(crate) times: PyObject,
    /// the client.ids seen (found by identity, a connection's own string, else by equality) and their two timelines
    clients: Vec<(Py<PyAny>, Py<Timeline>, Option<Py<Timeline>>)>,
}

impl RequestMetrics {
    /// A client.id's two timelines, found in the dicts (made at its first request) once per string.
    fn client_timelines<'py>(&mut self, client_id: &Bound<'py, PyAny>)
                             -> PyResult<(Bound<'py, Timeline>, Option<Bound<'py, Timeline>>)> {
        let py = client_id.py();
        let found = self.clients.iter().find(|(id, _, _)| id.as_ptr() == client_id.as_ptr())
            .or_else(|| self.clients.iter().find(|(id, _, _)| id.bind(py).eq(client_id).unwrap_or(false)));
        if let Some((_, requests, records)) = found {
            return Ok((requests.bind(py).clone(), records.as_ref().map(|r| r.bind(py).clone())));
        }
        let by_client = self.by_client.bind(py);
        let records_by_client = self.records_by_client.bind(py);
        let requests = match by_client.get_item(client_id)? {
            Some(timeline) => timeline,
            None => {
                let timeline = Bound::new(py, Timeline::new())?.into_any();
                by_client.set_item(client_id, &timeline)?;
                records_by_client.set_item(client_id, Bound::new(py, Timeline::new())?)?;
                timeline
            }
        };
        let requests = requests.downcast_into::<Timeline>()?;
        let records = match records_by_client.get_item(client_id)? {
            Some(timeline) => Some(timeline.downcast_into::<Timeline>()?),
            None => None,
        };
        self.clients.push((client_id.clone().unbind(), requests.clone().unbind(), records.as_ref().map(|r| r.clone().unbind())));
        Ok((requests, records))
    }
}

#[pymethods]
impl RequestMetrics {
    #[new]
    fn new(py: Python<'_>, times: PyObject) -> PyResult<Self> {
        Ok(RequestMetrics { count: 0, per_second: Py::new(py, Timeline::new())?, by_client: PyDict::new(py).unbind(),
                            records_by_client: PyDict::new(py).unbind(), times, clients: Vec::new() })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.by_client)?;
        visit.call(&self.records_by_client)?;
        for (id, requests, records) in &self.clients {
            visit.call(id)?;
            visit.call(requests)?;
            if let Some(records) = records {
                visit.call(records)?;
            }
        }
        visit.call(&self.times)
    }

    fn __clear__(&mut self) {
        self.clients.clear();
    }

    /// A request at `now`.
    pub(crate) fn record(&mut self, py: Python<'_>, now: f64) {
        self.count += 1;
        self.per_second.borrow_mut(py).add(now, 1.0);
    }

    /// A request of `client_id` carrying `records` at `now`: counted under its client.id.
    fn record_client(&mut self, now: f64, client_id: &Bound<'_, PyAny>, records: f64) -> PyResult<()> {
        let (requests, records_timeline) = self.client_timelines(client_id)?;
        requests.borrow_mut().add(now, 1.0);
        if let Some(timeline) = records_timeline {
            timeline.borrow_mut().add(now, records);
        }
        Ok(())
    }

    /// `record` and `record_client` of one request.
    pub(crate) fn record_request(&mut self, py: Python<'_>, now: f64, client_id: &Bound<'_, PyAny>, records: f64) -> PyResult<()> {
        self.record(py, now);
        self.record_client(now, client_id, records)
    }
}

const SAMPLES_CHUNK: usize = 8192;

/// Values kept for an exact mean and percentile, in order, in chunks of at most `SAMPLES_CHUNK`:
/// one buffer grown by reallocation would leave holes the size of its old copies in the heap,
/// ever larger, that later small allocations cannot fill. Read back (`sum`, `sorted`) as the
/// same floats in the same order as from a list.
#[pyclass(module = "simulator._core")]
pub struct Samples {
    chunks: Vec<Vec<f64>>,
}

impl Samples {
    pub(crate) fn push(&mut self, value: f64) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < SAMPLES_CHUNK => last.push(value),
            _ => {
                let mut chunk = Vec::with_capacity(SAMPLES_CHUNK);
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
    }
}

#[pymethods]
impl Samples {
    #[new]
    fn new() -> Self {
        Samples { chunks: Vec::new() }
    }

    fn append(&mut self, value: f64) {
        self.push(value);
    }

    fn __len__(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Its values one by one, in order: a chunk's list at a time (a list of them all would take
    /// 32 bytes a value).
    fn __iter__<'py>(slf: Py<Self>, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let chunks = Bound::new(py, SamplesChunks { samples: slf, chunk: 0 })?;
        py.import("itertools")?.getattr("chain")?.getattr("from_iterable")?.call1((chunks,))
    }

    /// Its chunks, in order.
    /// The values' sum, added in order from 0 as Python's `sum()` of their list adds them.
    fn total(&self) -> f64 {
        self.chunks.iter().flatten().fold(0.0, |total, value| total + value)
    }

    /// The value at `rank` (from 0, at most the last) of the values in ascending order; NaN for none.
    fn at_rank(&self, rank: usize) -> f64 {
        let mut values: Vec<f64> = self.chunks.iter().flatten().copied().collect();
        if values.is_empty() {
            return f64::NAN;
        }
        let last = values.len() - 1;
        *values.select_nth_unstable_by(rank.min(last), f64::total_cmp).1
    }

    #[getter]
    fn chunks(&self) -> Vec<Vec<f64>> {
        self.chunks.clone()
    }
}

/// `Samples`' chunks in order, each as a list of its values when it is reached.
#[pyclass(module = "simulator._core")]
pub struct SamplesChunks {
    samples: Py<Samples>,
    chunk: usize,
}

#[pymethods]
impl SamplesChunks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let samples = self.samples.borrow(py);
        let Some(chunk) = samples.chunks.get(self.chunk) else { return Ok(None) };
        self.chunk += 1;
        Ok(Some(PyList::new(py, chunk)?))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.samples)
    }
}

/// A neighbour's produce requests as the brokers timed them (arrival, then LocalTimeMs,
/// RemoteTimeMs and TotalTimeMs, in seconds), kept while the request can fall in the load's
/// window: one that arrived before the load started, or after it ended (`end`, once known), is
/// not kept.
#[pyclass(module = "simulator._core")]
pub struct RequestTimesDuring {
    #[pyo3(get)]
    start: f64,
    #[pyo3(get, set)]
    end: f64,
    #[pyo3(get)]
    arrivals: Py<Samples>,
    parts: Vec<Py<Samples>>,   // local, remote, total
}

impl RequestTimesDuring {
    pub(crate) fn record(&self, py: Python<'_>, times: [f64; 4]) {
        let arrival = times[0];
        if arrival < self.start || arrival >= self.end {
            return;
        }
        self.arrivals.borrow_mut(py).push(arrival);
        for (part, value) in self.parts.iter().zip(&times[1..]) {
            part.borrow_mut(py).push(*value);
        }
    }
}

#[pymethods]
impl RequestTimesDuring {
    #[new]
    fn new(py: Python<'_>, start: f64) -> PyResult<Self> {
        let parts = (0..3).map(|_| Py::new(py, Samples::new())).collect::<PyResult<Vec<_>>>()?;
        Ok(RequestTimesDuring { start, end: f64::INFINITY, arrivals: Py::new(py, Samples::new())?, parts })
    }

    /// A request's (arrival, local, remote, total).
    fn add(&self, py: Python<'_>, times: (f64, f64, f64, f64)) {
        self.record(py, [times.0, times.1, times.2, times.3]);
    }

    #[getter]
    fn parts(&self, py: Python<'_>) -> Vec<Py<Samples>> {
        self.parts.iter().map(|p| p.clone_ref(py)).collect()
    }

    /// Each part's values of the requests that arrived in [start, end), as `Samples`.
    fn between(&self, py: Python<'_>, start: f64, end: f64) -> PyResult<Vec<Py<Samples>>> {
        let arrivals = self.arrivals.borrow(py);
        let kept: Vec<bool> = arrivals.chunks.iter().flatten().map(|a| start <= *a && *a < end).collect();
        self.parts.iter().map(|part| {
            let mut values = Samples::new();
            for (value, _) in part.borrow(py).chunks.iter().flatten().zip(&kept).filter(|(_, k)| **k) {
                values.push(*value);
            }
            Py::new(py, values)
        }).collect()
    }
}
