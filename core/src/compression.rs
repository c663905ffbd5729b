//! A codec's compression curve as the accumulator reads it: the records section's compressed /
//! uncompressed ratio at measured batch sizes, interpolated in log(size) and clamped to the
//! measured ends (`simulator/model/compression.py` measures the points).

use pyo3::prelude::*;

#[pyclass(module = "simulator._core", frozen)]
pub struct CompressionRatios {
    /// (uncompressed bytes, compressed / uncompressed), sizes ascending
    points: Vec<(f64, f64)>,
}

impl CompressionRatios {
    /// The ratio of a batch of `size` uncompressed bytes (math.log's operations, in its order).
    pub fn at(&self, size: f64) -> f64 {
        let points = &self.points;
        let (mut lo, mut lo_ratio) = points[0];
        if size <= lo {
            return lo_ratio;
        }
        let (last, last_ratio) = points[points.len() - 1];
        if size >= last {
            return last_ratio;
        }
        for &(hi, hi_ratio) in &points[1..] {
            if size <= hi {
                let t = (size.ln() - lo.ln()) / (hi.ln() - lo.ln());
                return lo_ratio + t * (hi_ratio - lo_ratio);
            }
            (lo, lo_ratio) = (hi, hi_ratio);
        }
        unreachable!("sizes are ascending")
    }
}

#[pymethods]
impl CompressionRatios {
    #[new]
    fn new(points: Vec<(f64, f64)>) -> PyResult<Self> {
        if points.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err("a compression curve needs a measured point"));
        }
        Ok(CompressionRatios { points })
    }

    /// The ratio of a batch of `size` uncompressed bytes.
    fn __call__(&self, size: f64) -> f64 {
        self.at(size)
    }

    #[getter]
    fn points(&self) -> Vec<(f64, f64)> {
        self.points.clone()
    }
}
