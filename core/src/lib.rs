//! quietload's event core: the model's per-event work in Rust, bound to Python as `simulator._core`.
//!
//! Each mechanism has one implementation, here; the Python modules of `simulator.model` build the
//! run and read its figures. Outputs are the same bytes as the Python model's, seed for seed: the
//! draws are MT19937's as `random.Random` makes them, and float arithmetic keeps the source's order.

use pyo3::prelude::*;

mod acks;
mod broker;
mod cpu;
mod engine;
mod fetcher;
mod fsum;
mod histograms;
mod latencies;
mod handlers;
mod metrics;
mod network;
mod quota;
mod random;
mod replica;
mod request;
mod network_client;
mod sender;
mod sender_thread;
mod shared;
mod threads;
mod timeline;

// the producer's accumulator, its batches and partitioner
mod accumulator;
mod batch;
mod compression;
mod drain;
mod partitioner;
mod producer;

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<random::Random>()?;
    module.add_class::<cpu::Scheduler>()?;
    module.add_class::<cpu::Cores>()?;
    module.add_class::<timeline::Timeline>()?;
    module.add_class::<histograms::LatencyHistogram>()?;
    module.add_class::<histograms::SizeHistogram>()?;
    module.add_class::<histograms::BatchSizes>()?;
    module.add_class::<latencies::Latencies>()?;
    module.add_class::<metrics::Mean>()?;
    module.add_class::<metrics::RecordLatencies>()?;
    module.add_class::<metrics::RequestMetrics>()?;
    module.add_class::<metrics::Samples>()?;
    module.add_class::<metrics::SamplesChunks>()?;
    module.add_class::<metrics::RequestTimesDuring>()?;
    module.add_class::<shared::Shared>()?;
    module.add_class::<quota::RateQuota>()?;
    module.add_class::<threads::Threads>()?;
    module.add_class::<sender::SenderMetrics>()?;
    module.add_class::<sender_thread::Sender>()?;
    module.add_class::<network_client::Connection>()?;
    // the event loop and the broker
    module.add_class::<engine::Engine>()?;
    // the producer's accumulator, its batches and partitioner
    module.add_class::<batch::Batch>()?;
    module.add_class::<accumulator::RecordAccumulator>()?;
    module.add_class::<compression::CompressionRatios>()?;
    module.add_function(wrap_pyfunction!(partitioner::murmur2, module)?)?;
    module.add("BATCH_HEADER", batch::BATCH_HEADER)?;
    module.add("REQUEST_HEADER", batch::REQUEST_HEADER)?;
    module.add("PARTITION_HEADER", batch::PARTITION_HEADER)?;
    module.add_class::<engine::NativeAction>()?;
    module.add_class::<request::Partition>()?;
    module.add_class::<request::Channel>()?;
    module.add_class::<request::Request>()?;
    module.add_class::<broker::BrokerServer>()?;
    module.add_class::<fetcher::Fetcher>()?;
    Ok(())
}

/// A pyclass's type object, looked up once (pyo3's `downcast` looks it up on each call).
pub(crate) type TypeCell = pyo3::sync::GILOnceCell<Py<pyo3::types::PyType>>;

/// `object` as a `T` when its type is `T`'s own (kept in `cell`); anything else by `downcast`
/// (a subclass, or the same error).
pub(crate) fn cast<'a, 'py, T: pyo3::PyClass>(object: &'a Bound<'py, PyAny>, cell: &'static TypeCell)
                                        -> Result<&'a Bound<'py, T>, pyo3::DowncastError<'a, 'py>> {
    let py = object.py();
    let own = cell.get_or_init(py, || py.get_type::<T>().unbind());
    if object.get_type_ptr() == own.as_ptr().cast() {
        // SAFETY: the object's type is T's type object
        return Ok(unsafe { object.downcast_unchecked::<T>() });
    }
    object.downcast::<T>()
}
