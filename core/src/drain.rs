//! What a producer's sender asks of its accumulator, one call a step: `drain_ready` appends what
//! is due, fails the batches `delivery.timeout.ms` old, finds the leaders with a sendable batch
//! whose connection can take a request (`ready`, NetworkClient.ready), drains each into produce
//! requests, counts what they send and says when to look again; `next_send` after the requests
//! were written; `read` the responses of a run (handleProduceResponse, completeBatch: the
//! connections, the batches' callbacks and flushes, buffer.memory back).

use pyo3::prelude::*;

use crate::accumulator::{call, Call, RecordAccumulator};
use crate::batch::{request_wire, Batch, BATCH_TYPE, PARTITION_HEADER, REQUEST_HEADER};
use crate::network_client::{Connection, CONNECTION_TYPE};
use crate::request::Request;

/// A drained produce request: its leader's place in the accumulator's `nodes`, its batches, its bytes.
pub type Drained = (usize, Vec<Py<Batch>>, f64);

impl RecordAccumulator {
    /// The flow has appended less than one record to `batch`: send() has not returned yet, so
    /// there is nothing to drain (unless a flush or a full buffer.memory must take it). Records
    /// appended one by one (neighbours') are always whole.
    fn part_record(&self, batch: &Batch) -> bool {
        !batch.full && batch.bytes < self.record_bytes - 1e-6 && !(self.flushes != 0 || self.blocked)
    }

    /// Full, lingered long enough, memory exhausted or a flush running; and one whole record.
    fn sendable(&self, py: Python<'_>, partition: usize, now: f64) -> bool {
        let queue = &self.queues[partition];
        let head = queue[0].borrow(py);
        if queue.len() == 1 && self.part_record(&head) {
            return false;
        }
        head.full || queue.len() > 1 || now - head.created >= self.linger - 1e-9 || self.flushes > 0 || self.blocked
    }

    /// When the head batch holds one whole record: a drain never sends part of one.
    fn whole_record_at(&self, partition: usize, head: &Batch, now: f64) -> f64 {
        if !self.part_record(head) {
            return now;
        }
        let growth = if self.rate <= 0.0 || self.blocked {
            0.0
        } else if self.keyed {
            self.rate / self.partitions.len() as f64
        } else if self.sticky.current == Some(partition) {
            self.rate
        } else {
            0.0
        };
        if growth > 0.0 { now + (self.record_bytes - head.bytes) / growth } else { f64::INFINITY }
    }

    /// The leaders with a sendable batch, and when a batch that is not sendable yet will be
    /// (lingered, full, or holding one whole record) or the flow fills the sticky one.
    fn ready(&self, py: Python<'_>, now: f64) -> (Vec<bool>, f64) {
        let mut ready = vec![false; self.nodes.len()];
        let mut next_check = f64::INFINITY;
        let flowing = self.rate > 0.0 && !self.blocked;
        for &partition in &self.nonempty {
            if self.sendable(py, partition, now) {
                ready[self.leader[partition]] = true;
                continue;
            }
            let head = self.queues[partition][0].borrow(py);
            next_check = next_check.min((head.created + self.linger).max(self.whole_record_at(partition, &head, now)));
            if flowing && !self.keyed && self.sticky.current == Some(partition) {
                next_check = next_check.min(now + (self.capacity() - head.bytes) / self.rate);
            }
        }
        (ready, next_check)
    }

    /// A drain takes whole records only: the flow's record in progress stays behind (a flush or
    /// a full buffer.memory takes what there is). Returns the bytes left behind.
    fn trim(&self, batch: &mut Batch) -> f64 {
        if self.rate <= 0.0 || self.flushes != 0 || self.blocked {
            return 0.0;
        }
        let whole = (batch.bytes / self.record_bytes + 1e-9).floor() * self.record_bytes;
        let rest = batch.bytes - whole;
        if rest < 1e-6 || whole <= 0.0 {
            return 0.0;
        }
        batch.bytes = whole;
        batch.records = whole / self.record_bytes;
        rest
    }

