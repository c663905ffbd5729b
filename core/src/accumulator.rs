//! The producer's RecordAccumulator: per-partition deques of batches, filled by the appending
//! threads (a flow of bytes for bulk jobs, one record at a time for neighbours), batch capacity
//! with the JVM-wide compression ratio estimate, `buffer.memory`, and the batches the sender
//! completes (`drain.rs`: what the sender asks of it, and `delivery.timeout.ms`).
//!
//! Bulk appends are a flow of bytes (rate x time) so cost grows with batches, not records; a
//! drain takes whole records only (send() adds a record in one call): what the flow added of the
//! next record stays behind and goes where the next record goes.
//!
//! What it reads of Python objects it does not own (a partition's leader, a broker's id, the
//! compression curve's points) it reads at construction or through one accessor each; its
//! sender's connections (their requests in flight) are the core's. The application's callbacks (a flush done, send() blocked or
//! going on, records acknowledged) run with the accumulator free, where the client runs them.

use std::collections::{BTreeMap, HashMap, VecDeque};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::compression::CompressionRatios;
use crate::network_client::Connection;
use crate::batch::{Batch, BATCH_HEADER, DETERIORATE_STEP, ESTIMATION_FACTOR, IMPROVING_STEP};
use crate::partitioner::Partitioner;
use crate::random::Random;
use crate::sender::SenderMetrics;

/// A flush in progress: the batches it still waits for, and what it calls once they are done
/// (none once called).
pub struct FlushToken {
    pub pending: i64,
    pub on_done: Option<PyObject>,
}

#[pyclass(module = "simulator._core")]
pub struct RecordAccumulator {
    #[pyo3(get)]
    pub partitions: Vec<PyObject>,
    /// the partitions' leaders, by broker id; each partition's, by its place in `nodes`
    #[pyo3(get)]
    pub nodes: Vec<PyObject>,
    pub leader: Vec<usize>,
    pub by_node: Vec<Vec<usize>>,
    pub slot_of: HashMap<usize, usize>, // a partition object's address: its place in `partitions`
    #[pyo3(get)]
    pub batch_size: i64,
    #[pyo3(get)]
    pub linger: f64,
    pub buffer_memory: f64,
    pub codec: Py<PyString>,
    pub compressed: bool,
    pub librdkafka: bool,
    pub batch_records: f64,
    pub ratio_at: Py<CompressionRatios>,
    pub ratio_bytes: f64, // the last batch size asked of ratio_at, and its answer: full batches repeat one size
    pub ratio: f64,
    #[pyo3(get)]
    pub record_bytes: f64,
    /// keys, or round-robin without them (clients before 2.4): a flow fills every partition's batch
    #[pyo3(get)]
    pub keyed: bool,
    pub queues: Vec<VecDeque<Py<Batch>>>,
    pub nonempty: Vec<usize>,  // the partitions with batches
    pub place: Vec<usize>,     // each one's place in `nonempty`
    pub queued: Vec<i64>,      // batches in each partition's deque
    pub queued_on: Vec<i64>,   // partitions with batches, by leader
    pub drain_index: Vec<usize>, // nodesDrainIndex
    pub sticky: Partitioner,
    pub rng: Py<Random>,
    #[pyo3(get)]
    pub ratio_estimate: f64,
    pub batch_capacity: f64,
    #[pyo3(get)]
    pub memory_used: i64,
    /// send() waits for buffer.memory
    #[pyo3(get)]
    pub blocked: bool,
    /// the application's threads appending (send()'s callers): on a core unless send() blocks
    #[pyo3(get, set)]
    pub application_threads: f64,
    pub flushes: i64,
    pub tokens: Vec<FlushToken>,
    pub incomplete: BTreeMap<u64, Py<Batch>>, // in the order they were made
    pub made: u64,
    pub on_block_change: Option<PyObject>,
    pub on_records_acked: Option<PyObject>,
    pub on_batch_acked: Option<PyObject>,
    /// the appending flow (bulk jobs): bytes per second while not blocked
    #[pyo3(get)]
    pub rate: f64,
    pub last_advance: f64,
    #[pyo3(get)]
    pub appended: f64,
    pub carry: f64, // part of a record a drain left behind, appended next
    /// a fixed-rate record source (neighbours): records are appended when the producer next
    /// looks, each with its own intended send time
    #[pyo3(get)]
    pub source_next: f64,
    pub source_interval: f64,
    pub source_size: f64,
    pub source_keys: Vec<usize>, // the keys' partitions, one drawn a record (none: no key)
    pub blocked_since: f64,
    #[pyo3(get)]
    pub blocked_seconds: f64,
    #[pyo3(get)]
    pub append_seconds: f64,
    pub delivery_timeout: f64,
    #[pyo3(get)]
    pub expired_records: f64,
    pub expiry_due: f64, // none expires before it
    /// the sender's connections, by leader, and how many requests each takes
    pub connections: Vec<Py<Connection>>,
    pub max_in_flight: i64,
    /// the sender's metrics, which count what a drain sends
    pub metrics: Option<Py<SenderMetrics>>,
}

