//! A Kafka broker's server, cut where Kafka cuts it, as one object: its socket server
//! (`network.rs`), request channel and handler pool (`handlers.rs`), replica manager and
//! purgatories (`replica.rs`) and produce quotas (`quota.rs`), with its disk's page cache and
//! the count of its busy handlers and fetchers that its threads' CPU depends on.
//!
//! Its events run here without calling Python: a request read off its connection into the
//! channel (`enqueue`), a handler done with it (`handled`) and the fetch purgatory's sweep
//! (`expire_fetches`); Python is called at the edges only: a consumer's or a coordinator's
//! request (its `Handler`), a consumed partition's observer and a client's `response_at` (a
//! producer's sender is the core's: its requests come and its responses go natively).
//! A part that calls Python holds no borrow of the server meanwhile: the call may come back.

use std::collections::VecDeque;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::{PyTraverseError, PyVisit};

use crate::engine::Engine;
use crate::metrics::{RequestMetrics, Samples};
use crate::quota::ProduceQuotas;
use crate::request::{Channel, Request};
use crate::shared::Shared;
use crate::threads::Threads;

/// The handler pool's costs (seconds), as the profile's `BrokerCosts` give them.
pub struct Costs {
    pub produce_request: f64,
    pub produce_batch: f64,
    pub produce_record: f64,
    pub produce_byte: f64,
    /// by codec name (the dict's key and its text)
    pub decompress_byte: Vec<(Py<PyString>, String, f64)>,
    pub fetch_request: f64,
    pub fetch_partition: f64,
    pub fetch_byte: f64,
    pub network_request: f64,
    pub network_byte: f64,
    pub send_byte: f64,
    pub follower_batch: f64,
    pub follower_byte: f64,
}

#[pyclass(module = "simulator._core")]
pub struct BrokerServer {
    pub(crate) engine: Py<Engine>,
    #[pyo3(get)]
    pub(crate) id: i64,
    pub(crate) threads: Py<Threads>,
    pub(crate) nic_in: Py<Shared>,
    pub(crate) half_rtt: f64,
    pub(crate) costs: Costs,
    // the disk's page cache
    disk_bandwidth: f64,
    dirty_cache: f64,
    disk_backlog: f64,
    disk_time: f64,
    // its threads runnable: the busy handlers and fetchers
    #[pyo3(get)]
    pub(crate) busy: i64,
    #[pyo3(get)]
    pub(crate) fetchers_busy: i64,
    // the request channel and handler pool
    pub(crate) io_threads: i64,
    pub(crate) queue_limit: usize,
    pub(crate) queue: VecDeque<Py<Request>>,
    pub(crate) blocked: VecDeque<Py<Request>>,
    #[pyo3(get)]
    pub(crate) queue_max: usize,
    pub(crate) queue_changed: f64,
    // the socket server
    pub(crate) connections: usize,
    pub(crate) processors: usize,
    /// RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseQueueTimeMs, ResponseSendTimeMs, TotalTimeMs
    pub(crate) produce_times: Vec<Py<Samples>>,
    pub(crate) request_log: Py<PyDict>,
    // the replica manager
    pub(crate) fetch_wait: f64,
    pub(crate) fetch_max: f64,
    pub(crate) parked: VecDeque<(f64, Py<Request>)>,
    pub(crate) sweep_at: Option<f64>,
    pub(crate) produce: Py<RequestMetrics>,
    pub(crate) fetch: Py<RequestMetrics>,
    pub(crate) quotas: ProduceQuotas,
}

impl BrokerServer {
    /// Page-cache write; returns the stall once dirty pages exceed what the disk drains.
    pub(crate) fn disk_append(&mut self, now: f64, size: f64) -> f64 {
        let drained = (now - self.disk_time) * self.disk_bandwidth;
        let left = self.disk_backlog - drained;
        self.disk_backlog = (if left > 0.0 { left } else { 0.0 }) + size;
        self.disk_time = now;
        let excess = self.disk_backlog - self.dirty_cache;
        if excess > 0.0 { excess / self.disk_bandwidth } else { 0.0 }
    }

    /// The broker's handlers and fetchers runnable now.
    pub(crate) fn threads_busy(&self) -> i64 {
        self.busy + self.fetchers_busy
    }

    pub(crate) fn now(&self, py: Python<'_>) -> f64 {
        self.engine.borrow(py).now
    }
}

