//! A resource that flows share: TCP connections on a NIC, connections on a network processor.
//! Each flow's work goes in order, and the capacity is split evenly among the flows busy when a
//! piece of work starts (processor sharing, share fixed at the start).

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::timeline::Timeline;

#[pyclass(module = "simulator._core")]
pub struct Shared {
    #[pyo3(get)]
    capacity: f64,
    // the flows with work in hand or done lately (by identity), and when each one's work is done:
    // a few connections at a time, so two short lists scanned beat a map's hashing
    flows: Vec<Py<PyAny>>,
    until: Vec<f64>,
    /// when every flow's work is done
    #[pyo3(get)]
    pub(crate) free_at: f64,
    #[pyo3(get)]
    used: Py<Timeline>,
    /// account use over time (busy %) rather than amount at start
    #[pyo3(get)]
    spread: bool,
}

#[pymethods]
impl Shared {
    #[new]
    #[pyo3(signature = (capacity, spread=false))]
    fn new(py: Python<'_>, capacity: f64, spread: bool) -> PyResult<Self> {
        Ok(Shared { capacity, flows: Vec::new(), until: Vec::new(), free_at: 0.0, used: Py::new(py, Timeline::new())?, spread })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for flow in &self.flows {
            visit.call(flow)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.flows.clear();
        self.until.clear();
    }

    /// When `flow`'s work taken so far is done (0: none lately).
    pub(crate) fn busy_until(&self, flow: &Bound<'_, PyAny>) -> f64 {
        let flow = flow.as_ptr();
        self.flows.iter().position(|f| f.as_ptr() == flow).map_or(0.0, |i| self.until[i])
    }

    pub(crate) fn take(&mut self, py: Python<'_>, start: f64, amount: f64, flow: &Bound<'_, PyAny>) -> f64 {
        let pointer = flow.as_ptr();
        let count = self.flows.len();
        let mut at: Option<usize> = None;
        let mut begin = 0.0;
        if let Some(i) = self.flows.iter().position(|f| f.as_ptr() == pointer) {
            at = Some(i);
            begin = self.until[i];
        }
        if begin < start {
            begin = start;
        }
        let mut sharing = 1u32;
        if self.free_at > begin {
            let mut kept = 0;
            at = None;
            for i in 0..count {
                let other_until = self.until[i];
                let is_flow = self.flows[i].as_ptr() == pointer;
                if other_until > begin {
                    if !is_flow {
                        sharing += 1;
                    }
                } else if other_until <= start {   // done before anything asked of us now: forget it
                    continue;
                }
                if is_flow {
                    at = Some(kept);
                }
                if kept != i {
                    self.flows.swap(kept, i);
                    self.until[kept] = other_until;
                }
                kept += 1;
            }
            for flow in self.flows.drain(kept..) {
                drop(flow.into_bound(py));    // as a Bound: no GIL check
            }
            self.until.truncate(kept);
        }
        let end = begin + amount * sharing as f64 / self.capacity;
        match at {
            Some(i) => self.until[i] = end,
            None => {
                self.flows.push(flow.clone().unbind());
                self.until.push(end);
            }
        }
        if end > self.free_at {
            self.free_at = end;
        }
        let mut used = self.used.borrow_mut(py);
        if self.spread {
            used.add_interval(begin, end, 1.0 / sharing as f64);
        } else {
            used.add(begin, amount);
        }
        end
    }
}
