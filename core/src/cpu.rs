//! Threads on cores: a host's CPU shared by the threads that run on it.
//!
//! A host (an executor's worker, a broker, a neighbour's client machine) has `count` cores, a
//! fraction being a CPU budget (a share of one core, as a cgroup quota gives). Two effects follow
//! Linux's EEVDF scheduler (kernel/sched/fair.c) without simulating every time slice, so a run's
//! cost grows with requests, not with scheduler ticks:
//!
//! - A thread that wakes (a sender woken by `send()` or a response, a handler by the request
//!   queue) while every core is busy runs at once when EEVDF's wakeup preemption lets it: a
//!   sleeper is placed with its lag and usually has the earliest eligible deadline. It waits
//!   when the running thread is inside the slice RUN_TO_PARITY protects; that thread is then
//!   preempted at the first scheduler tick after its slice ends (no high-resolution tick), so the
//!   wait is up to one tick: uniform over (tick - slice, tick]. The share of wakes that find
//!   the running thread protected grows with the runnable threads per core beyond one
//!   (`protected_wake_share` per extra thread, fitted to bench/wake_latency.c).
//! - CPU work done while more threads are runnable than there are cores takes longer: over a
//!   busy period EEVDF gives every runnable thread an equal share of the cores.
//!
//! A host's components (a broker, an executor JVM, a neighbour's client) `join` its cores; each
//! says how many of its threads are runnable at a time, and whether they are CPU-bound (an
//! executor's task threads) or run short bursts and sleep (a broker's threads, a sender). By
//! default every component has a host of its own (as in production); a scenario's `placement`
//! puts several on one host (the live rig's two cores, a Kubernetes node), and each then counts
//! the others' runnable threads as it counts its own. A producer's component is its sender, which
//! counts its application's threads and itself natively; the others say theirs from Python.

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use pyo3::types::PyList;

use crate::random::Random;
use crate::sender_thread::{Sender, SENDER_TYPE};

/// A component on a host, by what counts its runnable threads at a time.
enum Member {
    /// a producer: its sender and the application's threads appending into it
    Producer(Py<Sender>),
    /// `runnable(now)`
    Runnable(PyObject),
}

impl Member {
    fn runnable(&self, py: Python<'_>, now: f64) -> PyResult<f64> {
        match self {
            Member::Producer(sender) => {   // the application's threads, and the sender while it has CPU work
                let sender = sender.borrow(py);
                let busy = if sender.sender_free_at > now { 1.0 } else { 0.0 };
                let threads = sender.accumulator.borrow(py).runnable_threads();
                Ok(threads + busy)
            }
            Member::Runnable(runnable) => runnable.call1(py, (now,))?.extract::<f64>(py),
        }
    }

    fn object(&self) -> &PyObject {
        match self {
            Member::Producer(sender) => sender.as_any(),
            Member::Runnable(runnable) => runnable,
        }
    }
}

/// The scheduler's figures (the profile's `scheduler` section), in seconds.
#[pyclass(module = "simulator._core", frozen)]
#[derive(Clone)]
pub struct Scheduler {
    #[pyo3(get)]
    base_slice: f64,
    #[pyo3(get)]
    tick: f64,
    #[pyo3(get)]
    protected_wake_share: f64,
}

#[pymethods]
impl Scheduler {
    #[new]
    fn new(base_slice_us: f64, tick_hz: f64, protected_wake_share: f64) -> Self {
        Scheduler { base_slice: base_slice_us * 1e-6, tick: 1.0 / tick_hz, protected_wake_share }
    }

    /// The scheduler of a cost profile (its `scheduler` section).
    #[staticmethod]
    fn of(profile: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = profile.getattr("scheduler")?;
        Ok(Scheduler::new(s.getattr("base_slice_us")?.extract()?, s.getattr("tick_hz")?.extract()?,
                          s.getattr("protected_wake_share")?.extract()?))
    }
}

/// A host's cores and the threads on them. `background` is the mean number of threads runnable
/// besides the ones the model follows (a JVM's JIT compiler and GC, a broker's log flusher and
/// cleaner): a profile figure.
#[pyclass(module = "simulator._core")]
pub struct Cores {
    #[pyo3(get)]
    count: f64,
    scheduler: Scheduler,
    #[pyo3(get)]
    slice: f64,
    random: Py<Random>,
    #[pyo3(get)]
    background: f64,
    /// wakes that found every core busy
    #[pyo3(get)]
    wakes: u64,
    /// seconds those wakes waited for a core
    #[pyo3(get)]
    waited: f64,
    /// of them, the ones that waited for a tick
    #[pyo3(get)]
    slow_wakes: u64,
    members: Vec<Member>,   // each component's runnable threads at a time
    bound: Vec<bool>,       // ... and whether they are CPU-bound
    /// more than one component on these cores
    #[pyo3(get)]
    pub(crate) shared: bool,
}

