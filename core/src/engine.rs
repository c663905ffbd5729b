//! The event loop: a heap of events ordered by (time, sequence).
//!
//! The sequence number makes same-time events run in the order they were scheduled, so a run
//! is deterministic. Nothing here is global: every component receives the engine it runs on.
//!
//! The heap is heapq's algorithm over (time, sequence) keys, as the compiled Python engine ran
//! it: keys are unique, so any correct heap pops the events in the same order, and this one
//! also matches heapq's where a time is not a number. The heap holds only the keys (16 bytes,
//! moved into a hole rather than swapped); the actions wait in slots reused from event to event,
//! so scheduling an event allocates nothing once the run has its working set. An event is a Python callable and its
//! argument (`Engine.at`), called with one vectorcall and nothing bound per event, or one of the
//! broker's or a producer's sender's own (`Action`), run in Rust without calling Python.

use std::ptr;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};

use crate::broker::BrokerServer;
use crate::fetcher::Fetcher;
use crate::request::Request;
use crate::sender_thread::Sender;

/// What an event does when its time comes.
pub(crate) enum Action {
    /// `action(argument)`, scheduled from Python.
    Call(PyObject, PyObject),
    /// A network processor hands a request to its broker's request channel.
    Enqueue(Py<BrokerServer>, Py<Request>),
    /// A handler is done with a request.
    Handled(Py<BrokerServer>, Py<Request>),
    /// The fetch purgatory's sweep.
    ExpireFetches(Py<BrokerServer>),
    /// A follower's fetch response arrived at its fetcher.
    Fetched(Py<Fetcher>, Py<Request>),
    /// A fetcher's append is done.
    Appended(Py<Fetcher>, Py<Request>),
    /// A producer's sender: poll()'s timeout (the look planned with this token).
    SenderRun(Py<Sender>, u64),
    /// A produce response arrived at its sender.
    SenderResponse(Py<Sender>, Py<Request>),
    /// An acks=0 request is written.
    SenderWritten(Py<Sender>, Py<Request>),
}

/// One of the core's own events as observers see it: named (`__qualname__`) as the Python
/// method that was the event before it, so that a run's traces compare across the two.
#[pyclass(module = "simulator._core", frozen)]
pub struct NativeAction {
    #[pyo3(get)]
    __qualname__: &'static str,
}

impl Action {
    /// The event as observers see it: its action and its argument.
    fn observed(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        let (name, argument) = match self {
            Action::Call(action, argument) => return Ok((action.clone_ref(py), argument.clone_ref(py))),
            Action::Enqueue(_, request) => ("RequestHandlerPool.enqueue", request.clone_ref(py).into_any()),
            Action::Handled(_, request) => ("RequestHandlerPool._handled", request.clone_ref(py).into_any()),
            Action::ExpireFetches(_) => ("ReplicaManager._expire_fetches", py.None()),
            Action::Fetched(_, request) => ("Fetcher.on_response", request.clone_ref(py).into_any()),
            Action::Appended(_, request) => ("Fetcher._appended", request.clone_ref(py).into_any()),
            Action::SenderRun(_, token) => ("Sender._run", token.into_pyobject(py)?.into_any().unbind()),
            Action::SenderResponse(_, request) => ("Sender.on_response", request.clone_ref(py).into_any()),
            Action::SenderWritten(_, request) => ("Sender._written", request.clone_ref(py).into_any()),
        };
        Ok((Py::new(py, NativeAction { __qualname__: name })?.into_any(), argument))
    }

    fn visit(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        match self {
            Action::Call(action, argument) => {
                visit.call(action)?;
                visit.call(argument)
            }
            Action::Enqueue(server, request) | Action::Handled(server, request) => {
                visit.call(server)?;
                visit.call(request)
            }
            Action::ExpireFetches(server) => visit.call(server),
            Action::Fetched(fetcher, request) | Action::Appended(fetcher, request) => {
                visit.call(fetcher)?;
                visit.call(request)
            }
            Action::SenderRun(sender, _) => visit.call(sender),
            Action::SenderResponse(sender, request) | Action::SenderWritten(sender, request) => {
                visit.call(sender)?;
                visit.call(request)
            }
        }
    }
}

