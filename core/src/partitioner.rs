//! Where a producer's records without a key go: the clients' partitioners (a keyed record's partition
//! is Kafka's `murmur2` of its key, as the default partitioner hashes it).
//!
//! Before 2.4 (`DefaultPartitioner`): round-robin, a counter per topic that starts at a random
//! value, each record the next partition; a flow of records then fills every partition's batch at
//! an equal share of the rate, as keys do (the accumulator spreads it so).
//! KIP-480 (kafka-clients 2.4-3.2, `StickyPartitionCache`): a random partition other than the
//! last each time a record needs a new batch. KIP-794 (3.3 on, `BuiltInPartitioner`): a switch
//! once `batch.size` went to the partition and its queue has no batch still taking records (the
//! sender drained it: `RecordAccumulator.append` checks `allBatchesFull` before and after each
//! append; a batch that cannot take the next record stays open until that record starts the next
//! one, so a queue whose batches filled by appends never qualifies), else once 2 x `batch.size`
//! went to it (KAFKA-14156), to a partition weighted against long queues (adaptive partitioning).
//! librdkafka: a new random partition every `sticky.partitioning.linger.ms`.

use std::collections::VecDeque;

use pyo3::prelude::*;

use crate::batch::Batch;
use crate::random::Random;

const LIBRDKAFKA_STICKY_S: f64 = 0.010; // sticky.partitioning.linger.ms

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    RoundRobin,
    Kip480,
    Kip794,
    Librdkafka,
    Other,
}

/// The sticky partition of one producer, switched as its client does; reads the accumulator's
/// queues (and how many batches each holds) as the client's partitioner does. Partitions are
/// their places in the accumulator's list.
pub struct Partitioner {
    kind: Kind,
    pub name: String,
    count: usize,
    switch_bytes: f64,
    drained_switch_bytes: f64,
    pub current: Option<usize>,
    /// bytes sent to the current partition since the switch (round-robin: the counter)
    pub produced: f64,
    since: f64,
}

impl Partitioner {
    pub fn new(name: &str, count: usize, batch_size: i64) -> Self {
        let kind = match name {
            "round-robin" => Kind::RoundRobin,
            "kip480" => Kind::Kip480,
            "kip794" => Kind::Kip794,
            "librdkafka-sticky" => Kind::Librdkafka,
            _ => Kind::Other,
        };
        let (switch_bytes, drained) =
            if kind == Kind::Kip794 { ((2 * batch_size) as f64, batch_size as f64) } else { (f64::INFINITY, f64::INFINITY) };
        Partitioner {
            kind,
            name: name.to_string(),
            count,
            switch_bytes,
            drained_switch_bytes: drained,
            current: None,
            produced: 0.0,
            since: 0.0,
        }
    }

    /// `DefaultPartitioner` before 2.4: the counter's next partition (`produced` counts records).
    fn next_round_robin(&mut self, py: Python<'_>, rng: &Py<Random>) -> usize {
        if self.current.is_none() {
            self.produced = rng.borrow_mut(py).twister.below(self.count as u64) as f64;
            self.current = Some(0);
        }
        let index = (self.produced as i64).rem_euclid(self.count as i64) as usize;
        self.produced += 1.0;
        index
    }

