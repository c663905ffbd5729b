//! A neighbour's records' latencies, counted as they are acknowledged: into the histogram of the
//! window each record was meant to be sent in (before, during or after the load, whose end is told
//! once known: `end`) and, for the per-second p99 line, as its histogram bucket under the second it
//! was meant for. A record acknowledged with no latency at all could still fall on the load's or the
//! run's end: it waits, as it is, for the windows (`histograms`).
//!
//! Its producer's accumulator calls it with the intended send times of each acknowledged batch's
//! records (`__call__`), so a neighbour's records are counted without a Python call.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::histograms::LatencyHistogram;

const WINDOWS: [&str; 3] = ["before", "during", "after"];

/// One second's records: their buckets (2 bytes each) and the largest latency.
struct Second {
    buckets: Vec<u16>,
    maximum: f64,
}

#[pyclass(module = "simulator._core")]
pub struct Latencies {
    #[pyo3(get)]
    start: f64,
    #[pyo3(get, set)]
    end: f64,
    #[pyo3(get)]
    before: Py<LatencyHistogram>,
    #[pyo3(get)]
    during: Py<LatencyHistogram>,
    #[pyo3(get)]
    after: Py<LatencyHistogram>,
    seconds: BTreeMap<i64, Second>,
    count: usize,
    /// (intended, latency) of the records acknowledged with no latency, in order
    #[pyo3(get)]
    undecided: Vec<(f64, f64)>,
}

impl Latencies {
    fn window(&self, name: &str) -> Option<&Py<LatencyHistogram>> {
        match name {
            "before" => Some(&self.before),
            "during" => Some(&self.during),
            "after" => Some(&self.after),
            _ => None,
        }
    }

    fn by_second(&mut self, second: i64, index: usize, latency: f64) {
        let kept = self.seconds.entry(second).or_insert(Second { buckets: Vec::new(), maximum: latency });
        if latency > kept.maximum {
            kept.maximum = latency;
        }
        // 65,536 buckets of 1 % reach e^652 microseconds: 2 bytes hold any latency a run can have
        kept.buckets.push(index as u16);
    }

    fn count_one(&mut self, py: Python<'_>, intended: f64, latency: f64) {
        self.count += 1;
        if latency <= 0.0 {
            self.undecided.push((intended, latency));
            return;
        }
        let index = LatencyHistogram::bucket_of(latency);
        // acknowledged after it was meant to be sent, so before the load's end (not yet known) or the run's
        if intended < self.start {
            if intended >= 0.0 {
                self.before.borrow_mut(py).record_in(index, latency);
            }
        } else if intended < self.end {
            self.during.borrow_mut(py).record_in(index, latency);
        } else {
            self.after.borrow_mut(py).record_in(index, latency);
        }
        self.by_second(intended as i64, index, latency);
    }

    fn histogram_of(buckets: &[u16], maximum: f64) -> LatencyHistogram {
        let mut histogram = LatencyHistogram::default();
        for index in buckets {
            histogram.record_in(*index as usize, 0.0);
        }
        histogram.set_maximum(maximum);
        histogram
    }
}

#[pymethods]
impl Latencies {
    #[new]
    fn new(py: Python<'_>, start: f64) -> PyResult<Self> {
        Ok(Latencies {
            start,
            end: f64::INFINITY,
            before: Py::new(py, LatencyHistogram::default())?,
            during: Py::new(py, LatencyHistogram::default())?,
            after: Py::new(py, LatencyHistogram::default())?,
            seconds: BTreeMap::new(),
            count: 0,
            undecided: Vec::new(),
        })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.before)?;
        visit.call(&self.during)?;
        visit.call(&self.after)
    }

    fn __len__(&self) -> usize {
        self.count
    }

    /// The records meant to be sent at ``intended`` acknowledged at ``now`` (a producer's
    /// ``on_records_acked``).
    fn __call__(&mut self, py: Python<'_>, intended: Vec<f64>, now: f64) {
        for t in intended {
            self.count_one(py, t, now - t);
        }
    }

    /// One record meant to be sent at ``intended``, acknowledged ``latency`` seconds later.
    fn record(&mut self, py: Python<'_>, intended: f64, latency: f64) {
        self.count_one(py, intended, latency);
    }

    /// The seconds that hold records (one entry each, whatever their count).
    #[getter]
    fn seconds_kept(&self) -> usize {
        self.seconds.len()
    }

    /// The bytes the seconds' buckets take: 2 a record.
    #[getter]
    fn bucket_bytes(&self) -> usize {
        self.seconds.values().map(|second| second.buckets.len() * std::mem::size_of::<u16>()).sum()
    }

    /// The window histograms by name (before, during, after).
    #[getter]
    fn windows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let windows = PyDict::new(py);
        for name in WINDOWS {
            windows.set_item(name, self.window(name).map(|h| h.clone_ref(py)))?;
        }
        Ok(windows)
    }

    /// Each window's histogram, once the windows (name: (start, end)) are known (the run is over).
    fn histograms<'py>(&mut self, py: Python<'py>, windows: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
        let mut bounds: Vec<(String, f64, f64)> = Vec::new();
        for (name, span) in windows.iter() {
            let span = span.downcast::<PyTuple>()?;
            bounds.push((name.extract()?, span.get_item(0)?.extract()?, span.get_item(1)?.extract()?));
        }
        for (intended, latency) in std::mem::take(&mut self.undecided) {
            for (name, start, end) in &bounds {
                if *start <= intended && intended < *end {
                    if let Some(window) = self.window(name) {
                        window.borrow_mut(py).record_in(LatencyHistogram::bucket_of(latency), latency);
                    }
                }
            }
            self.by_second(intended as i64, LatencyHistogram::bucket_of(latency), latency);
        }
        self.windows(py)
    }

    /// The p99 (ms) of the records meant to be sent in the seconds from ``start``'s to the one
    /// ``end`` falls in (a job's load, in whole seconds), after ``histograms``; None for none.
    fn p99_between(&self, start: f64, end: f64) -> Option<f64> {
        let first = start as i64;
        let mut kept: Vec<u16> = Vec::new();
        let mut maximum = 0.0f64;
        for (second, record) in self.seconds.range(first..) {
            if (*second as f64) < end {
                kept.extend_from_slice(&record.buckets);
                maximum = maximum.max(record.maximum);
            }
        }
        if kept.is_empty() { None } else { Latencies::histogram_of(&kept, maximum).percentile_ms(0.99) }
    }

    /// Each second's p99 (ms; None for a second with no record), after ``histograms``.
    fn p99_line(&self, seconds: i64) -> Vec<Option<f64>> {
        (0..seconds)
            .map(|second| self.seconds.get(&second)
                .and_then(|record| Latencies::histogram_of(&record.buckets, record.maximum).percentile_ms(0.99)))
            .collect()
    }
}
