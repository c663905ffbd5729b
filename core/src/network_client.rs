//! A client's connection to a broker as the client keeps it (Kafka's `NetworkClient` and its
//! `InFlightRequests`): the broker's side (`Channel`: muting, the requests waiting to be read,
//! the client.id its requests carry), the requests in flight on it and when the last one was
//! fully written (`canSendMore`), read natively by a producer's accumulator and sender.

use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};

use crate::acks::Acks;
use crate::batch::Batch;
use crate::broker::BrokerServer;
use crate::request::{Channel, Request, PRODUCE};

pub(crate) static CONNECTION_TYPE: crate::TypeCell = crate::TypeCell::new();

#[pyclass(module = "simulator._core")]
pub struct Connection {
    #[pyo3(get)]
    pub(crate) broker: PyObject,
    #[pyo3(get)]
    pub(crate) channel: Py<Channel>,
    #[pyo3(get)]
    pub(crate) client_id: String,
    /// requests sent and not yet answered (acks=0: not yet written)
    #[pyo3(get, set)]
    pub(crate) inflight: i64,
    /// when the last request's last byte left (a throttled response holds it later)
    #[pyo3(get, set)]
    pub(crate) send_done: f64,
}

#[pymethods]
impl Connection {
    #[new]
    fn new(broker: PyObject, channel: Py<Channel>, client_id: String) -> Self {
        Connection { broker, channel, client_id, inflight: 0, send_done: 0.0 }
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.broker)?;
        visit.call(&self.channel)
    }
}

impl Connection {
    /// `client`'s produce request of `batches` (`wire` bytes, `acks`), made `now` and handed to
    /// its broker's `server` in one call: the broker has it all half a round trip after its last
    /// byte left the client (at `at` or later: the connection's bandwidth); the connection
    /// holds it in flight and can take the next one once it is written (`canSendMore`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send<'py>(connection: &Bound<'py, Connection>, server: &Bound<'py, BrokerServer>, client: &Bound<'py, PyAny>,
                            batches: Vec<Py<Batch>>, wire: f64, acks: Acks, now: f64, at: f64, half_rtt: f64)
                            -> PyResult<Bound<'py, Request>> {
        let py = server.py();
        let channel = {
            let mut c = connection.borrow_mut();
            c.inflight += 1;
            c.channel.clone_ref(py)
        };
        let mut request = Request::make(py, PRODUCE, connection.clone().into_any().unbind(), channel, wire,
                                        client.clone().unbind(), None);
        request.batches = PyList::new(py, batches)?.into_any().unbind();
        request.acks = acks;
        request.t_created = now;
        let request = Bound::new(py, request)?;
        let arrived = server.borrow_mut().receive_request(py, server, &request, at + half_rtt)?;
        connection.borrow_mut().send_done = arrived - half_rtt;
        Ok(request)
    }
}
