//! A broker's request channel and I/O threads, as Kafka's `RequestChannel` and
//! `KafkaRequestHandlerPool` have them (core/.../network/RequestChannel.scala,
//! core/.../server/KafkaRequestHandler.scala): network processors put requests in one queue of at
//! most `queued.max.requests` (a processor whose put finds it full blocks), `num.io.threads`
//! handler threads take them in order and run `KafkaApis`: a produce request's validation and
//! append (per request, batch, record and byte, with decompression), a follower's fetch (per
//! request, partition and byte read), or what a consumer's or a coordinator's request costs. A
//! handler's work runs on the broker's cores; a handler waiting for a core is busy, not idle
//! (`RequestHandlerAvgIdlePercent` counts the time a handler waits on the queue).

use pyo3::intern;
use pyo3::prelude::*;

use crate::broker::BrokerServer;
use crate::engine::Action;
use crate::request::{Request, FETCH, PRODUCE};

impl BrokerServer {
    fn queue_changed_at(&mut self, py: Python<'_>, now: f64) {
        let waiting = self.queue.len() + self.blocked.len();
        if waiting > 0 {
            self.threads.borrow(py).queue_area.borrow_mut(py).add_interval(self.queue_changed, now, waiting as f64);
        }
        self.queue_changed = now;
    }

    /// A network processor hands a request read off its connection to the channel (an event).
    pub(crate) fn enqueue(server: &Bound<'_, BrokerServer>, request: Py<Request>) -> PyResult<()> {
        let py = server.py();
        let mut this = server.borrow_mut();
        let now = this.now(py);
        this.queue_changed_at(py, now);
        request.borrow_mut(py).t_enqueue = now;
        if this.queue.len() >= this.queue_limit {
            this.blocked.push_back(request);   // the network thread blocks until there is room
        } else {
            this.queue.push_back(request);
        }
        if this.queue.len() > this.queue_max {
            this.queue_max = this.queue.len();
        }
        this.dispatch(py, server, now)
    }

    fn dispatch(&mut self, py: Python<'_>, server: &Bound<'_, BrokerServer>, now: f64) -> PyResult<()> {
        while !self.queue.is_empty() && self.busy < self.io_threads {
            let (waiting, since) = (self.queue.len() + self.blocked.len(), self.queue_changed);
            self.queue_changed = now;
            let request = self.queue.pop_front().expect("a request");
            if let Some(blocked) = self.blocked.pop_front() {
                self.queue.push_back(blocked);
            }
            self.busy += 1;
            request.borrow_mut(py).t_start = now;
            let cpu = self.cpu(py, request.bind(py))?;
            let mut stall = 0.0;
            let req = request.borrow(py);
            if req.api == PRODUCE {
                let mut wire = 0.0;
                for batch in &req.sizes {
                    wire += batch.wire;
                }
                stall = self.disk_append(now, wire);
            }
            drop(req);
            let took = self.threads.borrow(py).handle(py, now, cpu, stall, self.busy - 1 + self.fetchers_busy,
                                                      waiting as i64, since)?;
            self.engine.borrow_mut(py).push(now + took, Action::Handled(server.clone().unbind(), request));
        }
        Ok(())
    }

    /// KafkaApis' work for the request, by its key: a produce's append, a follower's fetch;
    /// a request its client handles (a consumer's fetch, a coordinator's call) costs what it says.
    fn cpu(&self, py: Python<'_>, request: &Bound<'_, Request>) -> PyResult<f64> {
        let req = request.borrow();
        if let Some(handler) = &req.handler {
            let handler = handler.bind(py).clone();
            let broker = req.connection.bind(py).getattr(intern!(py, "broker"))?;
            drop(req);
            return handler.call_method1(intern!(py, "handler_cpu"), (request, broker))?.extract();
        }
        let costs = &self.costs;
        if req.api == FETCH {
            return Ok(costs.fetch_request + req.partitions.len() as f64 * costs.fetch_partition
                      + self.fetchable(py, &req) * costs.fetch_byte);
        }
        let mut cpu = costs.produce_request;
        for batch in &req.sizes {
            cpu += costs.produce_batch + batch.records * costs.produce_record + batch.wire * costs.produce_byte
                + batch.bytes * batch.decompress;
        }
        Ok(cpu)
    }

    /// A handler done with a request (an event): its client's handler told, or the replica
    /// manager's append or fetch; then the handler takes the next request.
    pub(crate) fn handled(server: &Bound<'_, BrokerServer>, request: Py<Request>) -> PyResult<()> {
        let py = server.py();
        let request = request.into_bound(py);
        let now = {
            let mut this = server.borrow_mut();
            let now = this.now(py);
            this.busy -= 1;
            now
        };
        let (api, handler) = {
            let mut req = request.borrow_mut();
            req.t_local = now;
            (req.api, req.handler.as_ref().map(|h| h.bind(py).clone()))
        };
        if let Some(handler) = handler {
            if api == FETCH {     // RequestsPerSec{request=Fetch} counts consumers' too
                server.borrow().fetch.borrow_mut(py).record(py, now);
            }
            handler.call_method1(intern!(py, "handled"), (&request, now))?;
        } else if api == PRODUCE {
            BrokerServer::append(server, &request, now)?;
        } else {
            BrokerServer::fetch(server, &request, now)?;
        }
        server.borrow_mut().dispatch(py, server, now)
    }
}
