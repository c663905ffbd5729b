//! A produce request's `acks` (ProduceRequest's `acks`: 0, 1 or -1): a small Copy value each
//! request keeps; Python reads and sets it as the producer's text, "0", "1" or "all".

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Acks {
    /// acks=0: done once written, no response
    Zero,
    /// acks=1: the leader's log
    One,
    /// acks=all (-1): the in-sync replicas'
    All,
}

impl Acks {
    pub(crate) fn name(self) -> &'static str {
        match self { Acks::Zero => "0", Acks::One => "1", Acks::All => "all" }
    }
}

impl<'py> FromPyObject<'py> for Acks {
    fn extract_bound(value: &Bound<'py, PyAny>) -> PyResult<Self> {
        match value.downcast::<PyString>()?.to_str()? {
            "0" => Ok(Acks::Zero),
            "1" => Ok(Acks::One),
            "all" | "-1" => Ok(Acks::All),
            other => Err(PyValueError::new_err(format!("acks: expected 0, 1 or all, got {other:?}"))),
        }
    }
}

impl<'py> IntoPyObject<'py> for Acks {
    type Target = PyString;
    type Output = Bound<'py, PyString>;
    type Error = std::convert::Infallible;

    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        Ok(PyString::intern(py, self.name()))
    }
}
