//! A broker's threads on its host's cores: how long a burst of CPU work takes on one of them.
//!
//! The broker's threads (its I/O handlers, replica fetchers and network processors) run bursts
//! shorter than a slice and then sleep. A burst starting now waits for a core when it wakes
//! behind the host's CPU-bound work (EEVDF's wake delay, `Cores::wake_delay`), and takes its CPU
//! with a seeded spread (uniform, standard deviation = the profile's jitter) at its share of the
//! cores (`Cores::stretch`) among the threads runnable now: the busy handlers and fetchers the
//! caller counts, and the network processors with work in hand, counted here. A network
//! processor's work then goes in turn with the other connections it serves (`Shared`).

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::cpu::Cores;
use crate::random::Random;
use crate::shared::Shared;
use crate::timeline::Timeline;

#[pyclass(module = "simulator._core")]
pub struct Threads {
    cores: Py<Cores>,
    member: usize,
    random: Py<Random>,
    #[pyo3(get)]
    jitter: f64,
    processors: Vec<Py<Shared>>,
    cpu_busy: Py<Timeline>,
    handler_busy: Py<Timeline>,
    pub(crate) queue_area: Py<Timeline>,
    nic_in: Py<Shared>,
    nic_out: Py<Shared>,
}

impl Threads {
    pub(crate) fn processors_runnable(&self, py: Python<'_>, now: f64) -> i64 {
        self.processors.iter().filter(|p| p.borrow(py).free_at > now).count() as i64
    }

    /// Service time with seeded spread (uniform, standard deviation = jitter).
    fn noisy(&self, py: Python<'_>, seconds: f64) -> f64 {
        if self.jitter == 0.0 {
            return seconds;
        }
        let draw = self.random.borrow_mut(py).twister.random();
        seconds * (1.0 + self.jitter * 3.4641016 * (draw - 0.5))
    }

    /// Wall time for `cpu` seconds of work starting `now` with `others` of the broker's threads
    /// runnable besides this one.
    fn take_core(&self, py: Python<'_>, now: f64, cpu: f64, others: i64) -> PyResult<f64> {
        let mut cores = self.cores.borrow_mut(py);
        if cores.shared {
            drop(cores);    // the host's other components are asked (Python): no borrow held meanwhile
            let bound = self.cores.borrow(py).others_bound(py, self.member, now)?;
            let delay = self.cores.borrow_mut(py).wake_delay(py, bound);
            let work = self.noisy(py, cpu);
            let besides = self.cores.borrow(py).others(py, self.member, now)?;
            return Ok(delay + work * self.cores.borrow(py).stretch(others as f64 + besides + 1.0));
        }
        let delay = cores.wake_delay(py, 0.0);
        let work = self.noisy(py, cpu);
        Ok(delay + work * cores.stretch((others + 1) as f64))
    }
}

