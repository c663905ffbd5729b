//! A broker's network side, as Kafka's `SocketServer` has it (core/.../network/SocketServer.scala,
//! RequestChannel.scala): the acceptor hands each new connection to a network processor
//! round-robin; the processor reads a request off the connection and hands it to the request
//! channel, then mutes the connection (`Processor.processCompletedReceives`: one request per
//! connection inside the broker); once a handler has put the response in the processor's queue,
//! the processor writes it (`processNewResponses`) and, when its last byte has left
//! (`processCompletedSends`), unmutes the connection, and the next request it holds is read.
//! `RequestChannel.updateRequestMetrics` times the request's parts then: RequestQueue (channel
//! to handler), Local (the handler), Remote (purgatory), ResponseQueue (the response waiting
//! for its processor) and ResponseSend.
//!
//! Each processor is one thread: its CPU work (per request and per byte read or written) runs on
//! the broker's cores and in turn with the other connections it serves (`Shared`).

use pyo3::prelude::*;

use crate::acks::Acks;
use crate::broker::{client_id, BrokerServer};
use crate::engine::Action;
use crate::metrics::RequestTimesDuring;
use crate::request::{Request, FETCH, PRODUCE};
use crate::sender_thread::{Sender, SENDER_TYPE};

const RESPONSE_BYTES: f64 = 64.0;

impl BrokerServer {
    /// Bytes leave the client at `at`; returns when the broker has them all. A muted connection
    /// keeps the request (with its arrival time) until its response is sent.
    pub(crate) fn receive_request(&mut self, py: Python<'_>, server: &Bound<'_, BrokerServer>, request: &Bound<'_, Request>,
                                  at: f64) -> PyResult<f64> {
        let mut req = request.borrow_mut();
        req.read_sizes(py, &self.costs.decompress_byte)?;
        let channel = req.channel.bind(py).clone();
        let size = req.size;
        let (busy, held, processor, free_at) = {
            let c = channel.borrow();
            (c.busy, !c.pending.is_empty(), c.processor, c.free_at)
        };
        if busy || held {
            let arrived = self.nic_in.borrow_mut(py).take(py, at, size, channel.as_any());
            req.t_received = arrived;
            drop(req);
            channel.borrow_mut().pending.push_back(request.clone().unbind());
            return Ok(arrived);
        }
        // read at once, once the connection is free
        channel.borrow_mut().busy = true;
        let cpu = self.costs.network_request + size * self.costs.network_byte;
        let (arrived, start, done) = self.threads.borrow(py).receive(py, processor, at, size, channel.as_any(), free_at, cpu,
                                                                      self.threads_busy())?;
        req.t_arrive = start;
        req.t_received = arrived;
        drop(req);
        self.engine.borrow_mut(py).push(done, Action::Enqueue(server.clone().unbind(), request.clone().unbind()));
        Ok(arrived)
    }

    /// A request the processor held, read from `start`.
    fn read(&mut self, py: Python<'_>, server: &Bound<'_, BrokerServer>, request: Py<Request>, start: f64) -> PyResult<()> {
        let (channel, size) = {
            let mut req = request.borrow_mut(py);
            req.t_arrive = start;
            (req.channel.bind(py).clone(), req.size)
        };
        channel.borrow_mut().busy = true;
        let processor = channel.borrow().processor;
        let cpu = self.costs.network_request + size * self.costs.network_byte;
        // on the broker's cores (a processor with no work in hand sleeps in select(): it wakes
        // for this one), then in turn with the processor's other connections
        let done = self.threads.borrow(py).work(py, processor, start, cpu, self.threads_busy(), channel.as_any())?;
        self.engine.borrow_mut(py).push(done, Action::Enqueue(server.clone().unbind(), request));
        Ok(())
    }

    /// The response queued for the connection's processor at `now`: written, the connection
    /// unmuted (after a quota's throttle), its next request read, the client told.
    pub(crate) fn respond_to(&mut self, py: Python<'_>, server: &Bound<'_, BrokerServer>, request: &Bound<'_, Request>,
                             now: f64) -> PyResult<()> {
        let mut req = request.borrow_mut();
        req.t_complete = now;
        let channel = req.channel.bind(py).clone();
        let processor = channel.borrow().processor;
        let size = RESPONSE_BYTES + req.data;
        let cpu = self.costs.network_request + req.data * self.costs.send_byte;
        let produce = req.api == PRODUCE;
        // a follower's fetch response enters the follower's NIC as it leaves this one's
        let fetcher = if req.api == FETCH && req.handler.is_none() { req.fetcher.as_ref().map(|f| f.clone_ref(py)) } else { None };
        let follower_nic = match &fetcher {
            Some(fetcher) => Some(fetcher.borrow(py).follower.borrow(py).nic_in.bind(py).clone()),
            None => None,
        };
        // written by the connection's processor, out through the NIC(s); a produce response waits
        // from when the processor's earlier work for the connection is done (begin)
        let (begin, sent, delivered) = self.threads.borrow(py).respond(py, processor, now, cpu, self.threads_busy(),
                                                                       channel.as_any(), size, produce,
                                                                       follower_nic.as_ref())?;
        if produce {
            self.record_produce_times(py, &req, begin, delivered)?;
            let network_s = self.costs.network_request + req.size * self.costs.network_byte + cpu;
            self.quotas.throttle(py, &mut req, now, network_s)?;
        }
        let free_at = sent + req.throttle;     // KIP-219: muted while throttled
        let answered = !produce || req.acks != Acks::Zero;
        let client = req.client.bind(py).clone();
        drop(req);
        let waiting = {
            let mut c = channel.borrow_mut();
            c.busy = false;
            c.free_at = free_at;
            c.pending.pop_front()
        };
        if let Some(waiting) = waiting {
            let received = waiting.borrow(py).t_received;
            self.read(py, server, waiting, if received > free_at { received } else { free_at })?;
        }
        if answered {
            let at = delivered + self.half_rtt;
            let action = match fetcher {
                Some(fetcher) => Action::Fetched(fetcher, request.clone().unbind()),
                // a producer's sender hears natively; another client (a consumer, a coordinator) by its response_at
                None => match crate::cast::<Sender>(&client, &SENDER_TYPE) {
                    Ok(sender) => Action::SenderResponse(sender.clone().unbind(), request.clone().unbind()),
                    Err(_) => Action::Call(channel.borrow_mut().response_at(&client)?, request.clone().into_any().unbind()),
                },
            };
            self.engine.borrow_mut(py).push(at, action);
        }
        Ok(())
    }

    fn record_produce_times(&self, py: Python<'_>, request: &Request, response_begin: f64, delivered: f64) -> PyResult<()> {
        let times = &self.produce_times;
        times[0].borrow_mut(py).push(request.t_start - request.t_enqueue);
        times[1].borrow_mut(py).push(request.t_local - request.t_start);
        times[2].borrow_mut(py).push(request.t_complete - request.t_local);
        times[3].borrow_mut(py).push(response_begin - request.t_complete);
        times[4].borrow_mut(py).push(delivered - response_begin);
        times[5].borrow_mut(py).push(delivered - request.t_arrive);
        if let Some(rows) = self.request_log.bind(py).get_item(client_id(py, request))? {
            rows.downcast::<RequestTimesDuring>()?.borrow().record(py, [
                request.t_arrive, request.t_local - request.t_start, request.t_complete - request.t_local,
                delivered - request.t_arrive]);
        }
        Ok(())
    }
}
