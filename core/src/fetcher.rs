//! A follower's replica fetcher threads, as Kafka's `ReplicaFetcherThread` has them: each pulls
//! the partitions it is given from one leader, appends what comes back on its own thread (on the
//! follower's cores), and fetches again. Its response and its append's end are events of the
//! event core (`Engine`), run here without calling Python.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::broker::BrokerServer;
use crate::engine::{Action, Engine};
use crate::request::{Channel, Partition, Request, FETCH};

#[pyclass(module = "simulator._core")]
pub struct Fetcher {
    engine: Py<Engine>,
    /// the follower's server and the leader's
    pub(crate) follower: Py<BrokerServer>,
    leader: Py<BrokerServer>,
    /// its connection to the leader (the client's side, and the leader's)
    #[pyo3(get)]
    connection: PyObject,
    channel: Py<Channel>,
    partitions: Vec<Py<Partition>>,
    /// this follower's log end offsets
    #[pyo3(get)]
    leo: Vec<f64>,
    /// bytes it appended
    #[pyo3(get)]
    bytes: f64,
}

impl Fetcher {
    /// Its response arrived (an event): append what came back (on this thread, sharing the
    /// follower's cores), then fetch again.
    pub(crate) fn on_response(fetcher: &Bound<'_, Fetcher>, request: Py<Request>) -> PyResult<()> {
        let py = fetcher.py();
        let mut this = fetcher.borrow_mut();
        let (data, batches) = {
            let req = request.borrow(py);
            (req.data, req.fetched_batches)
        };
        let follower = this.follower.bind(py).clone();
        let mut broker = follower.borrow_mut();
        let now = broker.now(py);
        let cpu = batches * broker.costs.follower_batch + data * broker.costs.follower_byte;
        let stall = broker.disk_append(now, data);
        let took = broker.threads.borrow(py).fetched(py, now, cpu, stall, broker.threads_busy())?;
        broker.fetchers_busy += 1;
        this.bytes += data;
        this.engine.borrow_mut(py).push(now + took, Action::Appended(fetcher.clone().unbind(), request));
        Ok(())
    }

    /// Its append done (an event): its log end offsets moved, the next fetch sent.
    pub(crate) fn appended(fetcher: &Bound<'_, Fetcher>, request: Py<Request>) -> PyResult<()> {
        let py = fetcher.py();
        let request = request.into_bound(py);
        {
            let mut this = fetcher.borrow_mut();
            this.follower.borrow_mut(py).fetchers_busy -= 1;
            let req = request.borrow();
            for (leo, end) in this.leo.iter_mut().zip(&req.ends) {
                if *end > *leo {
                    *leo = *end;
                }
            }
        }
        Fetcher::send(fetcher, Some(request))
    }

    /// Its next fetch, from its log end offsets. The fetch done (`done`) is made the next one when
    /// nothing else holds it (the leader's purgatory lets go of a fetch lazily): one request
    /// object a fetcher rather than one a fetch.
    fn send(fetcher: &Bound<'_, Fetcher>, done: Option<Bound<'_, Request>>) -> PyResult<()> {
        let py = fetcher.py();
        let (request, leader, at) = {
            let this = fetcher.borrow();
            let request = match done {
                Some(request) if request.get_refcnt() == 1 => {
                    request.borrow_mut().renew_fetch(&this.leo);
                    request
                }
                _ => {
                    let mut request = Request::make(py, FETCH, this.connection.clone_ref(py), this.channel.clone_ref(py),
                                                    (100 + 30 * this.partitions.len()) as f64,
                                                    fetcher.clone().into_any().unbind(), None);
                    request.fetcher = Some(fetcher.clone().unbind());
                    request.partitions = this.partitions.iter().map(|p| p.clone_ref(py)).collect();
                    request.offsets = this.leo.clone();
                    Bound::new(py, request)?
                }
            };
            let at = this.engine.borrow(py).now + this.follower.borrow(py).half_rtt;
            (request, this.leader.bind(py).clone(), at)
        };
        let mut server = leader.borrow_mut();
        server.receive_request(py, &leader, &request, at)?;
        Ok(())
    }
}

#[pymethods]
impl Fetcher {
    /// A replica fetcher thread of `broker` pulling `partitions` from `leader` (the model's brokers).
    #[new]
    fn new(py: Python<'_>, engine: Py<Engine>, broker: &Bound<'_, PyAny>, leader: &Bound<'_, PyAny>,
           partitions: Vec<Py<Partition>>) -> PyResult<Self> {
        let id: i64 = broker.getattr(intern!(py, "id"))?.extract()?;
        let connection = leader.call_method1(intern!(py, "connect"), (format!("broker-{id}-fetcher"),))?;
        let channel = connection.getattr(intern!(py, "channel"))?.extract()?;
        Ok(Fetcher { engine, follower: broker.getattr(intern!(py, "server"))?.extract()?,
                     leader: leader.getattr(intern!(py, "server"))?.extract()?, connection: connection.unbind(), channel,
                     leo: vec![0.0; partitions.len()], partitions, bytes: 0.0 })
    }

    /// Its first fetch.
    #[pyo3(signature = (_argument = None))]
    fn start(slf: &Bound<'_, Self>, _argument: Option<PyObject>) -> PyResult<()> {
        Fetcher::send(slf, None)
    }

    #[getter]
    fn partitions<'py>(&self, py: Python<'py>) -> Vec<Py<Partition>> {
        self.partitions.iter().map(|p| p.clone_ref(py)).collect()
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.engine)?;
        visit.call(&self.follower)?;
        visit.call(&self.leader)?;
        visit.call(&self.connection)?;
        visit.call(&self.channel)?;
        for partition in &self.partitions {
            visit.call(partition)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.partitions.clear();
    }
}
