//! What passes between clients and brokers: partitions (their logs' offsets), the broker's side
//! of a connection (`Channel`, as Kafka's `KafkaChannel`) and requests.
//!
//! A request is made by its client (a producer's sender, a consumer, a coordinator's call, a
//! follower's fetcher) and read back by it with its response; everything between is the broker's
//! (`broker.rs`). A producer's batches are its accumulator's (`batch.rs`): the broker reads each
//! one's sizes once, borrowing it, when the request reaches it.

use std::collections::VecDeque;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::acks::Acks;
use crate::batch::{Batch, BATCH_TYPE};
use crate::fetcher::Fetcher;

pub const PRODUCE: i64 = 0;
pub const FETCH: i64 = 1;

/// A partition's log as its leader keeps it: offsets in bytes appended, the followers' log end
/// offsets, the produce requests waiting for the high watermark (acks=all) and the followers'
/// fetches parked on it.
pub(crate) static PARTITION_TYPE: crate::TypeCell = crate::TypeCell::new();
#[pyclass(module = "simulator._core")]
pub struct Partition {
    #[pyo3(get)]
    topic: String,
    #[pyo3(get)]
    index: i64,
    #[pyo3(get)]
    leader: PyObject,
    #[pyo3(get)]
    followers: PyObject,
    follower_ids: Vec<i64>,
    /// log end offset, in bytes appended
    #[pyo3(get, set)]
    pub(crate) leo: f64,
    #[pyo3(get)]
    pub(crate) hw: f64,
    pub(crate) follower_leo: Vec<f64>,
    /// (end offset, request) for acks=all
    pub(crate) waiting: VecDeque<(f64, Py<Request>)>,
    pub(crate) fetch_waiters: Vec<Py<Request>>,
    #[pyo3(get)]
    pub(crate) batches: f64,
    /// a consumed partition's log (simulator/model/consumer.py): told of appends and of the high watermark
    #[pyo3(get, set)]
    pub(crate) observer: Option<PyObject>,
}

impl Partition {
    /// This follower's place among the partition's followers.
    pub(crate) fn follower(&self, broker: i64) -> PyResult<usize> {
        self.follower_ids.iter().position(|id| *id == broker)
            .ok_or_else(|| PyValueError::new_err(format!("broker {broker} does not follow {}-{}", self.topic, self.index)))
    }
}

#[pymethods]
impl Partition {
    #[new]
    fn new(topic: String, index: i64, leader: PyObject, followers: &Bound<'_, PyList>) -> PyResult<Self> {
        let mut follower_ids = Vec::new();
        for follower in followers.iter() {
            follower_ids.push(follower.getattr(intern!(followers.py(), "id"))?.extract()?);
        }
        let count = follower_ids.len();
        Ok(Partition { topic, index, leader, followers: followers.clone().into_any().unbind(), follower_ids,
                       leo: 0.0, hw: 0.0, follower_leo: vec![0.0; count], waiting: VecDeque::new(),
                       fetch_waiters: Vec::new(), batches: 0.0, observer: None })
    }

    /// Each follower's log end offset, by broker id.
    #[getter]
    fn follower_leo<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let leos = PyDict::new(py);
        for (id, leo) in self.follower_ids.iter().zip(&self.follower_leo) {
            leos.set_item(id, leo)?;
        }
        Ok(leos)
    }

    /// The leader's log end offset less its slowest follower's (None without followers).
    #[getter]
    fn replica_lag(&self) -> Option<f64> {
        let (first, rest) = self.follower_leo.split_first()?;
        let slowest = rest.iter().fold(*first, |slowest, leo| if *leo < slowest { *leo } else { slowest });
        Some(self.leo - slowest)
    }

    fn __repr__(&self) -> String {
        format!("{}-{}", self.topic, self.index)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.leader)?;
        visit.call(&self.followers)?;
        for (_, request) in &self.waiting {
            visit.call(request)?;
        }
        for request in &self.fetch_waiters {
            visit.call(request)?;
        }
        if let Some(observer) = &self.observer {
            visit.call(observer)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.waiting.clear();
        self.fetch_waiters.clear();
        self.observer = None;
    }
}

/// The broker's side of a client's connection: its network processor, the client.id its requests
/// carry, whether it is muted (a request inside the broker), when its last response was sent and
/// the requests waiting to be read.
#[pyclass(module = "simulator._core")]
pub struct Channel {
    #[pyo3(get)]
    pub(crate) processor: usize,
    #[pyo3(get)]
    pub(crate) client_id: Py<pyo3::types::PyString>,
    #[pyo3(get)]
    pub(crate) busy: bool,
    #[pyo3(get)]
    pub(crate) free_at: f64,
    pub(crate) pending: VecDeque<Py<Request>>,
    /// the client's `response_at` (a bound method) and the client it is of, found at its first response
    responses: Option<(usize, PyObject)>,
}

