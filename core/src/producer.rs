//! A producer's accumulator as the application and the run see it (KafkaProducer's send() and
//! flush(), the appending flow's rate), built from what it reads once of the partitions and
//! their leaders.

use std::collections::{BTreeMap, HashMap, VecDeque};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use pyo3::types::{PyList, PyString};

use crate::accumulator::{call, Call, FlushToken, RecordAccumulator};
use crate::batch::Batch;
use crate::compression::CompressionRatios;
use crate::partitioner::Partitioner;
use crate::random::Random;
use crate::network_client::Connection;
use crate::sender::SenderMetrics;

#[pymethods]
impl RecordAccumulator {
    /// One producer's accumulator over `partitions` (their leaders read once), its partitioner
    /// drawing from `rng`; `batch_records` is librdkafka's batch.num.messages (inf: none),
    /// `ratio_at` the codec's compression curve, `delivery_timeout` in seconds (inf: none).
    #[new]
    #[pyo3(signature = (partitions, rng, batch_size, linger, buffer_memory, codec, librdkafka, batch_records, ratio_at,
                        record_bytes, keyed, partitioner, delivery_timeout, on_block_change=None,
                        on_records_acked=None, on_batch_acked=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(py: Python<'_>, partitions: Vec<PyObject>, rng: Py<Random>, batch_size: i64, linger: f64, buffer_memory: f64,
           codec: Bound<'_, PyString>, librdkafka: bool, batch_records: f64, ratio_at: Py<CompressionRatios>, record_bytes: f64,
           keyed: bool, partitioner: &str, delivery_timeout: f64, on_block_change: Option<PyObject>,
           on_records_acked: Option<PyObject>, on_batch_acked: Option<PyObject>) -> PyResult<Self> {
        let mut nodes: Vec<(i64, PyObject)> = Vec::new();
        let mut leader = Vec::new();
        for partition in &partitions {
            let node = partition.bind(py).getattr(intern!(py, "leader"))?;
            if !nodes.iter().any(|(_, n)| n.bind(py).is(&node)) {
                nodes.push((node.getattr(intern!(py, "id"))?.extract()?, node.unbind()));
            }
        }
        nodes.sort_by_key(|(id, _)| *id);
        let mut by_node = vec![Vec::new(); nodes.len()];
        for (slot, partition) in partitions.iter().enumerate() {
            let node = partition.bind(py).getattr(intern!(py, "leader"))?;
            let place = nodes.iter().position(|(_, n)| n.bind(py).is(&node)).expect("a leader seen above");
            leader.push(place);
            by_node[place].push(slot);
        }
        let count = partitions.len();
        let mut accumulator = RecordAccumulator {
            slot_of: partitions.iter().enumerate().map(|(slot, p)| (p.as_ptr() as usize, slot)).collect::<HashMap<_, _>>(),
            partitions,
            drain_index: vec![0; nodes.len()],
            queued_on: vec![0; nodes.len()],
            nodes: nodes.into_iter().map(|(_, n)| n).collect(),
            leader,
            by_node,
            batch_size,
            linger,
            buffer_memory,
            compressed: codec.to_str()? != "none",
            codec: codec.unbind(),
            librdkafka,
            batch_records,
            ratio_at,
            ratio_bytes: -1.0,
            ratio: 1.0,
            record_bytes,
            keyed,
            queues: (0..count).map(|_| VecDeque::new()).collect(),
            nonempty: Vec::new(),
            place: vec![0; count],
            queued: vec![0; count],
            sticky: Partitioner::new(partitioner, count, batch_size),
            rng,
            ratio_estimate: 1.0,
            batch_capacity: 0.0,
            memory_used: 0,
            blocked: false,
            application_threads: 0.0,
            flushes: 0,
            tokens: Vec::new(),
            incomplete: BTreeMap::new(),
            made: 0,
            on_block_change,
            on_records_acked,
            on_batch_acked,
            rate: 0.0,
            last_advance: 0.0,
            appended: 0.0,
            carry: 0.0,
            source_next: f64::INFINITY,
            source_interval: 0.0,
            source_size: 0.0,
            source_keys: Vec::new(),
            blocked_since: 0.0,
            blocked_seconds: 0.0,
            append_seconds: 0.0,
            delivery_timeout,
            expired_records: 0.0,
            expiry_due: delivery_timeout,
            connections: Vec::new(),
            max_in_flight: 0,
            metrics: None,
        };
        accumulator.update_capacity();
        Ok(accumulator)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // a run's producer, sender and partitions hold it and it holds their callbacks and objects
        for object in self.partitions.iter().chain(&self.nodes) {
            visit.call(object)?;
        }
        for connection in &self.connections {
            visit.call(connection)?;
        }
        for object in [&self.on_block_change, &self.on_records_acked, &self.on_batch_acked]
            .into_iter().flatten() {
            visit.call(object)?;
        }
        for token in &self.tokens {
            if let Some(on_done) = &token.on_done {
                visit.call(on_done)?;
            }
        }
        for batch in self.queues.iter().flatten().chain(self.incomplete.values()) {
            visit.call(batch)?;
        }
        if let Some(metrics) = &self.metrics {
            visit.call(metrics)?;
        }
        visit.call(&self.ratio_at)?;
        visit.call(&self.rng)?;
        visit.call(&self.codec)
    }

    fn __clear__(&mut self) {
        self.connections.clear();
        self.queues.iter_mut().for_each(VecDeque::clear);
        self.incomplete.clear();
        self.tokens.clear();
        (self.on_block_change, self.on_records_acked, self.on_batch_acked) = (None, None, None);
        self.metrics = None;
    }

