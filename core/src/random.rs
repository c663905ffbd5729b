//! `random.Random`'s draws, exactly: MT19937 (CPython's `_randommodule.c`) and the methods of
//! `random.py` the model uses, each drawing the same words in the same order. Seeding stays in
//! Python: a generator is made from `random.Random(seed).getstate()`.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;
const VERSION: i64 = 3;

/// The Mersenne Twister's state, as `genrand_uint32` advances it.
#[derive(Clone)]
pub struct Twister {
    state: [u32; N],
    index: usize,
    gauss_next: Option<f64>,
}

impl Twister {
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            let mt = &mut self.state;
            for kk in 0..N {
                let y = (mt[kk] & UPPER_MASK) | (mt[(kk + 1) % N] & LOWER_MASK);
                let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
                mt[kk] = mt[(kk + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: 53 bits from two words.
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (a as f64 * 67108864.0 + b as f64) * (1.0 / 9007199254740992.0)
    }

    /// `getrandbits(k)` for k <= 64.
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return (self.next_u32() >> (32 - k)) as u64;
        }
        let low = self.next_u32() as u64;
        let high = (self.next_u32() >> (64 - k)) as u64;
        low | (high << 32)
    }

    /// `_randbelow_with_getrandbits(n)`, n > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        let mut r = self.getrandbits(k);
        while r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    /// `gauss(mu, sigma)`: Box-Muller, the second value kept for the next call.
    pub fn gauss(&mut self, mu: f64, sigma: f64) -> f64 {
        let z = match self.gauss_next.take() {
            Some(z) => z,
            None => {
                let x2pi = self.random() * std::f64::consts::TAU;
                let g2rad = (-2.0 * (1.0 - self.random()).ln()).sqrt();
                self.gauss_next = Some(x2pi.sin() * g2rad);
                x2pi.cos() * g2rad
            }
        };
        mu + z * sigma
    }
}

/// Python's `//` on integers: the quotient rounded towards minus infinity.
fn floor_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
}

/// A generator drawing as `random.Random` does, from that generator's state.
#[pyclass(module = "simulator._core")]
pub struct Random {
    pub twister: Twister,
}

#[pymethods]
impl Random {
    /// `Random(random.Random(seed).getstate())`.
    #[new]
    fn new(state: &Bound<'_, PyTuple>) -> PyResult<Self> {
        let bad = || PyValueError::new_err("not a random.Random state of version 3");
        if state.len() != 3 || state.get_item(0)?.extract::<i64>()? != VERSION {
            return Err(bad());
        }
        let words: Vec<u64> = state.get_item(1)?.extract()?;
        if words.len() != N + 1 || words[N] > N as u64 || words[..N].iter().any(|w| *w > u32::MAX as u64) {
            return Err(bad());
        }
        let mut twister = Twister { state: [0; N], index: words[N] as usize, gauss_next: state.get_item(2)?.extract()? };
        for (slot, word) in twister.state.iter_mut().zip(&words) {
            *slot = *word as u32;
        }
        Ok(Random { twister })
    }

    /// The generator `random.Random(seed)` would be: Python seeds it (an int, a float's hash, ...).
    #[staticmethod]
    fn seeded(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        let python = py.import("random")?.getattr("Random")?.call1((seed,))?;
        Random::new(python.call_method0("getstate")?.downcast()?)
    }

    /// The state as `random.Random.getstate()` gives it.
    fn getstate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut words: Vec<u64> = self.twister.state.iter().map(|w| *w as u64).collect();
        words.push(self.twister.index as u64);
        (VERSION, PyTuple::new(py, words)?, self.twister.gauss_next).into_pyobject(py)
    }

    fn random(&mut self) -> f64 {
        self.twister.random()
    }

    fn getrandbits(&mut self, k: i64) -> PyResult<u64> {
        if !(0..=64).contains(&k) {
            return Err(PyValueError::new_err("getrandbits: k from 0 to 64"));
        }
        Ok(self.twister.getrandbits(k as u32))
    }

    /// `randrange(start, stop=None, step=1)` for integers that fit 64 bits.
    #[pyo3(signature = (start, stop=None, step=1))]
    fn randrange(&mut self, start: i64, stop: Option<i64>, step: i64) -> PyResult<i64> {
        let (start, stop) = match stop {
            None => (0, start),
            Some(stop) => (start, stop),
        };
        let width = stop - start;
        let count = if step > 0 {
            floor_div(width + step - 1, step)
        } else if step < 0 {
            floor_div(width + step + 1, step)
        } else {
            return Err(PyValueError::new_err("zero step for randrange()"));
        };
        if count <= 0 {
            return Err(PyValueError::new_err(format!("empty range for randrange({start}, {stop}, {step})")));
        }
        Ok(start + step * self.twister.below(count as u64) as i64)
    }

    #[pyo3(signature = (mu=0.0, sigma=1.0))]
    fn gauss(&mut self, mu: f64, sigma: f64) -> f64 {
        self.twister.gauss(mu, sigma)
    }

    /// `shuffle(list)` in place, as `random.shuffle` swaps.
    fn shuffle(&mut self, items: &Bound<'_, PyList>) -> PyResult<()> {
        for i in (1..items.len()).rev() {
            let j = self.twister.below(i as u64 + 1) as usize;
            let (a, b) = (items.get_item(i)?, items.get_item(j)?);
            items.set_item(i, b)?;
            items.set_item(j, a)?;
        }
        Ok(())
    }

    /// `choice(sequence)`.
    fn choice<'py>(&mut self, items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let len = items.len()?;
        if len == 0 {
            return Err(PyIndexError::new_err("Cannot choose from an empty sequence"));
        }
        items.get_item(self.twister.below(len as u64))
    }
}
