//! Values summed into 1-second buckets. The second being added to is summed in place (most
//! additions land in the current second) and written to its bucket when another second comes.

use pyo3::prelude::*;

use crate::fsum::fsum;

#[pyclass(module = "simulator._core")]
#[derive(Default)]
pub struct Timeline {
    buckets: Vec<f64>,
    second: i64,
    sum: f64,
}

impl Timeline {
    pub fn new() -> Self {
        Timeline { buckets: Vec::new(), second: -1, sum: 0.0 }
    }

    #[inline]
    pub fn add(&mut self, time: f64, value: f64) {
        let second = time as i64;   // int(time): towards zero
        if second == self.second {
            self.sum += value;
            return;
        }
        self.flush();
        self.second = second;
        self.sum = value;
    }

    fn flush(&mut self) {
        if self.second < 0 {
            return;
        }
        let second = self.second as usize;
        if second >= self.buckets.len() {
            self.buckets.resize(second + 1, 0.0);
        }
        self.buckets[second] += self.sum;
        self.second = -1;
        self.sum = 0.0;
    }

    /// Spread `weight` x the overlap of [start, end) with each second.
    pub fn add_interval(&mut self, mut start: f64, end: f64, weight: f64) {
        while start < end {
            let boundary = floor(start) + 1.0;
            let stop = if end < boundary { end } else { boundary };
            self.add(start, (stop - start) * weight);
            start = stop;
        }
    }
}

/// `x.floor()` for the times a run has (below 2^63 in magnitude), without libm's call.
#[inline]
fn floor(x: f64) -> f64 {
    let whole = x as i64 as f64;
    if whole > x { whole - 1.0 } else { whole }
}

#[pymethods]
impl Timeline {
    #[new]
    fn py_new() -> Self {
        Timeline::new()
    }

    #[pyo3(name = "add", signature = (time, value=1.0))]
    fn py_add(&mut self, time: f64, value: f64) {
        self.add(time, value);
    }

    #[pyo3(name = "add_interval", signature = (start, end, weight=1.0))]
    fn py_add_interval(&mut self, start: f64, end: f64, weight: f64) {
        self.add_interval(start, end, weight);
    }

    /// The first `seconds` buckets, zeros past the last.
    fn values(&mut self, seconds: usize) -> Vec<f64> {
        self.flush();
        let mut kept: Vec<f64> = self.buckets.iter().take(seconds).copied().collect();
        kept.resize(seconds, 0.0);
        kept
    }

    /// The exact sum (`math.fsum`) of the seconds in [start, end).
    #[pyo3(signature = (start=0.0, end=f64::INFINITY))]
    fn total(&mut self, start: f64, end: f64) -> f64 {
        self.flush();
        fsum(self.buckets.iter().enumerate().filter(|(s, _)| start <= *s as f64 && (*s as f64) < end).map(|(_, v)| *v))
    }
}