/// An event's place in the heap: its time, and its sequence number above its action's slot in
/// `Engine::actions` (the low `SLOT_BITS` bits). Sequence numbers are unique, so comparing the
/// packed word compares the sequences.
#[derive(Clone, Copy)]
struct Key {
    time: f64,
    order: u64,
}

const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

fn before(a: &Key, b: &Key) -> bool {
    a.time < b.time || (a.time == b.time && a.order < b.order)
}

#[pyclass(module = "simulator._core")]
pub struct Engine {
    #[pyo3(get)]
    pub(crate) now: f64,
    /// Components may move it (the load's end decides the run's end).
    #[pyo3(get, set)]
    stop_at: f64,
    heap: Vec<Key>,
    /// the scheduled events' actions, by slot; the free slots, reused before new ones are made
    actions: Vec<Option<Action>>,
    free: Vec<u64>,
    sequence: u64,
    #[pyo3(get)]
    events: u64,
    /// of them, the core's own (the broker's and the senders': run without calling Python)
    #[pyo3(get)]
    native_events: u64,
    /// Called as observer(action, argument) after every event: for tracing and tests.
    #[pyo3(get)]
    observers: Py<PyList>,
}

impl Engine {
    pub(crate) fn push(&mut self, time: f64, action: Action) {
        self.sequence += 1;
        let slot = match self.free.pop() {
            Some(slot) => {   // a free slot holds None: nothing to drop
                std::mem::forget(self.actions[slot as usize].replace(action));
                slot
            }
            None => {
                self.actions.push(Some(action));
                self.actions.len() as u64 - 1
            }
        };
        assert!(slot <= SLOT_MASK, "more events scheduled at once than the heap's slots hold");
        let key = Key { time, order: self.sequence << SLOT_BITS | slot };
        let heap = &mut self.heap;
        heap.push(key);
        let mut position = heap.len() - 1;
        while position > 0 {   // heapq's _siftdown: a later sequence never goes before an equal time
            let parent = (position - 1) >> 1;
            if !(time < heap[parent].time) {
                break;
            }
            heap[position] = heap[parent];
            position = parent;
        }
        heap[position] = key;
    }

    /// heapq.heappop: the earliest event out, the last one sifted into its place.
    fn pop(&mut self) -> Key {
        let heap = &mut self.heap;
        let last = heap.pop().expect("an event");
        if heap.is_empty() {
            return last;
        }
        let first = heap[0];
        let end = heap.len();
        let mut position = 0;
        let mut child = 1;
        while child < end {    // heapq's _siftup: down to a leaf along the earlier children
            let right = child + 1;
            if right < end && !before(&heap[child], &heap[right]) {
                child = right;
            }
            heap[position] = heap[child];
            position = child;
            child = 2 * position + 1;
        }
        while position > 0 {   // then up to where the last event belongs
            let parent = (position - 1) >> 1;
            if !before(&last, &heap[parent]) {
                break;
            }
            heap[position] = heap[parent];
            position = parent;
        }
        heap[position] = last;
        first
    }

    /// The next event's time and action when its time is within the run, the clock moved to it.
    fn next(&mut self) -> Option<(f64, Action)> {
        match self.heap.first() {
            Some(key) if key.time <= self.stop_at => {}
            _ => return None,
        }
        let key = self.pop();
        self.now = key.time;
        let slot = key.order & SLOT_MASK;
        self.free.push(slot);
        Some((key.time, self.actions[slot as usize].take().expect("a scheduled action")))
    }
}

