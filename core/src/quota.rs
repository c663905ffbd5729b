//! A client quota's rate as the broker measures it (Kafka's `Rate` over `quota.window.num`
//! samples of `quota.window.size.seconds`) and the throttle time it hands out
//! (`ClientQuotaManager`; `simulator/model/quota.py` says which quotas use it and how).

use pyo3::prelude::*;

const SAMPLES: i64 = 11; // quota.window.num
const SAMPLE_SECONDS: f64 = 1.0; // quota.window.size.seconds

#[pyclass(module = "simulator._core")]
pub struct RateQuota {
    #[pyo3(get)]
    bound: f64,
    #[pyo3(get)]
    max_throttle: f64,
    // usage by sample (second), in the order the samples were first used: few at a time
    samples: Vec<(i64, f64)>,
    first: f64,
    /// seconds of throttle handed out
    #[pyo3(get)]
    throttled: f64,
}

impl RateQuota {
    /// The rate over the window and the window (a young one padded to SAMPLES - 1 full samples).
    fn add(&mut self, now: f64, value: f64) -> (f64, f64) {
        let second = (now / SAMPLE_SECONDS).floor() as i64;
        match self.samples.iter_mut().find(|(s, _)| *s == second) {
            Some((_, usage)) => *usage += value,
            None => self.samples.push((second, 0.0 + value)),
        }
        let oldest = second - SAMPLES + 1;
        self.samples.retain(|(s, _)| *s >= oldest);
        if self.first < 0.0 {
            self.first = now;
        }
        let earliest = self.samples.iter().map(|(s, _)| *s).min().unwrap_or(second);
        let young = self.first - self.first % SAMPLE_SECONDS;
        let oldest_start = earliest as f64 * SAMPLE_SECONDS;
        let start = if young > oldest_start { young } else { oldest_start };
        let mut window = now - start;
        let full = (window / SAMPLE_SECONDS) as i64;
        if full < SAMPLES - 1 {
            window += (SAMPLES - 1 - full) as f64 * SAMPLE_SECONDS;
        }
        let mut total = 0.0;
        for (_, usage) in &self.samples {
            total += usage;
        }
        (total / window, window)
    }
}

#[pymethods]
impl RateQuota {
    #[new]
    #[pyo3(signature = (bound, max_throttle=f64::INFINITY))]
    fn new(bound: f64, max_throttle: f64) -> Self {
        RateQuota { bound, max_throttle, samples: Vec::new(), first: -1.0, throttled: 0.0 }
    }

    /// Record a request's usage; return how long its client is throttled (seconds).
    fn record(&mut self, now: f64, value: f64) -> f64 {
        let (rate, window) = self.add(now, value);
        if rate <= self.bound {
            return 0.0;
        }
        let wanted = (rate - self.bound) / self.bound * window;
        let throttle = if self.max_throttle < wanted { self.max_throttle } else { wanted };
        self.throttled += throttle;
        throttle
    }

    /// Usage that counts towards the rate without throttling the request that caused it.
    fn record_no_throttle(&mut self, now: f64, value: f64) {
        self.add(now, value);
    }
}