    /// drainBatchesForOneNode: the head batch of every partition `node` leads, from the partition
    /// after the last drain's first, into one request of at most `max_size` bytes. librdkafka: one
    /// partition per request, each when its own batch is sendable, at most `room` requests.
    fn drain(&mut self, py: Python<'_>, node: usize, now: f64, max_size: f64, room: i64) -> PyResult<Vec<Vec<Py<Batch>>>> {
        let count = self.by_node[node].len();
        let start = self.drain_index[node];
        self.drain_index[node] = (start + 1) % count;
        let mut out = Vec::new();
        if self.librdkafka {
            for i in 0..count {
                let partition = self.by_node[node][(start + i) % count];
                if (out.len() as i64) < room && !self.queues[partition].is_empty() && self.sendable(py, partition, now) {
                    out.push(vec![self.take(py, partition, now)?]);
                }
            }
            return Ok(out);
        }
        let mut taken = Vec::new();
        let mut size = REQUEST_HEADER as f64;
        for i in 0..count {
            let partition = self.by_node[node][(start + i) % count];
            let Some(head) = self.queues[partition].front() else { continue };
            let head = head.bind(py).clone();   // let go of as a Bound: no deferred decref
            if self.part_record(&head.borrow()) {
                continue;
            }
            let mut rest = 0.0;
            if !head.borrow().full {
                rest = self.trim(&mut head.borrow_mut());
                self.close(py, head.as_unbound(), now)?;
            }
            let wire = head.borrow().wire;
            if !taken.is_empty() && size + wire + PARTITION_HEADER as f64 > max_size {
                if rest > 0.0 {
                    // the batch stays for the next request: what the trim took off goes back
                    let mut batch = head.borrow_mut();
                    batch.full = false;
                    batch.bytes += rest;
                    batch.records += rest / self.record_bytes;
                }
                break;
            }
            taken.push(self.take(py, partition, now)?);
            size += wire + PARTITION_HEADER as f64;
            if rest > 0.0 {
                // the record send() is still appending goes where the next one does
                self.carry += rest;
                self.appended -= rest;
                self.sticky.taken_back(partition, rest);
            }
        }
        if !taken.is_empty() {
            out.push(taken);
        }
        Ok(out)
    }

    /// The leader's connection: its requests in flight, and when its last request is written.
    fn connection(&self, py: Python<'_>, node: usize) -> PyResult<(i64, f64)> {
        let connection = self.connections[node].borrow(py);
        Ok((connection.inflight, connection.send_done))
    }

    /// When the appending flow next creates a batch a connection could take: send() wakes the
    /// sender then (KafkaProducer.doSend: `sender.wakeup()` on a new batch).
    fn next_batch(&self, py: Python<'_>, now: f64) -> PyResult<f64> {
        if self.rate <= 0.0 || self.blocked {
            return Ok(f64::INFINITY);
        }
        if self.keyed {
            // every partition gets records: an idle node with room gets one soon
            for node in 0..self.nodes.len() {
                if self.connection(py, node)?.0 < self.max_in_flight && self.queued_on[node] == 0 {
                    return Ok(now + self.partitions.len() as f64 * self.record_bytes / self.rate);
                }
            }
            return Ok(f64::INFINITY);
        }
        match self.sticky.current {
            Some(target) if !self.queues[target].is_empty() => Ok(f64::INFINITY),
            Some(target) if self.connection(py, self.leader[target])?.0 >= self.max_in_flight => Ok(f64::INFINITY),
            _ => Ok(now + self.record_bytes / self.rate),
        }
    }
}

/// delivery.timeout.ms (expiredBatches and getExpiredInflightBatches): each batch (oldest first)
/// made that long ago fails (failBatch), a queued one with its memory back; its records expire.
fn expire(slf: &Bound<'_, RecordAccumulator>, now: f64) -> PyResult<()> {
    let py = slf.py();
    let due: Vec<Py<Batch>> = {
        let accumulator = slf.borrow();
        let timeout = accumulator.delivery_timeout;
        accumulator.incomplete.values().take_while(|b| now - b.borrow(py).created >= timeout)
            .filter(|b| !b.borrow(py).expired).map(|b| b.clone_ref(py)).collect()
    };
    for batch in &due {
        let waiters = {
            let mut accumulator = slf.borrow_mut();
            let slot = batch.borrow(py).slot;
            if accumulator.queues[slot].front().is_some_and(|head| head.is(batch)) {
                accumulator.take(py, slot, now)?;
                accumulator.deallocate(py, &batch.borrow(py))?;
                batch.borrow(py).waiters.clone()
            } else {
                batch.borrow_mut(py).expired = true;
                Vec::new()
            }
        };
        flushed(slf, &waiters)?;
        slf.borrow_mut().expired_records += batch.borrow(py).records;
    }
    if !due.is_empty() && slf.borrow_mut().release(now) {
        call(slf, Call::BlockChange)?;
    }
    let mut accumulator = slf.borrow_mut();
    let oldest = accumulator.incomplete.values().next().map_or(now, |b| b.borrow(py).created);
    accumulator.expiry_due = oldest.min(now) + accumulator.delivery_timeout - 1e-9;
    Ok(())
}

/// The flushes waiting for a batch that is done: each that waited for it last is done.
fn flushed(slf: &Bound<'_, RecordAccumulator>, waiters: &[usize]) -> PyResult<()> {
    for &token in waiters {
        let done = slf.borrow_mut().flushed(token);
        if let Some(done) = done {
            call(slf, done)?;
        }
    }
    Ok(())
}

