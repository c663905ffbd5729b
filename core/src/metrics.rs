//! The model's plain counters (`simulator/model/metrics.py` holds the rest).

use pyo3::prelude::*;

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

    fn add(&mut self, value: f64) {
        self.total += value;
        self.count += 1;
    }

    #[getter]
    fn value(&self) -> Option<f64> {
        if self.count > 0 { Some(self.total / self.count as f64) } else { None }
    }
}