impl Channel {
    pub(crate) fn new(py: Python<'_>, processor: usize, client_id: &str) -> Self {
        Channel { processor, client_id: pyo3::types::PyString::new(py, client_id).unbind(), busy: false, free_at: 0.0,
                  pending: VecDeque::new(), responses: None }
    }

    /// `client.response_at`, what a response is sent to: looked up once for the connection's client.
    pub(crate) fn response_at(&mut self, client: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let py = client.py();
        let of = client.as_ptr() as usize;     // the method holds its client: the address stays its own
        if let Some((client, method)) = &self.responses {
            if *client == of {
                return Ok(method.clone_ref(py));
            }
        }
        let method = client.getattr(intern!(py, "response_at"))?.unbind();
        self.responses = Some((of, method.clone_ref(py)));
        Ok(method)
    }
}

#[pymethods]
impl Channel {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for request in &self.pending {
            visit.call(request)?;
        }
        if let Some((_, method)) = &self.responses {
            visit.call(method)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.pending.clear();
        self.responses = None;
    }
}

/// A produce request's batch as the broker reads it: its bytes on the wire, records,
/// uncompressed bytes, the decompression cost per byte of its codec and its partition.
pub struct BatchSizes {
    pub wire: f64,
    pub records: f64,
    pub bytes: f64,
    pub decompress: f64,
    pub partition: Py<Partition>,
}

#[pyclass(module = "simulator._core")]
pub struct Request {
    #[pyo3(get)]
    pub(crate) api: i64,
    /// the client's connection (what it reads of it: requests in flight, when the last one was sent)
    #[pyo3(get)]
    pub(crate) connection: PyObject,
    pub(crate) channel: Py<Channel>,
    #[pyo3(get)]
    pub(crate) size: f64,
    #[pyo3(get)]
    pub(crate) client: PyObject,
    #[pyo3(get)]
    pub(crate) handler: Option<PyObject>,
    /// a follower's fetch: its replica fetcher
    pub(crate) fetcher: Option<Py<Fetcher>>,
    /// a producer's batches (a consumer's fetch: the logs asked for)
    #[pyo3(get, set)]
    pub(crate) batches: PyObject,
    pub(crate) sizes: Vec<BatchSizes>,
    /// "0", "1" or "all", as the producer's acks
    #[pyo3(get, set)]
    pub(crate) acks: Acks,
    #[pyo3(get)]
    pub(crate) pending: i64,
    // fetch requests: the partitions asked for, the follower's offsets, where the response ends
    pub(crate) partitions: Vec<Py<Partition>>,
    #[pyo3(get, set)]
    pub(crate) offsets: Vec<f64>,
    #[pyo3(get, set)]
    pub(crate) ends: Vec<f64>,
    #[pyo3(get)]
    pub(crate) fetched_batches: f64,
    /// quota throttle time handed back with the response
    #[pyo3(get)]
    pub(crate) throttle: f64,
    #[pyo3(get, set)]
    pub(crate) parked: bool,
    #[pyo3(get, set)]
    pub(crate) data: f64,
    #[pyo3(get, set)]
    pub(crate) t_created: f64,
    #[pyo3(get, set)]
    pub(crate) t_received: f64,
    #[pyo3(get, set)]
    pub(crate) t_arrive: f64,
    #[pyo3(get, set)]
    pub(crate) t_enqueue: f64,
    #[pyo3(get, set)]
    pub(crate) t_start: f64,
    #[pyo3(get, set)]
    pub(crate) t_local: f64,
    #[pyo3(get, set)]
    pub(crate) t_complete: f64,
}

impl Request {
    pub(crate) fn make(py: Python<'_>, api: i64, connection: PyObject, channel: Py<Channel>, size: f64, client: PyObject,
                       handler: Option<PyObject>) -> Self {
        Request { api, connection, channel, size, client, handler, fetcher: None, batches: PyTuple::empty(py).into_any().unbind(),
                  sizes: Vec::new(), acks: Acks::One, pending: 0, partitions: Vec::new(), offsets: Vec::new(),
                  ends: Vec::new(), fetched_batches: 0.0, throttle: 0.0, parked: false, data: 0.0, t_created: 0.0,
                  t_received: 0.0, t_arrive: 0.0, t_enqueue: 0.0, t_start: 0.0, t_local: 0.0, t_complete: 0.0 }
    }

    /// A follower's fetch done and read, made its fetcher's next one from `offsets`: as `make`
    /// and the fetcher leave a new one.
    pub(crate) fn renew_fetch(&mut self, offsets: &[f64]) {
        self.offsets.clear();
        self.offsets.extend_from_slice(offsets);
        self.ends.clear();
        self.pending = 0;
        self.fetched_batches = 0.0;
        self.throttle = 0.0;
        self.parked = false;
        self.data = 0.0;
        self.t_created = 0.0;
        self.t_received = 0.0;
        self.t_arrive = 0.0;
        self.t_enqueue = 0.0;
        self.t_start = 0.0;
        self.t_local = 0.0;
        self.t_complete = 0.0;
    }