impl Cores {
    /// A component's `own` threads and, joined at `seat` to shared cores, the others'.
    pub(crate) fn besides(&self, py: Python<'_>, seat: Option<usize>, own: f64, now: f64) -> PyResult<f64> {
        match seat {
            Some(seat) if self.shared => Ok(own + self.others(py, seat, now)?),
            _ => Ok(own),
        }
    }
}

#[pymethods]
impl Cores {
    #[new]
    #[pyo3(signature = (count, scheduler, rng, background=0.0))]
    fn new(count: f64, scheduler: Scheduler, rng: Py<Random>, background: f64) -> Self {
        // SCHED_TUNABLESCALING_LOG: the slice grows with the machine's CPUs, 1 + log2(min(cpus, 8))
        let cpus = (count.ceil() as i64).max(1).min(8);
        let factor = (1 + (64 - cpus.leading_zeros() as i64) - 1) as f64;
        let slice = (scheduler.base_slice * factor).min(scheduler.tick);
        Cores { count, scheduler, slice, random: rng, background, wakes: 0, waited: 0.0, slow_wakes: 0,
                members: Vec::new(), bound: Vec::new(), shared: false }
    }

    /// A component placed here brings its JVM's background work (JIT, GC: the profile's figure).
    fn add_background(&mut self, threads: f64) {
        self.background += threads;
    }

    /// A component's threads on these cores: a producer's `Sender` counts its own (and counts
    /// the others' when it wakes), else `runnable(now)` counts them. Returns its place, by which
    /// it asks for the others' (`others`).
    #[pyo3(signature = (runnable, cpu_bound=false))]
    fn join(&mut self, runnable: Bound<'_, PyAny>, cpu_bound: bool) -> usize {
        let member = match crate::cast::<Sender>(&runnable, &SENDER_TYPE) {
            Ok(sender) => {
                sender.borrow_mut().seat = Some(self.members.len());
                Member::Producer(sender.clone().unbind())
            }
            Err(_) => Member::Runnable(runnable.unbind()),
        };
        self.members.push(member);
        self.bound.push(cpu_bound);
        self.shared = self.members.len() > 1;
        self.members.len() - 1
    }

    #[getter]
    fn members<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.members.iter().map(|m| m.object().clone_ref(py)))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.random)?;
        for member in &self.members {
            visit.call(member.object())?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.members.clear();
    }

    /// The runnable threads of the host's other components at `now`.
    pub(crate) fn others(&self, py: Python<'_>, member: usize, now: f64) -> PyResult<f64> {
        let mut total = 0.0;
        for (i, runnable) in self.members.iter().enumerate() {
            if i != member {
                total += runnable.runnable(py, now)?;
            }
        }
        Ok(total)
    }

    /// Of them, the CPU-bound ones (a woken thread waits behind these).
    pub(crate) fn others_bound(&self, py: Python<'_>, member: usize, now: f64) -> PyResult<f64> {
        let mut total = 0.0;
        for (i, runnable) in self.members.iter().enumerate() {
            if i != member && self.bound[i] {
                total += runnable.runnable(py, now)?;
            }
        }
        Ok(total)
    }

    /// Seconds a thread waking now waits for a core, with `others` CPU-bound threads runnable on
    /// this host besides it (sampled: one draw per wake).
    pub(crate) fn wake_delay(&mut self, py: Python<'_>, others: f64) -> f64 {
        let excess = (others + self.background) / self.count - 1.0;
        if excess <= 0.0 {
            return 0.0; // an idle core takes it
        }
        self.wakes += 1;
        let share = self.scheduler.protected_wake_share * excess;
        let mut random = self.random.borrow_mut(py);
        if random.twister.random() >= share {
            return 0.0; // it preempts the running thread at once
        }
        let wait = self.scheduler.tick - random.twister.random() * self.slice;
        self.slow_wakes += 1;
        self.waited += wait;
        wait
    }

    /// How much longer CPU work takes with `runnable` threads (this one included): each gets an
    /// equal share of the cores, and at most one core.
    pub(crate) fn stretch(&self, runnable: f64) -> f64 {
        let total = runnable + self.background;
        if total <= self.count {
            return 1.0;
        }
        (if total > 1.0 { total } else { 1.0 }) / self.count
    }
}