#[pymethods]
impl BrokerServer {
    /// Broker `id`'s server on `engine`, its threads' bursts on `threads`, followers' fetch
    /// responses entering `nic_in`; `costs` the profile's `BrokerCosts`, `spec` the scenario's
    /// broker, `produce` and `fetch` its metrics, `quotas` by client.id, `request_log` the
    /// request times of the client ids a run keeps.
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(py: Python<'_>, engine: Py<Engine>, id: i64, threads: Py<Threads>, nic_in: Py<Shared>, processors: usize,
           rtt: f64, spec: &Bound<'_, PyAny>, costs: &Bound<'_, PyAny>, produce: Py<RequestMetrics>,
           fetch: Py<RequestMetrics>, quotas: &Bound<'_, PyAny>, request_log: Py<PyDict>) -> PyResult<Self> {
        let cost = |name: &str| -> PyResult<f64> { costs.getattr(name)?.extract() };
        let mut decompress_byte = Vec::new();
        for (codec, ns) in costs.getattr("decompress_byte_ns")?.downcast::<PyDict>()?.iter() {
            let codec = codec.downcast_into::<PyString>()?;
            let name = codec.to_str()?.to_owned();
            decompress_byte.push((codec.unbind(), name, ns.extract::<f64>()? * 1e-9));
        }
        let network_byte_ns = cost("network_byte_ns")?;
        let send_byte_ns: Option<f64> = costs.getattr("fetch_send_byte_ns")?.extract()?;
        let costs = Costs {
            produce_request: cost("produce_request_us")? * 1e-6, produce_batch: cost("produce_batch_us")? * 1e-6,
            produce_record: cost("produce_record_ns")? * 1e-9, produce_byte: cost("produce_byte_ns")? * 1e-9,
            decompress_byte, fetch_request: cost("fetch_request_us")? * 1e-6,
            fetch_partition: cost("fetch_partition_us")? * 1e-6, fetch_byte: cost("fetch_byte_ns")? * 1e-9,
            network_request: cost("network_request_us")? * 1e-6, network_byte: network_byte_ns * 1e-9,
            // a fetch response's bytes: zero-copy (sendfile) without TLS, copied and encrypted with it
            send_byte: send_byte_ns.unwrap_or(network_byte_ns) * 1e-9,
            follower_batch: cost("follower_batch_us")? * 1e-6, follower_byte: cost("follower_byte_ns")? * 1e-9,
        };
        let times = produce.borrow(py).times.clone_ref(py);
        let mut produce_times = Vec::new();
        for part in ["RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs",
                     "TotalTimeMs"] {
            produce_times.push(times.bind(py).get_item(part)?.extract()?);
        }
        let spec_value = |name: &str| -> PyResult<f64> { spec.getattr(name)?.extract() };
        Ok(BrokerServer {
            engine, id, threads, nic_in, half_rtt: rtt / 2.0, costs,
            disk_bandwidth: spec_value("disk_bandwidth")?, dirty_cache: spec_value("dirty_cache")?,
            disk_backlog: 0.0, disk_time: 0.0, busy: 0, fetchers_busy: 0,
            io_threads: spec.getattr("num_io_threads")?.extract()?,
            queue_limit: spec.getattr("queued_max_requests")?.extract()?,
            queue: VecDeque::new(), blocked: VecDeque::new(), queue_max: 0, queue_changed: 0.0,
            connections: 0, processors, produce_times, request_log,
            fetch_wait: spec_value("replica_fetch_wait_max_ms")? / 1e3, fetch_max: spec_value("replica_fetch_max_bytes")?,
            parked: VecDeque::new(), sweep_at: None, produce, fetch, quotas: ProduceQuotas::new(quotas)?,
        })
    }

    /// The acceptor hands a new connection to a processor, round-robin: its channel.
    fn connect(&mut self, py: Python<'_>, client_id: &str) -> PyResult<Py<Channel>> {
        self.connections += 1;
        Py::new(py, Channel::new(py, (self.connections - 1) % self.processors, client_id))
    }

    /// Bytes of `request` leave the client at `at`; returns when the broker has them all.
    fn receive(slf: &Bound<'_, Self>, request: &Bound<'_, Request>, at: f64) -> PyResult<f64> {
        slf.borrow_mut().receive_request(slf.py(), slf, request, at)
    }

    /// A request done (its client's handler says so for a consumer's or a coordinator's): its response.
    fn respond(slf: &Bound<'_, Self>, request: &Bound<'_, Request>, now: f64) -> PyResult<()> {
        slf.borrow_mut().respond_to(slf.py(), slf, request, now)
    }

    /// Threads of this broker runnable now: busy handlers, fetchers and network processors.
    fn runnable(&self, py: Python<'_>, now: f64) -> f64 {
        (self.threads_busy() + self.threads.borrow(py).processors_runnable(py, now)) as f64
    }

    /// Seconds of throttle handed back with produce responses.
    #[getter]
    fn produce_throttle_s(&self) -> f64 {
        self.quotas.throttle_s
    }

    /// Requests waiting in the channel now (queued and blocked).
    #[getter]
    fn waiting(&self) -> usize {
        self.queue.len() + self.blocked.len()
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.engine)?;
        visit.call(&self.threads)?;
        visit.call(&self.nic_in)?;
        for request in self.queue.iter().chain(self.blocked.iter()).chain(self.parked.iter().map(|(_, r)| r)) {
            visit.call(request)?;
        }
        for times in &self.produce_times {
            visit.call(times)?;
        }
        visit.call(&self.request_log)?;
        visit.call(&self.produce)?;
        visit.call(&self.fetch)
    }

    fn __clear__(&mut self) {
        self.queue.clear();
        self.blocked.clear();
        self.parked.clear();
    }
}

/// `client_id` as the request log and the metrics key it.
pub(crate) fn client_id<'py>(py: Python<'py>, request: &Request) -> Bound<'py, PyString> {
    request.channel.borrow(py).client_id.bind(py).clone()
}