    /// A produce request's batches' sizes, read once from the producer's batches (borrowed, in
    /// the event core too), each codec's decompression cost per byte found in `decompress_byte`.
    pub(crate) fn read_sizes(&mut self, py: Python<'_>, decompress_byte: &[(Py<PyString>, String, f64)]) -> PyResult<()> {
        if self.api != PRODUCE || !self.sizes.is_empty() {
            return Ok(());
        }
        let batches = self.batches.bind(py).clone();
        match batches.downcast::<PyList>() {
            Ok(list) => {
                self.sizes.reserve_exact(list.len());
                for batch in list.iter() {
                    self.push_sizes(py, &batch, decompress_byte)?;
                }
            }
            Err(_) => {
                for batch in batches.try_iter()? {
                    self.push_sizes(py, &batch?, decompress_byte)?;
                }
            }
        }
        Ok(())
    }

    /// One batch's sizes, its codec's decompression cost found by the codec's name (its text
    /// compared in Rust; anything but a string by Python's equality).
    fn push_sizes(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>, decompress_byte: &[(Py<PyString>, String, f64)])
                  -> PyResult<()> {
        let batch = crate::cast::<Batch>(batch, &BATCH_TYPE)?.borrow();
        let codec = batch.codec.bind(py);
        let found = match codec.downcast::<PyString>().ok().and_then(|name| name.to_str().ok()) {
            Some(name) => decompress_byte.iter().find(|(_, known, _)| known == name),
            None => decompress_byte.iter().find(|(c, _, _)| c.bind(py).as_any().eq(codec).unwrap_or(false)),
        };
        let decompress = match found {
            Some((_, _, seconds)) => *seconds,
            None => return Err(PyKeyError::new_err(batch.codec.clone_ref(py))),
        };
        self.sizes.push(BatchSizes { wire: batch.wire, records: batch.records, bytes: batch.bytes, decompress,
                                     partition: crate::cast::<Partition>(batch.partition.bind(py), &PARTITION_TYPE)?.clone().unbind() });
        Ok(())
    }
}

impl Drop for Request {
    /// Its partitions let go of as `Bound`s: a `Py`'s drop asks whether the GIL is held, which a
    /// request's deallocation always has.
    fn drop(&mut self) {
        // SAFETY: a Request is dropped with the GIL held: in its object's deallocation, or in the
        // core's calls, which all hold it
        let py = unsafe { Python::assume_gil_acquired() };
        for sizes in self.sizes.drain(..) {
            drop(sizes.partition.into_bound(py));
        }
        for partition in self.partitions.drain(..) {
            drop(partition.into_bound(py));
        }
        drop((self.handler.take().map(|h| h.into_bound(py)), self.fetcher.take().map(|f| f.into_bound(py))));
    }
}

#[pymethods]
impl Request {
    #[new]
    #[pyo3(signature = (api, connection, size, client, handler=None))]
    fn new(py: Python<'_>, api: i64, connection: PyObject, size: f64, client: PyObject, handler: Option<PyObject>)
           -> PyResult<Self> {
        let channel = connection.getattr(py, intern!(py, "channel"))?.extract(py)?;
        Ok(Request::make(py, api, connection, channel, size, client, handler))
    }

    /// A producer's request of `batches` on `connection`, `size` bytes on the wire, made at `created`.
    #[staticmethod]
    pub(crate) fn produce(py: Python<'_>, connection: PyObject, size: f64, client: PyObject, batches: PyObject, acks: Acks,
               created: f64) -> PyResult<Self> {
        let mut request = Request::new(py, PRODUCE, connection, size, client, None)?;
        request.batches = batches;
        request.acks = acks;
        request.t_created = created;
        Ok(request)
    }

    #[getter]
    fn partitions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.partitions.iter().map(|p| p.clone_ref(py)))
    }

    #[setter]
    fn set_partitions(&mut self, partitions: Vec<Py<Partition>>) {
        self.partitions = partitions;
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.connection)?;
        visit.call(&self.channel)?;
        visit.call(&self.client)?;
        if let Some(handler) = &self.handler {
            visit.call(handler)?;
        }
        if let Some(fetcher) = &self.fetcher {
            visit.call(fetcher)?;
        }
        visit.call(&self.batches)?;
        for sizes in &self.sizes {
            visit.call(&sizes.partition)?;
        }
        for partition in &self.partitions {
            visit.call(partition)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.handler = None;
        self.fetcher = None;
        self.sizes.clear();
        self.partitions.clear();
    }
}