/// `callable(argument)` through vectorcall, the slot before the argument free for a bound method's self.
fn call1(py: Python<'_>, callable: &PyObject, argument: &PyObject) -> PyResult<()> {
    let mut arguments = [ptr::null_mut(), argument.as_ptr()];
    let result = unsafe {
        ffi::PyObject_Vectorcall(callable.as_ptr(), arguments.as_mut_ptr().add(1),
                                 1 | ffi::PY_VECTORCALL_ARGUMENTS_OFFSET, ptr::null_mut())
    };
    if result.is_null() {
        return Err(PyErr::fetch(py));
    }
    unsafe { ffi::Py_DECREF(result) };
    Ok(())
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (stop_at))]
    fn new(py: Python<'_>, stop_at: f64) -> Self {
        Engine { now: 0.0, stop_at, heap: Vec::new(), actions: Vec::new(), free: Vec::new(), sequence: 0, events: 0, native_events: 0, observers: PyList::empty(py).unbind() }
    }

    /// Runs `action(argument)` at `time`, after the events already scheduled for that time.
    #[pyo3(signature = (time, action, argument = None))]
    fn at(&mut self, py: Python<'_>, time: f64, action: PyObject, argument: Option<PyObject>) {
        self.push(time, Action::Call(action, argument.unwrap_or_else(|| py.None())));
    }

    /// Runs the events up to `stop_at`, calling `progress(time)` at most once a simulated second.
    #[pyo3(signature = (progress = None))]
    fn run(slf: &Bound<'_, Self>, progress: Option<PyObject>) -> PyResult<()> {
        let py = slf.py();
        let observers = slf.borrow().observers.clone_ref(py).into_bound(py);
        let mut next_report = 1.0;
        loop {
            let Some((time, action)) = slf.borrow_mut().next() else { break };
            let observed = if observers.is_empty() { None } else { Some(action.observed(py)?) };
            let native = match action {   // the event's references dropped here as Bound's: no deferred decref
                Action::Call(action, argument) => {
                    call1(py, &action, &argument)?;
                    drop((action.into_bound(py), argument.into_bound(py)));
                    false
                }
                Action::Enqueue(server, request) => {
                    BrokerServer::enqueue(&server.into_bound(py), request)?;
                    true
                }
                Action::Handled(server, request) => {
                    BrokerServer::handled(&server.into_bound(py), request)?;
                    true
                }
                Action::ExpireFetches(server) => {
                    BrokerServer::expire_fetches(&server.into_bound(py))?;
                    true
                }
                Action::Fetched(fetcher, request) => {
                    Fetcher::on_response(&fetcher.into_bound(py), request)?;
                    true
                }
                Action::Appended(fetcher, request) => {
                    Fetcher::appended(&fetcher.into_bound(py), request)?;
                    true
                }
                Action::SenderRun(sender, token) => {
                    Sender::run(&sender.into_bound(py), token)?;
                    true
                }
                Action::SenderResponse(sender, request) => {
                    Sender::on_response(&sender.into_bound(py), request)?;
                    true
                }
                Action::SenderWritten(sender, request) => {
                    Sender::written(&sender.into_bound(py), request)?;
                    true
                }
            };
            {
                let mut engine = slf.borrow_mut();
                engine.events += 1;
                engine.native_events += native as u64;
            }
            if let Some((action, argument)) = observed {
                for observe in observers.iter() {
                    observe.call1((&action, &argument))?;
                }
            }
            if let Some(progress) = &progress {
                if time >= next_report {
                    progress.call1(py, (time,))?;
                    next_report = time + 1.0;
                }
            }
        }
        let mut engine = slf.borrow_mut();
        if !engine.heap.is_empty() || engine.now < engine.stop_at {
            engine.now = engine.stop_at;
        }
        Ok(())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for action in self.actions.iter().flatten() {
            action.visit(&visit)?;
        }
        visit.call(&self.observers)
    }

    fn __clear__(&mut self) {
        self.heap.clear();
        self.actions.clear();
        self.free.clear();
    }
}