#[pymethods]
impl Threads {
    /// The threads of the broker that joined `cores` as `member`, drawing its spread from `random`.
    #[new]
    fn new(cores: Py<Cores>, member: usize, random: Py<Random>, jitter: f64, processors: Vec<Py<Shared>>,
           cpu_busy: Py<Timeline>, handler_busy: Py<Timeline>, queue_area: Py<Timeline>, nic_in: Py<Shared>,
           nic_out: Py<Shared>) -> Self {
        Threads { cores, member, random, jitter, processors, cpu_busy, handler_busy, queue_area, nic_in, nic_out }
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.cores)?;
        visit.call(&self.random)?;
        for processor in &self.processors {
            visit.call(processor)?;
        }
        visit.call(&self.nic_in)?;
        visit.call(&self.nic_out)
    }

    /// Network processors with work in hand at `now` (a processor with none sleeps in select()).
    #[pyo3(name = "processors_runnable")]
    fn py_processors_runnable(&self, py: Python<'_>, now: f64) -> i64 {
        self.processors_runnable(py, now)
    }

    /// Wall time a thread takes for `cpu` seconds of work starting `now`, with `threads` handlers
    /// and fetchers runnable besides it (the network processors counted here).
    pub(crate) fn on_core(&self, py: Python<'_>, now: f64, cpu: f64, threads: i64) -> PyResult<f64> {
        let others = threads + self.processors_runnable(py, now);
        self.take_core(py, now, cpu, others)
    }

    /// A handler takes a request off the queue at `now`, `waiting` requests having waited in it
    /// since `since` (its area), with `threads` handlers and fetchers runnable besides: its burst
    /// of `cpu` on a core then `stall` seconds of the disk's, counted as the broker's CPU and its
    /// handlers' busy time. Returns how long the handler takes.
    pub(crate) fn handle(&self, py: Python<'_>, now: f64, cpu: f64, stall: f64, threads: i64, waiting: i64, since: f64)
              -> PyResult<f64> {
        if waiting > 0 {
            self.queue_area.borrow_mut(py).add_interval(since, now, waiting as f64);
        }
        let took = self.on_core(py, now, cpu, threads)? + stall;
        self.cpu_busy.borrow_mut(py).add(now, cpu);
        self.handler_busy.borrow_mut(py).add_interval(now, now + took, 1.0);
        Ok(took)
    }

    /// A fetcher's burst at `now` appending what its fetch brought (`cpu`, none for an empty one),
    /// then `stall` seconds of the disk's, with `threads` handlers and fetchers runnable besides
    /// it; its CPU counted as the broker's. Returns how long the fetcher takes.
    pub(crate) fn fetched(&self, py: Python<'_>, now: f64, cpu: f64, stall: f64, threads: i64) -> PyResult<f64> {
        let took = if cpu != 0.0 { self.on_core(py, now, cpu, threads)? } else { 0.0 };
        self.cpu_busy.borrow_mut(py).add(now, cpu);
        Ok(took + stall)
    }

    /// A request of `size` bytes for `flow` leaving its client at `at`, through the broker's NIC,
    /// then read at once by its processor (its connection not muted) once the connection is free
    /// (`free_at`): the processor's burst (`work`). Returns when the NIC has it all, when the
    /// read starts and when it is done.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn receive(&self, py: Python<'_>, processor: usize, at: f64, size: f64, flow: &Bound<'_, PyAny>, free_at: f64,
               cpu: f64, threads: i64) -> PyResult<(f64, f64, f64)> {
        let arrived = self.nic_in.borrow_mut(py).take(py, at, size, flow);
        let start = if free_at > arrived { free_at } else { arrived };
        let done = self.work(py, processor, start, cpu, threads, flow)?;
        Ok((arrived, start, done))
    }

    /// A network processor's burst for `flow` (a connection) from `start`, with `threads` handlers
    /// and fetchers runnable: on a core, its CPU counted, then in turn with the processor's other
    /// connections. Returns when it is done.
    pub(crate) fn work(&self, py: Python<'_>, processor: usize, start: f64, cpu: f64, threads: i64,
            flow: &Bound<'_, PyAny>) -> PyResult<f64> {
        // the processors with work in hand (on_core's count), this one not counted twice: one pass
        let (mut runnable, mut counted) = (0, 0);
        for (i, other) in self.processors.iter().enumerate() {
            if other.borrow(py).free_at > start {
                runnable += 1;
                counted += (i == processor) as i64;
            }
        }
        let took = self.take_core(py, start, cpu, threads - counted + runnable)?;
        self.cpu_busy.borrow_mut(py).add(start, cpu);
        Ok(self.processors[processor].borrow_mut(py).take(py, start, took, flow))
    }

    /// A response of `size` bytes for `flow` queued for its processor at `now`: the processor's
    /// burst (`work`), then the broker's NIC (and a follower's fetch response the follower's,
    /// `follower_nic`, from the same moment). Returns when the processor's earlier work for the
    /// connection is done (a produce response's wait begins then; `now` for other responses),
    /// when the processor is done and when the last byte has arrived.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (processor, now, cpu, threads, flow, size, produce, follower_nic=None))]
    pub(crate) fn respond(&self, py: Python<'_>, processor: usize, now: f64, cpu: f64, threads: i64, flow: &Bound<'_, PyAny>,
               size: f64, produce: bool, follower_nic: Option<&Bound<'_, Shared>>) -> PyResult<(f64, f64, f64)> {
        let mut begin = now;
        if produce {
            let until = self.processors[processor].borrow(py).busy_until(flow);
            if until > now {
                begin = until;
            }
        }
        let sent = self.work(py, processor, now, cpu, threads, flow)?;
        let mut delivered = self.nic_out.borrow_mut(py).take(py, sent, size, flow);
        if let Some(nic) = follower_nic {
            let received = nic.borrow_mut().take(py, sent, size, flow);
            if received > delivered {
                delivered = received;
            }
        }
        Ok((begin, sent, delivered))
    }
}
