//! A broker's logs and purgatory, as Kafka's `ReplicaManager` and `DelayedOperationPurgatory`
//! have them (core/.../server/ReplicaManager.scala, DelayedProduce.scala, DelayedFetch.scala): a
//! produce request's batches appended to their partitions' logs; with `acks=all` the request
//! waits in the produce purgatory until the followers' fetches have moved every partition's high
//! watermark past its batches (`DelayedProduce`); a follower's fetch reports its log end offsets
//! (which move the high watermark) and returns what the leader's logs hold beyond them, or waits
//! in the fetch purgatory until data arrives or `replica.fetch.wait.max.ms` passes
//! (`DelayedFetch`). A request done here goes to its network processor for the response.
//!
//! A consumed partition's observer is Python: told of an append or of the high watermark, it may
//! answer a consumer's parked fetch through this broker, so no borrow of the server is held then.

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;

use crate::acks::Acks;
use crate::broker::{client_id, BrokerServer};
use crate::engine::Action;
use crate::request::{Partition, Request};

const FETCH_RESPONSE_MAX: f64 = 10.0 * 1024.0 * 1024.0;     // replica.fetch.response.max.bytes

fn smaller(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }    // Python's min(a, b)
}

impl BrokerServer {
    // ---- produce ------------------------------------------------------------------------------
    pub(crate) fn append(server: &Bound<'_, BrokerServer>, request: &Bound<'_, Request>, now: f64) -> PyResult<()> {
        let py = server.py();
        let mut records = 0.0;
        let (wait_for_replicas, count) = {
            let req = request.borrow();
            (req.acks == Acks::All, req.sizes.len())
        };
        for i in 0..count {
            let (wire, partition) = {
                let req = request.borrow();
                let batch = &req.sizes[i];
                records += batch.records;
                (batch.wire, batch.partition.bind(py).clone())
            };
            let observer = {
                let mut p = partition.borrow_mut();
                p.leo += wire;
                p.batches += 1.0;
                p.observer.as_ref().map(|o| o.bind(py).clone())
            };
            if let Some(observer) = observer {
                let batch = request.borrow().batches.bind(py).get_item(i)?;
                observer.call_method1(intern!(py, "appended"), (batch, now))?;
            }
            {
                let mut p = partition.borrow_mut();
                if wait_for_replicas && !p.follower_leo.is_empty() {
                    let leo = p.leo;
                    p.waiting.push_back((leo, request.clone().unbind()));
                    request.borrow_mut().pending += 1;
                }
            }
            // the fetches parked on the partition, in order (completing one parks none): the list
            // keeps its room for the next ones
            loop {
                let fetch = {
                    let mut p = partition.borrow_mut();
                    if p.fetch_waiters.is_empty() {
                        break;
                    }
                    p.fetch_waiters.remove(0).into_bound(py)
                };
                if fetch.borrow().parked {
                    let mut this = server.borrow_mut();
                    this.complete_fetch(py, server, &fetch, now)?;
                }
            }
        }
        let mut this = server.borrow_mut();
        let client = client_id(py, &request.borrow());
        this.produce.borrow_mut(py).record_request(py, now, &client, records)?;
        if request.borrow().pending == 0 {
            this.respond_to(py, server, request, now)?;
        }
        Ok(())
    }

    fn advance_hw(server: &Bound<'_, BrokerServer>, partition: &Bound<'_, Partition>, now: f64) -> PyResult<()> {
        let py = server.py();
        let observer = {
            let mut p = partition.borrow_mut();
            let mut hw = p.leo;
            for follower_leo in &p.follower_leo {
                if *follower_leo < hw {
                    hw = *follower_leo;
                }
            }
            if hw <= p.hw {
                return Ok(());
            }
            p.hw = hw;
            p.observer.as_ref().map(|o| o.bind(py).clone())
        };
        if let Some(observer) = observer {
            observer.call_method1(intern!(py, "visible"), (now,))?;
        }
        let hw = partition.borrow().hw;
        loop {
            let request = {
                let mut p = partition.borrow_mut();
                match p.waiting.front() {
                    Some((end, _)) if *end <= hw => p.waiting.pop_front().map(|(_, r)| r),
                    _ => None,
                }
            };
            let Some(request) = request else { break };
            let pending = {
                let mut req = request.borrow_mut(py);
                req.pending -= 1;
                req.pending
            };
            if pending == 0 {
                server.borrow_mut().respond_to(py, server, request.bind(py), now)?;
            }
        }
        Ok(())
    }

    // ---- fetch (leader side) ----------------------------------------------------------------------
    pub(crate) fn fetchable(&self, py: Python<'_>, request: &Request) -> f64 {
        let mut total = 0.0;
        for (partition, offset) in request.partitions.iter().zip(&request.offsets) {
            total += smaller(partition.borrow(py).leo - offset, self.fetch_max);
        }
        smaller(total, FETCH_RESPONSE_MAX)
    }

