//! A producer's Sender thread (Kafka's `Sender`), its events native in the event loop.
//!
//! Follows `Sender.runOnce`: read the responses that arrived (`completeBatch`: the batches'
//! callbacks, their `buffer.memory` back), ask the accumulator which leaders are ready, drain
//! each ready leader with room on its connection into one produce request
//! (`sendProduceRequests`), and poll until the next batch can be sendable. A connection takes at
//! most `max.in.flight.requests.per.connection` requests, the next only once the previous one is
//! fully written (`InFlightRequests.canSendMore`); a throttled response holds the connection for
//! its throttle time.
//!
//! The thread runs on its host's cores (`cpu.rs`): woken from `poll()` by an append that creates
//! a batch, by a response or by its timeout, it first waits for a core, then spends CPU reading
//! the responses that arrived (per response, and per record: each record's future and callback,
//! `ProducerBatch.done`) and building and writing the requests it drains. Its cycle (wait + CPU
//! + the in-flight window) is what sizes `linger.ms=0` batches.
//!
//! Its events (poll()'s timeout, a response, an acks=0 request written) are the engine's own; its
//! requests reach their broker and their responses come back natively. Python is called for a
//! shared host's components other than producers (`cpu.rs`) and by the accumulator's callbacks,
//! which may wake it: no borrow of it is held across them.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::{PyTraverseError, PyVisit};

use crate::accumulator::RecordAccumulator;
use crate::acks::Acks;
use crate::batch::{Batch, BATCH_TYPE};
use crate::broker::BrokerServer;
use crate::cpu::Cores;
use crate::drain::Drained;
use crate::engine::{Action, Engine};
use crate::network_client::Connection;
use crate::request::Request;
use crate::sender::SenderMetrics;