    /// Uncompressed bytes a new batch takes before it is full (whole records).
    #[getter(capacity)]
    fn get_capacity(&self) -> f64 {
        self.batch_capacity
    }

    /// The appending threads' bytes per second from `now` on.
    fn set_rate(slf: &Bound<'_, Self>, rate: f64, now: f64) -> PyResult<()> {
        RecordAccumulator::advance(slf, now)?;
        slf.borrow_mut().rate = rate;
        Ok(())
    }

    /// Records of `size` bytes every `interval` seconds from `first` on, each to one of the
    /// partitions of `keys` drawn from the producer's random (`randrange(len(keys))`; none: no key).
    fn send_at_rate(&mut self, first: f64, interval: f64, size: f64, keys: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        self.source_keys = keys.iter().map(|partition| self.slot(partition)).collect::<PyResult<_>>()?;
        self.source_next = first;
        self.source_interval = interval;
        self.source_size = size;
        Ok(())
    }

    /// Append the records and the flow's bytes due since the last call, batch by batch.
    pub fn advance(slf: &Bound<'_, Self>, now: f64) -> PyResult<()> {
        let py = slf.py();
        {
            let mut accumulator = slf.borrow_mut();
            while accumulator.source_next <= now {
                let at = accumulator.source_next;
                let keys = accumulator.source_keys.len();
                let slot = if keys == 0 {
                    None
                } else {
                    let pick = accumulator.rng.borrow_mut(py).twister.below(keys as u64) as usize;
                    Some(accumulator.source_keys[pick])
                };
                let size = accumulator.source_size;
                accumulator.append_one(py, at, size, slot, at)?;
                accumulator.source_next += accumulator.source_interval;
            }
        }
        let blocked = slf.borrow_mut().append_flow(py, now)?;
        if blocked {
            call(slf, Call::BlockChange)?;
        }
        Ok(())
    }

    /// One neighbour record (its key decided `partition`; None: no key), intended at `intended`.
    #[pyo3(signature = (now, size, partition, intended))]
    fn append_record(&mut self, py: Python<'_>, now: f64, size: f64, partition: Option<Bound<'_, PyAny>>,
                     intended: f64) -> PyResult<()> {
        let slot = partition.map(|p| self.slot(&p)).transpose()?;
        self.append_one(py, now, size, slot, intended)
    }

    /// KafkaProducer.flush(): every batch becomes sendable; `on_done` once all the batches
    /// incomplete now are done. False when there is none (`on_done` was called).
    fn begin_flush(slf: &Bound<'_, Self>, now: f64, on_done: PyObject) -> PyResult<bool> {
        let py = slf.py();
        RecordAccumulator::advance(slf, now)?;
        let pending = {
            let mut accumulator = slf.borrow_mut();
            let token = accumulator.tokens.len();
            let mut pending = 0;
            for batch in accumulator.incomplete.values() {
                batch.borrow_mut(py).waiters.push(token);
                pending += 1;
            }
            accumulator.tokens.push(FlushToken { pending, on_done: (pending != 0).then(|| on_done.clone_ref(py)) });
            if pending != 0 {
                accumulator.flushes += 1;
            }
            pending
        };
        if pending == 0 {
            on_done.call0(py)?;
            return Ok(false);
        }
        Ok(true)
    }

    /// The client's partitioner for records without a key (round-robin, kip480, kip794, librdkafka-sticky).
    #[getter]
    fn partitioner(&self) -> &str {
        &self.sticky.name
    }

    /// The partitioner's partition now (None before the first record), and the bytes it took since.
    #[getter]
    fn sticky_current(&self, py: Python<'_>) -> Option<PyObject> {
        self.sticky.current.map(|p| self.partitions[p].clone_ref(py))
    }

    #[getter]
    fn produced(&self) -> f64 {
        self.sticky.produced
    }

    /// The partition of the next record without a key.
    fn for_record(&mut self, py: Python<'_>, now: f64) -> PyObject {
        let partition = self.partition_for_record(py, now);
        self.partitions[partition].clone_ref(py)
    }

    /// `amount` bytes went to `partition` (the partitioner counts them).
    fn sticky_add(&mut self, py: Python<'_>, partition: Bound<'_, PyAny>, amount: f64, now: f64) -> PyResult<()> {
        let slot = self.slot(&partition)?;
        self.sticky.add(py, slot, amount, now, &self.rng, &self.queued);
        Ok(())
    }

    /// The partition's batch taking appends, made if buffer.memory allows (None: it does not).
    fn open_batch(&mut self, py: Python<'_>, partition: Bound<'_, PyAny>, now: f64) -> PyResult<Option<Py<Batch>>> {
        let slot = self.slot(&partition)?;
        Ok(self.open(py, slot, now)?.map(Bound::unbind))
    }

    /// Batches queued, or the flow appending (acks=0: the sender looks again once a request is written).
    #[getter]
    pub(crate) fn pending(&self) -> bool {
        !self.nonempty.is_empty() || (self.rate > 0.0 && !self.blocked)
    }

    /// The partition's batches, oldest first.
    fn queue<'py>(&self, py: Python<'py>, partition: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let slot = self.slot(&partition)?;
        PyList::new(py, self.queues[slot].iter().map(|b| b.clone_ref(py)))
    }
}

impl RecordAccumulator {
    /// Its sender's connections, in `nodes`' order, each taking `max_in_flight` requests, and
    /// the sender's metrics, which count what each drain sends.
    pub(crate) fn connect(&mut self, connections: Vec<Py<Connection>>, max_in_flight: i64, metrics: Py<SenderMetrics>) {
        self.connections = connections;
        self.max_in_flight = max_in_flight;
        self.metrics = Some(metrics);
    }
}