    pub(crate) fn fetch(server: &Bound<'_, BrokerServer>, request: &Bound<'_, Request>, now: f64) -> PyResult<()> {
        let py = server.py();
        server.borrow().fetch.borrow_mut(py).record(py, now);
        let (count, follower, fetch_max) = {
            let req = request.borrow();
            let Some(fetcher) = req.fetcher.as_ref() else {
                return Err(PyValueError::new_err("a fetch request with neither a handler nor a replica fetcher"));
            };
            let fetcher = fetcher.borrow(py);
            let follower = fetcher.follower.borrow(py).id;
            (req.partitions.len().min(req.offsets.len()), follower, server.borrow().fetch_max)
        };
        // what the logs hold beyond the follower's offsets (`fetchable`), read as its offsets are
        // taken: nothing appends meanwhile. Each partition held as a Bound while the high
        // watermark moves (it may answer requests).
        let mut total = 0.0;
        for i in 0..count {
            let moved = {
                let req = request.borrow();
                let (partition, offset) = (&req.partitions[i], req.offsets[i]);
                let mut p = partition.borrow_mut(py);
                total += smaller(p.leo - offset, fetch_max);
                let at = p.follower(follower)?;
                if offset > p.follower_leo[at] {
                    p.follower_leo[at] = offset;
                    Some(partition.bind(py).clone())
                } else {
                    None
                }
            };
            if let Some(partition) = moved {
                BrokerServer::advance_hw(server, &partition, now)?;
            }
        }
        let mut this = server.borrow_mut();
        if smaller(total, FETCH_RESPONSE_MAX) > 0.0 {
            return this.complete_fetch(py, server, request, now);
        }
        request.borrow_mut().parked = true;     // DelayedFetch: until data arrives or replica.fetch.wait.max.ms
        for partition in &request.borrow().partitions {
            partition.borrow_mut(py).fetch_waiters.push(request.clone().unbind());
        }
        let deadline = now + this.fetch_wait;
        this.parked.push_back((deadline, request.clone().unbind()));
        if this.sweep_at.is_none() {
            this.sweep_at = Some(deadline);
            this.engine.borrow_mut(py).push(deadline, Action::ExpireFetches(server.clone().unbind()));
        }
        Ok(())
    }

    /// Fetches that waited replica.fetch.wait.max.ms for data return empty (an event).
    pub(crate) fn expire_fetches(server: &Bound<'_, BrokerServer>) -> PyResult<()> {
        let py = server.py();
        let mut this = server.borrow_mut();
        let now = this.now(py);
        let me = server;
        loop {
            let due = match this.parked.front() {
                Some((deadline, _)) => *deadline <= now,
                None => false,
            };
            if !due {
                break;
            }
            let (_, request) = this.parked.pop_front().expect("a parked fetch");
            this.complete_fetch(py, me, &request.into_bound(py), now)?;
        }
        this.sweep_at = None;
        if let Some((deadline, _)) = this.parked.front() {
            let deadline = *deadline;
            this.sweep_at = Some(deadline);
            this.engine.borrow_mut(py).push(deadline, Action::ExpireFetches(me.clone().unbind()));
        }
        Ok(())
    }

    fn complete_fetch(&mut self, py: Python<'_>, server: &Bound<'_, BrokerServer>, request: &Bound<'_, Request>, now: f64)
                      -> PyResult<()> {
        {
            let mut req = request.borrow_mut();
            let req = &mut *req;
            // its wait over, a parked fetch leaves the purgatory and its partitions' waiters at
            // once: what is left there is waiting, and nothing holds a fetch done but its fetcher
            let (waited, done) = (req.parked, request.as_ptr());
            if waited {
                if let Some(at) = self.parked.iter().position(|(_, parked)| parked.as_ptr() == done) {
                    drop(self.parked.remove(at).map(|(_, parked)| parked.into_bound(py)));
                }
            }
            req.parked = false;
            let mut budget = FETCH_RESPONSE_MAX;
            req.ends.clear();
            req.ends.extend_from_slice(&req.offsets);
            let ends = &mut req.ends;
            let mut data = 0.0;
            let mut batches = 0.0;
            for (i, partition) in req.partitions.iter().enumerate() {
                let mut p = partition.borrow_mut(py);
                if waited {
                    if let Some(at) = p.fetch_waiters.iter().position(|waiter| waiter.as_ptr() == done) {
                        drop(p.fetch_waiters.remove(at).into_bound(py));
                    }
                }
                let size = smaller(smaller(p.leo - ends[i], self.fetch_max), budget);
                if size > 0.0 {
                    budget -= size;
                    data += size;
                    batches += size * p.batches / p.leo;
                    ends[i] += size;
                }
            }
            req.data = data;
            req.fetched_batches = batches;
        }
        self.respond_to(py, server, request, now)
    }
}