/// Python's `max(a, b)`: `a` unless `b` is larger.
fn larger(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// The sender's CPU costs (seconds), as the profile's `ClientCosts` give them.
struct Costs {
    request: f64,
    batch: f64,
    byte: f64,
    response: f64,
    record: f64,
}

pub(crate) static SENDER_TYPE: crate::TypeCell = crate::TypeCell::new();
#[pyclass(module = "simulator._core")]
pub struct Sender {
    engine: Py<Engine>,
    #[pyo3(get)]
    pub(crate) accumulator: Py<RecordAccumulator>,
    /// the cores it runs on (none: a core of its own)
    #[pyo3(get)]
    host: Option<Py<Cores>>,
    /// its place among the host's components (none: it does not count the others)
    pub(crate) seat: Option<usize>,
    #[pyo3(get)]
    metrics: Py<SenderMetrics>,
    #[pyo3(get)]
    client_id: String,
    #[pyo3(get)]
    max_in_flight: i64,
    #[pyo3(get)]
    max_request_size: f64,
    #[pyo3(get)]
    acks: Acks,
    costs: Costs,
    half_rtt: f64,
    /// the leaders (the accumulator's `nodes`), the connection to each and its server
    nodes: Vec<PyObject>,
    connections: Vec<Py<Connection>>,
    servers: Vec<Py<BrokerServer>>,
    /// arrived, not yet read
    #[pyo3(get, set)]
    responses: Vec<Py<Request>>,
    looping: bool,
    #[pyo3(get)]
    pub(crate) sender_free_at: f64,
    wake_at: f64,
    wake_token: u64,
}

impl Sender {
    fn now(slf: &Bound<'_, Self>) -> f64 {
        slf.borrow().engine.borrow(slf.py()).now
    }

    /// A run's start: its metrics, the threads runnable on its host besides it now (its
    /// application's; a shared host's others) and when the first response to read was made.
    fn start<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, SenderMetrics>, f64, f64)> {
        let py = slf.py();
        let this = slf.borrow();
        let elsewhere = match &this.host {
            Some(host) => host.borrow(py).besides(py, this.seat, this.accumulator.borrow(py).runnable_threads(),
                                                   this.engine.borrow(py).now)?,
            None => 0.0,
        };
        Ok((this.metrics.bind(py).clone(), elsewhere, this.first_created(py)))
    }

    /// The sender leaves poll(): it runs once a core takes it (at once, in the same call).
    fn rouse(slf: &Bound<'_, Self>, now: f64) -> PyResult<()> {
        let py = slf.py();
        if slf.borrow().host.is_none() {
            return Sender::run_once(slf, now);
        }
        let (metrics, elsewhere, created) = Sender::start(slf)?;
        let (wait, stretch) = metrics.borrow().wake(py, elsewhere, now, created);
        if wait > 0.0 {
            let free_at = now + wait;
            slf.borrow_mut().sender_free_at = free_at;
            return Sender::schedule_at(slf, free_at);
        }
        Sender::run_stretched(slf, now, stretch)
    }

    /// When the first response to read was made (NaN: none arrived).
    fn first_created(&self, py: Python<'_>) -> f64 {
        self.responses.first().map_or(f64::NAN, |r| r.borrow(py).t_created)
    }

    /// poll()'s timeout: look again at `when` (unless an earlier look is planned).
    fn schedule_at(slf: &Bound<'_, Self>, when: f64) -> PyResult<()> {
        let py = slf.py();
        let (engine, token) = {
            let mut this = slf.borrow_mut();
            if when >= this.wake_at {
                return Ok(());
            }
            this.wake_at = when;
            this.wake_token += 1;
            (this.engine.bind(py).clone(), this.wake_token)
        };
        engine.borrow_mut().push(when, Action::SenderRun(slf.clone().unbind(), token));
        Ok(())
    }

    /// poll()'s timeout (an event): the look planned with `token` (a later plan replaced it: nothing).
    pub(crate) fn run(slf: &Bound<'_, Self>, token: u64) -> PyResult<()> {
        let now = Sender::now(slf);
        let free_at = {
            let mut this = slf.borrow_mut();
            if token != this.wake_token {
                return Ok(());
            }
            this.wake_at = f64::INFINITY;
            this.sender_free_at
        };
        if now < free_at {    // its CPU work grew meanwhile: look once it is done
            Sender::schedule_at(slf, free_at)
        } else if now > free_at {   // poll()'s timeout: the thread was asleep
            Sender::rouse(slf, now)
        } else {
            Sender::run_once(slf, now)
        }
    }

    /// The accumulator's drain at `now`: its requests and when to look again.
    fn drain(slf: &Bound<'_, Self>, now: f64) -> PyResult<(Vec<Drained>, f64)> {
        let py = slf.py();
        let (accumulator, max_size) = {
            let this = slf.borrow();
            (this.accumulator.bind(py).clone(), this.max_request_size)
        };
        RecordAccumulator::drain_ready(&accumulator, now, max_size)
    }

    /// run_once with its first response's latency counted (if any) and its CPU `stretch`ed by
    /// its host's load: the responses read, what is ready drained and sent.
    fn run_stretched(slf: &Bound<'_, Self>, now: f64, stretch: f64) -> PyResult<()> {
        let py = slf.py();
        let responses: Vec<Bound<'_, Request>> =   // dropped as Bound's: no deferred decref
            std::mem::take(&mut slf.borrow_mut().responses).into_iter().map(|r| r.into_bound(py)).collect();
        let mut read = 0.0;
        if !responses.is_empty() {
            let (accumulator, response_s, record_s) = {
                let this = slf.borrow();
                (this.accumulator.bind(py).clone(), this.costs.response, this.costs.record)
            };
            read = responses.len() as f64 * response_s;
            if record_s != 0.0 {
                for response in &responses {
                    let batches = response.borrow().batches.bind(py).clone();
                    for batch in batches.try_iter()? {
                        read += crate::cast::<Batch>(&batch?, &BATCH_TYPE)?.borrow().records * record_s;
                    }
                }
            }
            read *= stretch;
            {
                let mut this = slf.borrow_mut();
                this.sender_free_at = now + read;    // a completion's wakeup looks again after this
                this.looping = true;
            }
            // the first one's latency was counted with the stretch
            let done = RecordAccumulator::read(&accumulator, &responses, now, now + read, true);
            slf.borrow_mut().looping = false;
            done?;
        }
        let (made, next_check) = Sender::drain(slf, now)?;
        Sender::send_all(slf, now, read, stretch, made, next_check)
    }

    /// A drain's requests written after `read` seconds of reading responses, and the next look.
    fn send_all(slf: &Bound<'_, Self>, now: f64, read: f64, stretch: f64, made: Vec<Drained>, mut next_check: f64)
                -> PyResult<()> {
        let py = slf.py();
        if !made.is_empty() {
            let at = {
                let mut this = slf.borrow_mut();
                let costs = &this.costs;
                let mut cost = 0.0;
                for (_, batches, wire) in &made {
                    cost += costs.request + batches.len() as f64 * costs.batch + wire * costs.byte;
                }
                let cost = read + cost * stretch;
                this.sender_free_at = now + cost;
                now + cost
            };
            for (node, batches, wire) in made {
                Sender::send(slf, node, batches, wire, at)?;
            }
            next_check = slf.borrow().accumulator.borrow(py).next_send(py, next_check)?;
        }
        if next_check < f64::INFINITY {
            let free_at = slf.borrow().sender_free_at;
            Sender::schedule_at(slf, larger(next_check, free_at))?;
        }
        Ok(())
    }

    /// A produce request of the drain's, written by `at`, on its leader's connection.
    fn send(slf: &Bound<'_, Self>, node: usize, batches: Vec<Py<Batch>>, wire: f64, at: f64) -> PyResult<()> {
        let py = slf.py();
        let now = Sender::now(slf);
        let (connection, server, acks, half_rtt, engine) = {
            let this = slf.borrow();
            (this.connections[node].bind(py).clone(), this.servers[node].bind(py).clone(), this.acks, this.half_rtt,
             this.engine.bind(py).clone())
        };
        let written_only = acks == Acks::Zero;
        let request = Connection::send(&connection, &server, slf.as_any(), batches, wire, acks, now, at, half_rtt)?;
        if written_only {   // no response: done once written
            let send_done = connection.borrow().send_done;
            engine.borrow_mut().push(send_done, Action::SenderWritten(slf.clone().unbind(), request.unbind()));
        }
        Ok(())
    }

    /// A response arrived (an event): the sender reads it when it next runs.
    pub(crate) fn on_response(slf: &Bound<'_, Self>, request: Py<Request>) -> PyResult<()> {
        slf.borrow_mut().responses.push(request);
        Sender::wakeup(slf)
    }

    /// acks=0: a request is done once its last byte left (an event).
    pub(crate) fn written(slf: &Bound<'_, Self>, request: Py<Request>) -> PyResult<()> {
        let py = slf.py();
        let now = Sender::now(slf);
        let accumulator = slf.borrow().accumulator.bind(py).clone();
        RecordAccumulator::read(&accumulator, &[request.into_bound(py)], now, now, false)?;
        let pending = accumulator.borrow().pending();
        if pending { Sender::wakeup(slf) } else { Ok(()) }
    }
}

#[pymethods]
impl Sender {
    /// One producer's sender on `engine`, built from its `spec` (a `ClientSpec`), draining
    /// `accumulator` over a connection to each of its leaders; `host` the cores it runs on (none:
    /// a core of its own; it counts the host's other components once it joins them, `Cores.join`).
    #[new]
    #[pyo3(signature = (engine, spec, accumulator, host=None))]
    fn new(py: Python<'_>, engine: Py<Engine>, spec: &Bound<'_, PyAny>, accumulator: Py<RecordAccumulator>,
           host: Option<Py<Cores>>) -> PyResult<Self> {
        let config = spec.getattr("config")?;
        let costs = spec.getattr("costs")?;
        let cost = |name: &str, unit: f64| -> PyResult<f64> { Ok(costs.getattr(name)?.extract::<f64>()? * unit) };
        let client_id: String = spec.getattr("client_id")?.extract()?;
        let max_in_flight: i64 = config.getattr("max_in_flight")?.extract()?;
        let nodes: Vec<PyObject> = accumulator.borrow(py).nodes.iter().map(|n| n.clone_ref(py)).collect();
        let mut connections = Vec::new();
        let mut servers = Vec::new();
        for node in &nodes {
            connections.push(node.call_method1(py, "connect", (&client_id,))?.extract::<Py<Connection>>(py)?);
            servers.push(node.getattr(py, "server")?.extract::<Py<BrokerServer>>(py)?);
        }
        // the client's metrics: request-latency-avg (from the request's making to its response
        // read) with the host's stretch of a run; the drain interval, the batch sizes and what
        // was sent, counted by the accumulator's drain; the time throttled
        let metrics = Py::new(py, SenderMetrics::new(py, host.as_ref().map(|h| h.clone_ref(py)))?)?;
        accumulator.borrow_mut(py).connect(connections.iter().map(|c| c.clone_ref(py)).collect(), max_in_flight,
                                           metrics.clone_ref(py));
        let rtt: f64 = spec.getattr("rtt")?.extract()?;
        Ok(Sender {
            engine, accumulator, host, seat: None, metrics, client_id, max_in_flight,
            max_request_size: config.getattr("max_request_size")?.extract()?,
            acks: config.getattr("acks")?.extract()?,
            costs: Costs {
                request: cost("sender_request_us", 1e-6)?, batch: cost("sender_batch_us", 1e-6)?,
                byte: cost("sender_byte_ns", 1e-9)?, response: cost("sender_response_us", 1e-6)?,
                record: cost("sender_record_us", 1e-6)?,
            },
            half_rtt: rtt / 2.0, nodes, connections, servers, responses: Vec::new(), looping: false,
            sender_free_at: 0.0, wake_at: f64::INFINITY, wake_token: 0,
        })
    }

    /// Something changed: a sender asleep in poll() wakes (and waits for a core), a busy one
    /// looks again as soon as its CPU work is done.
    pub(crate) fn wakeup(slf: &Bound<'_, Self>) -> PyResult<()> {
        let now = Sender::now(slf);
        let (looping, free_at) = {
            let this = slf.borrow();
            (this.looping, this.sender_free_at)
        };
        if looping {   // a completion inside the sender's own loop
            return Sender::schedule_at(slf, larger(now, free_at));
        }
        if now >= free_at {
            {
                let mut this = slf.borrow_mut();
                this.wake_token += 1;    // a later wake-up is no longer needed as such
                this.wake_at = f64::INFINITY;
            }
            if now > free_at {
                return Sender::rouse(slf, now);
            }
            return Sender::run_once(slf, now);    // still on its core: it sees the change without sleeping
        }
        Sender::schedule_at(slf, free_at)
    }

    /// poll()'s timeout: look again at `when` (unless an earlier look is planned).
    fn schedule(slf: &Bound<'_, Self>, when: f64) -> PyResult<()> {
        Sender::schedule_at(slf, when)
    }

    /// Sender.runOnce at `now`: read the responses that arrived, drain what is ready, send, plan
    /// the next look. Its CPU takes longer when its host's cores are shared.
    fn run_once(slf: &Bound<'_, Self>, now: f64) -> PyResult<()> {
        let (metrics, elsewhere, created) = Sender::start(slf)?;
        let stretch = metrics.borrow().read(slf.py(), elsewhere, now, created);
        Sender::run_stretched(slf, now, stretch)
    }

    /// The connection to each leader.
    #[getter]
    fn connections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let connections = PyDict::new(py);
        for (node, connection) in self.nodes.iter().zip(&self.connections) {
            connections.set_item(node, connection)?;
        }
        Ok(connections)
    }

    /// Requests in flight per broker.
    #[getter]
    fn inflight<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inflight = PyDict::new(py);
        for (node, connection) in self.nodes.iter().zip(&self.connections) {
            inflight.set_item(node, connection.borrow(py).inflight)?;
        }
        Ok(inflight)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.engine)?;
        visit.call(&self.accumulator)?;
        visit.call(&self.metrics)?;
        for object in self.host.iter() {
            visit.call(object)?;
        }
        for object in &self.nodes {
            visit.call(object)?;
        }
        for connection in &self.connections {
            visit.call(connection)?;
        }
        for server in &self.servers {
            visit.call(server)?;
        }
        for response in &self.responses {
            visit.call(response)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.nodes.clear();
        self.connections.clear();
        self.servers.clear();
        self.responses.clear();
    }
}