impl RecordAccumulator {
    /// A sender's run at `now`: the produce requests of every ready leader whose connection can
    /// take one, each (its leader's place in `nodes`, its batches, its bytes), and when to look again.
    pub fn drain_ready(slf: &Bound<'_, Self>, now: f64, max_size: f64) -> PyResult<(Vec<Drained>, f64)> {
        let py = slf.py();
        RecordAccumulator::advance(slf, now)?;
        if now >= slf.borrow().expiry_due {
            expire(slf, now)?;
        }
        let mut accumulator = slf.borrow_mut();
        let (ready, mut next_check) = accumulator.ready(py, now);
        let mut nodes = Vec::new();
        for (node, _) in ready.iter().enumerate().filter(|(_, ready)| **ready) {
            let (inflight, send_done) = accumulator.connection(py, node)?;
            if inflight < accumulator.max_in_flight {
                // else a response will wake the sender
                if now >= send_done {
                    nodes.push((node, accumulator.max_in_flight - inflight));
                } else {
                    next_check = next_check.min(send_done);
                }
            }
        }
        next_check = next_check.min(accumulator.next_batch(py, now)?);
        let mut drained = Vec::new();
        for (node, room) in nodes {
            for batches in accumulator.drain(py, node, now, max_size, room)? {
                drained.push((node, batches));
            }
        }
        if let Some(metrics) = &accumulator.metrics {
            let batches: Vec<&[Py<Batch>]> = drained.iter().map(|(_, batches)| batches.as_slice()).collect();
            metrics.borrow_mut(py).count_sent(py, now, &batches);
        }
        let requests = drained.into_iter().map(|(node, batches)| {
            let wire = request_wire(py, &batches);
            (node, batches, wire)
        }).collect();
        if accumulator.source_next < f64::INFINITY {
            next_check = next_check.min(accumulator.source_next + accumulator.linger);
        }
        Ok((requests, next_check))
    }

    /// After a drain's requests were written: the earliest time a connection with room could
    /// take more data, or `next_check`.
    pub fn next_send(&self, py: Python<'_>, mut next_check: f64) -> PyResult<f64> {
        let flowing = self.rate > 0.0 && !self.blocked;
        let target = if self.keyed { None } else { self.sticky.current.map(|p| self.leader[p]) };
        for node in 0..self.nodes.len() {
            let (inflight, send_done) = self.connection(py, node)?;
            if inflight >= self.max_in_flight {
                continue;
            }
            if (flowing && target.map_or(true, |t| t == node)) || self.queued_on[node] != 0 {
                next_check = next_check.min(send_done);
            }
        }
        Ok(next_check)
    }

    /// handleProduceResponse for the `responses` a run reads at `done` (`read`: the first one's
    /// request latency was counted as the run began, the others' are counted here), or for an
    /// acks=0 request written: each one's connection takes requests again (after its throttle),
    /// then its batches complete.
    pub fn read<'py>(slf: &Bound<'py, Self>, responses: &[Bound<'py, Request>], now: f64, done: f64, read: bool)
                -> PyResult<()> {
        let py = slf.py();
        let metrics = slf.borrow().metrics.as_ref().map(|m| m.bind(py).clone());
        let metrics = metrics.ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("no sender connected"))?;
        if read {
            for response in responses.iter().skip(1) {
                metrics.borrow().count_latency(py, now - response.borrow().t_created);
            }
        }
        for response in responses {
            let (connection, throttle, batches) = {
                let response = response.borrow();
                (response.connection.bind(py).clone(), response.throttle, response.batches.bind(py).clone())
            };
            {
                let mut connection = crate::cast::<Connection>(&connection, &CONNECTION_TYPE)?.borrow_mut();
                connection.inflight -= 1;
                if throttle > 0.0 {
                    // NetworkClient: nothing goes to a throttled broker
                    let until = now + throttle;
                    connection.send_done = if until > connection.send_done { until } else { connection.send_done };
                    metrics.borrow_mut().count_throttle(throttle);
                }
            }
            RecordAccumulator::complete(slf, &batches, now, done)?;
        }
        Ok(())
    }

    /// completeBatch for a response's batches read at `done`: each batch's memory back and its
    /// callbacks (neighbours' records, the flow's batch, flushes); then a send() blocked on
    /// buffer.memory goes on if a batch fits.
    pub fn complete(slf: &Bound<'_, Self>, batches: &Bound<'_, PyAny>, now: f64, done: f64) -> PyResult<()> {
        let py = slf.py();
        for batch in batches.try_iter()? {
            let batch = batch?;
            let batch = crate::cast::<Batch>(&batch, &BATCH_TYPE)?;
            let (records_acked, batch_acked) = {
                let mut accumulator = slf.borrow_mut();
                accumulator.deallocate(py, &batch.borrow())?;
                let acked = |c: &Option<PyObject>| c.as_ref().map(|c| c.bind(py).clone());
                (acked(&accumulator.on_records_acked), acked(&accumulator.on_batch_acked))
            };
            let (intended, waiters) = {
                let batch = batch.borrow();
                (batch.intended.as_ref().filter(|i| !i.bind(py).is_empty()).map(|i| i.bind(py).clone()), batch.waiters.clone())
            };
            if let Some(intended) = intended {
                if let Some(acked) = records_acked {
                    acked.call1((intended, done))?;
                }
            } else if let Some(acked) = batch_acked {
                let (created, closed_at, records) = {
                    let batch = batch.borrow();
                    (batch.created, batch.closed_at, batch.records)
                };
                acked.call1((created, closed_at, records, done))?;
            }
            flushed(slf, &waiters)?;
        }
        if slf.borrow_mut().release(now) {
            call(slf, Call::BlockChange)?;
        }
        Ok(())
    }
}
