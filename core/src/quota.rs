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
    pub(crate) fn new(bound: f64, max_throttle: f64) -> Self {
        RateQuota { bound, max_throttle, samples: Vec::new(), first: -1.0, throttled: 0.0 }
    }

    /// Record a request's usage; return how long its client is throttled (seconds).
    pub(crate) fn record(&mut self, now: f64, value: f64) -> f64 {
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
    pub(crate) fn record_no_throttle(&mut self, now: f64, value: f64) {
        self.add(now, value);
    }
}

/// A broker's client quotas on produce requests, by `client.id` as kafka-configs sets them, and
/// the throttle `KafkaApis.handleProduceRequest` hands back: the larger of the byte-rate and the
/// request-time throttle; the handler thread's time counts at once, the network threads' without
/// throttling.
pub struct ProduceQuotas {
    /// client.id -> (producer_byte_rate, request_percentage), 0 for none
    configs: Vec<(String, f64, f64)>,
    byte_quotas: Vec<(String, RateQuota)>,
    request_quotas: Vec<(String, RateQuota)>,
    /// throttle handed back with produce responses
    pub throttle_s: f64,
}

const PERCENT_PER_SECOND: f64 = 100.0;   // ClientRequestQuotaManager.NanosToPercentagePerSecond, per second

fn quota<'a>(quotas: &'a mut Vec<(String, RateQuota)>, client_id: &str, bound: f64, max_throttle: f64) -> &'a mut RateQuota {
    let at = match quotas.iter().position(|(id, _)| id == client_id) {
        Some(at) => at,
        None => {
            quotas.push((client_id.to_string(), RateQuota::new(bound, max_throttle)));
            quotas.len() - 1
        }
    };
    &mut quotas[at].1
}

impl ProduceQuotas {
    /// The quotas of a mapping of client.id to `workloads.quota.Quota`.
    pub fn new(quotas: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut configs = Vec::new();
        if !quotas.is_none() {
            for item in quotas.call_method0("items")?.try_iter()? {
                let (client_id, quota): (String, Bound<'_, PyAny>) = item?.extract()?;
                let rate = |name: &str| -> PyResult<f64> { Ok(quota.getattr(name)?.extract::<Option<f64>>()?.unwrap_or(0.0)) };
                configs.push((client_id, rate("producer_byte_rate")?, rate("request_percentage")?));
            }
        }
        Ok(ProduceQuotas { configs, byte_quotas: Vec::new(), request_quotas: Vec::new(), throttle_s: 0.0 })
    }

    /// A produce request's throttle, `network_s` its network threads' time.
    pub fn throttle(&mut self, py: Python<'_>, request: &mut crate::request::Request, now: f64, network_s: f64) -> PyResult<()> {
        let mut throttle = 0.0;
        let client_id = if self.configs.is_empty() { String::new() } else {
            request.channel.borrow(py).client_id.bind(py).to_str()?.to_string()
        };
        if let Some((_, byte_rate, percentage)) = self.configs.iter().find(|(id, _, _)| *id == client_id) {
            let (byte_rate, percentage) = (*byte_rate, *percentage);
            if byte_rate != 0.0 {
                throttle = quota(&mut self.byte_quotas, &client_id, byte_rate, f64::INFINITY).record(now, request.size);
            }
            if percentage != 0.0 && request.acks != crate::acks::Acks::Zero {
                let quota = quota(&mut self.request_quotas, &client_id, percentage, SAMPLE_SECONDS);
                let used = quota.record(now, (request.t_local - request.t_start) * PERCENT_PER_SECOND);
                if used > throttle {
                    throttle = used;
                }
                quota.record_no_throttle(now, network_s * PERCENT_PER_SECOND);
            }
        }
        request.throttle = throttle;
        self.throttle_s += throttle;
        Ok(())
    }
}