/// What the application hears once the accumulator is free again.
pub enum Call {
    BlockChange,
    Flushed(PyObject),
}

impl RecordAccumulator {
    /// The application's threads on a core now.
    pub fn runnable_threads(&self) -> f64 {
        if self.blocked { 0.0 } else { self.application_threads }
    }

    pub fn slot(&self, partition: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.slot_of.get(&(partition.as_ptr() as usize)).copied().ok_or_else(|| {
            pyo3::exceptions::PyKeyError::new_err(format!("{partition}: not a partition of this producer"))
        })
    }

    pub fn capacity(&self) -> f64 {
        self.batch_capacity
    }

    pub fn update_capacity(&mut self) {
        let room = if self.librdkafka {
            (self.batch_size as f64).min(self.batch_records * self.record_bytes)
        } else if !self.compressed {
            (self.batch_size - BATCH_HEADER) as f64
        } else {
            (self.batch_size - BATCH_HEADER) as f64 / (self.ratio_estimate * ESTIMATION_FACTOR)
        };
        self.batch_capacity = self.record_bytes.max((room / self.record_bytes).floor() * self.record_bytes);
    }

    /// The partition's batch taking appends, creating one if memory allows.
    /// (held as a `Bound`: let go of with no deferred decref)
    pub fn open<'py>(&mut self, py: Python<'py>, partition: usize, now: f64) -> PyResult<Option<Bound<'py, Batch>>> {
        if let Some(last) = self.queues[partition].back() {
            if !last.borrow(py).full {
                return Ok(Some(last.bind(py).clone()));
            }
        }
        let memory = if self.librdkafka { 0 } else { self.batch_size };
        if (self.memory_used + memory) as f64 > self.buffer_memory {
            return Ok(None);
        }
        self.new_batch(py, partition, now, memory).map(|batch| Some(batch.into_bound(py)))
    }

    fn new_batch(&mut self, py: Python<'_>, partition: usize, now: f64, memory: i64) -> PyResult<Py<Batch>> {
        self.made += 1;
        let made = Batch::made(self.partitions[partition].clone_ref(py), now, memory,
                               self.codec.clone_ref(py).into_any(), self.made, partition);
        let batch = Py::new(py, made)?;
        self.memory_used += memory;
        self.queues[partition].push_back(batch.clone_ref(py));
        self.queued[partition] += 1;
        if self.queues[partition].len() == 1 {
            self.place[partition] = self.nonempty.len();
            self.nonempty.push(partition);
            self.queued_on[self.leader[partition]] += 1;
        }
        self.incomplete.insert(self.made, batch.clone_ref(py));
        Ok(batch)
    }

    pub fn partition_for_record(&mut self, py: Python<'_>, now: f64) -> usize {
        self.sticky.for_record(py, now, &self.rng, &self.queues, &self.queued)
    }

    fn add_to_sticky(&mut self, py: Python<'_>, partition: usize, amount: f64, now: f64) {
        self.sticky.add(py, partition, amount, now, &self.rng, &self.queued);
    }

    /// The flow's bytes since the last look, batch by batch; true when send() blocked on the way.
    pub fn append_flow(&mut self, py: Python<'_>, now: f64) -> PyResult<bool> {
        let elapsed = now - self.last_advance;
        self.last_advance = now;
        if self.rate <= 0.0 || elapsed <= 0.0 || self.blocked {
            return Ok(false);
        }
        self.append_seconds += elapsed;
        let mut amount = self.rate * elapsed + self.carry;
        self.carry = 0.0;
        let mut cursor = now - elapsed;
        while amount > 1e-3 {
            let taken = if self.keyed { self.append_keyed(py, amount, cursor)? } else { self.append_sticky(py, amount, cursor)? };
            let Some(taken) = taken else {
                self.blocked = true;
                self.blocked_since = cursor;
                return Ok(true);
            };
            amount -= taken;
            cursor += taken / self.rate;
            self.appended += taken;
        }
        Ok(false)
    }

    fn append_sticky(&mut self, py: Python<'_>, amount: f64, now: f64) -> PyResult<Option<f64>> {
        let partition = self.partition_for_record(py, now);
        let Some(batch) = self.open(py, partition, now)? else { return Ok(None) };
        let room = self.capacity() - batch.borrow().bytes;
        let take = amount.min(room).min(self.sticky.room(self.record_bytes));
        {
            let mut open = batch.borrow_mut();
            open.bytes += take;
            open.records += take / self.record_bytes;
        }
        if room - take < 0.5 * self.record_bytes {
            // the next record would not fit
            self.close(py, batch.as_unbound(), now + take / self.rate)?;
        }
        self.add_to_sticky(py, partition, take, now);
        Ok(Some(take))
    }

    /// Keys hash evenly over all partitions: every open batch grows at rate / N.
    fn append_keyed(&mut self, py: Python<'_>, amount: f64, now: f64) -> PyResult<Option<f64>> {
        let count = self.partitions.len();
        let mut step = amount / count as f64;
        for partition in 0..count {
            let Some(batch) = self.open(py, partition, now)? else { return Ok(None) };
            step = step.min(self.capacity() - batch.borrow().bytes);
        }
        for partition in 0..count {
            let batch = self.queues[partition].back().expect("opened above").bind(py).clone();
            let left = {
                let mut open = batch.borrow_mut();
                open.bytes += step;
                open.records += step / self.record_bytes;
                self.capacity() - open.bytes
            };
            if left < 0.5 * self.record_bytes {
                self.close(py, batch.as_unbound(), now + step * count as f64 / self.rate)?;
            }
        }
        Ok(Some(step * count as f64))
    }

    /// One neighbour record (its key decided `partition`; None: no key).
    pub fn append_one(&mut self, py: Python<'_>, now: f64, size: f64, partition: Option<usize>, intended: f64)
                      -> PyResult<()> {
        let partition = match partition {
            Some(partition) => partition,
            None => self.partition_for_record(py, now),
        };
        let mut batch = self.open(py, partition, now)?;
        if let Some(open) = &batch {
            let full = {
                let open = open.borrow();
                open.records != 0.0 && (open.bytes + size > self.capacity() || open.records >= self.batch_records)
            };
            if full {
                self.close(py, open.as_unbound(), now)?;
                batch = self.open(py, partition, now)?;
            }
        }
        let batch = match batch {
            Some(batch) => batch,
            // buffer.memory exhausted: a neighbour's send() would block; keep the record
            None => self.new_batch(py, partition, now, 0)?.into_bound(py),
        };
        {
            let mut open = batch.borrow_mut();
            open.bytes += size;
            open.records += 1.0;
            let list = open.intended.get_or_insert_with(|| PyList::empty(py).unbind());
            list.bind(py).append(intended)?;
        }
        self.add_to_sticky(py, partition, size, now);
        Ok(())
    }

    pub fn close(&mut self, py: Python<'_>, batch: &Py<Batch>, now: f64) -> PyResult<()> {
        let mut batch = batch.borrow_mut(py);
        if batch.full {
            return Ok(());
        }
        batch.full = true;
        batch.closed_at = now;
        if !self.compressed {
            batch.wire = BATCH_HEADER as f64 + batch.bytes;
            return Ok(());
        }
        if batch.bytes != self.ratio_bytes {
            self.ratio_bytes = batch.bytes;
            self.ratio = self.ratio_at.get().at(batch.bytes);
        }
        let ratio = self.ratio;
        batch.wire = BATCH_HEADER as f64 + batch.bytes * ratio;
        if !self.librdkafka {
            // CompressionRatioEstimator.updateEstimation
            if ratio > self.ratio_estimate {
                self.ratio_estimate = (self.ratio_estimate + DETERIORATE_STEP).max(ratio);
            } else if ratio < self.ratio_estimate {
                self.ratio_estimate = (self.ratio_estimate - IMPROVING_STEP).max(ratio);
            }
            self.update_capacity();
        }
        Ok(())
    }

    /// The partition's head batch leaves its deque (for a request, or expired).
    pub fn take(&mut self, py: Python<'_>, partition: usize, now: f64) -> PyResult<Py<Batch>> {
        let batch = self.queues[partition].pop_front().expect("a queued batch");
        self.queued[partition] -= 1;
        self.close(py, &batch, now)?;
        if self.queues[partition].is_empty() {
            // with KIP-480 the next record then needs a new batch, and switches (for_record)
            let place = self.place[partition];
            self.nonempty.swap_remove(place);
            if let Some(&moved) = self.nonempty.get(place) {
                self.place[moved] = place;
            }
            self.queued_on[self.leader[partition]] -= 1;
        }
        Ok(batch)
    }

    /// A batch is done: its buffer.memory is free (send() goes on in `release`).
    pub fn deallocate(&mut self, py: Python<'_>, batch: &Batch) -> PyResult<()> {
        if self.incomplete.remove(&batch.serial).map(|done| done.into_bound(py)).is_none() {
            return Err(pyo3::exceptions::PyKeyError::new_err("not an incomplete batch of this producer"));
        }
        self.memory_used -= batch.memory;
        Ok(())
    }

    /// The flush `token` waited for one more batch: its call once that was the last.
    pub fn flushed(&mut self, token: usize) -> Option<Call> {
        let flush = &mut self.tokens[token];
        flush.pending -= 1;
        if flush.pending != 0 {
            return None;
        }
        self.flushes -= 1;
        flush.on_done.take().map(Call::Flushed)
    }

    /// After completions: a send() blocked on buffer.memory goes on when a batch fits.
    pub fn release(&mut self, now: f64) -> bool {
        if self.blocked && ((self.memory_used + self.batch_size) as f64) <= self.buffer_memory {
            self.blocked = false;
            self.blocked_seconds += now - self.blocked_since;
            self.last_advance = now;
            return true;
        }
        false
    }
}

/// Runs the application's callbacks, the accumulator free.
pub fn call(slf: &Bound<'_, RecordAccumulator>, what: Call) -> PyResult<()> {
    match what {
        Call::BlockChange => {
            let callback = slf.borrow().on_block_change.as_ref().map(|c| c.clone_ref(slf.py()));
            if let Some(callback) = callback {
                callback.call0(slf.py())?;
            }
        }
        Call::Flushed(on_done) => {
            on_done.call0(slf.py())?;
        }
    }
    Ok(())
}