    pub fn switch(&mut self, py: Python<'_>, now: f64, rng: &Py<Random>, queued: &[i64]) -> usize {
        let count = self.count;
        if self.kind == Kind::Kip794 {
            let (mut shortest, mut longest, mut total) = (queued[0], queued[0], 0i64);
            for &queue in queued {
                total += queue;
                if queue < shortest {
                    shortest = queue;
                } else if queue > longest {
                    longest = queue;
                }
            }
            if shortest != longest {
                // adaptive: weight = longest queue + 1 - queue
                let top = longest + 1;
                let weights = count as i64 * top - total;
                let mut pick = rng.borrow_mut(py).twister.random() * weights as f64;
                for (i, &queue) in queued.iter().enumerate() {
                    pick -= (top - queue) as f64;
                    if pick < 0.0 {
                        return self.stick(i, now);
                    }
                }
            }
            let drawn = rng.borrow_mut(py).twister.below(count as u64) as usize;
            return self.stick(drawn, now);
        }
        if let (Kind::Kip480, Some(previous)) = (self.kind, self.current) {
            if count > 1 {
                let choice = rng.borrow_mut(py).twister.below(count as u64 - 1) as usize; // any other partition
                return self.stick(if choice == previous { count - 1 } else { choice }, now);
            }
        }
        let drawn = rng.borrow_mut(py).twister.below(count as u64) as usize;
        self.stick(drawn, now)
    }

    fn stick(&mut self, partition: usize, now: f64) -> usize {
        self.current = Some(partition);
        self.produced = 0.0;
        self.since = now;
        partition
    }

    /// The partition of the next record: KIP-480 switches when it needs a new batch, KIP-794
    /// when `batch.size` went to the partition and the sender drained its queue
    /// (`partitionChanged`), librdkafka after sticky.partitioning.linger.ms.
    pub fn for_record(&mut self, py: Python<'_>, now: f64, rng: &Py<Random>, queues: &[VecDeque<Py<Batch>>],
                      queued: &[i64]) -> usize {
        if self.kind == Kind::RoundRobin {
            return self.next_round_robin(py, rng);
        }
        let partition = match self.current {
            Some(partition) => partition,
            None => self.switch(py, now, rng, queued),
        };
        let queue = &queues[partition];
        if queue.is_empty() && self.produced >= self.drained_switch_bytes {
            return self.switch(py, now, rng, queued);
        }
        if self.kind == Kind::Kip480 && self.produced > 0.0 {
            let open = queue.back().is_some_and(|batch| !batch.borrow(py).full);
            if !open {
                return self.switch(py, now, rng, queued);
            }
        }
        if self.kind == Kind::Librdkafka && now - self.since >= LIBRDKAFKA_STICKY_S {
            return self.switch(py, now, rng, queued);
        }
        partition
    }

    /// Bytes the current partition takes before KIP-794 switches: up to and including the
    /// record that crosses 2 x batch.size.
    pub fn room(&self, record_bytes: f64) -> f64 {
        if self.switch_bytes == f64::INFINITY {
            return f64::INFINITY;
        }
        ((self.switch_bytes - self.produced) / record_bytes - 1e-9).ceil() * record_bytes
    }

    /// A drain left `amount` bytes of a record still being appended: not produced to `partition`.
    pub fn taken_back(&mut self, partition: usize, amount: f64) {
        if self.current == Some(partition) && self.kind != Kind::RoundRobin {
            self.produced -= amount;
        }
    }

    /// `amount` bytes went to `partition`; KIP-794 switches once they reach its bound.
    pub fn add(&mut self, py: Python<'_>, partition: usize, amount: f64, now: f64, rng: &Py<Random>, queued: &[i64]) {
        if self.current == Some(partition) && self.kind != Kind::RoundRobin {
            self.produced += amount;
            if self.produced >= self.switch_bytes - 1e-6 {
                self.switch(py, now, rng, queued);
            }
        }
    }
}

/// Kafka's Utils.murmur2, as the default partitioner hashes keys.
#[pyfunction]
pub fn murmur2(data: &[u8]) -> u32 {
    const M: u32 = 0x5BD1_E995;
    let length = data.len();
    let mut h: u32 = 0x9747_B28C ^ length as u32;
    for chunk in data.chunks_exact(4) {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = length & !3;
    let rest = length % 4;
    if rest >= 3 {
        h ^= (data[tail + 2] as u32) << 16;
    }
    if rest >= 2 {
        h ^= (data[tail + 1] as u32) << 8;
    }
    if rest >= 1 {
        h ^= data[tail] as u32;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h & 0x7FFF_FFFF
}
