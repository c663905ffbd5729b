"""A Prometheus import's counts do not hang on when its scrapes came: a period's records are the
counter's difference between two scrapes, so a series' sum times the period is what the broker
counted, whatever the machine let the scrapes' timing be; shares of time are over the time that passed."""
import pytest

from workloads.imports import prometheus

# (seconds since the first scrape, records counted, process CPU seconds) at each scrape: late, early, late
SCRAPES = [(0.0, 1_000, 10.0), (1.30, 4_000, 10.65), (1.95, 4_500, 10.975), (3.40, 10_000, 11.7)]


@pytest.fixture
def scraped(monkeypatch):
    clock, scrapes = [100.0], iter(SCRAPES)

    def scrape(url, waits):
        at, records, cpu = next(scrapes)
        clock[0] = 100.0 + at
        return {"kafka_server_MessagesInPerSec_total": float(records), "kafka_server_BytesInPerSec_total": 200.0 * records,
                "process_cpu_seconds_total": cpu}
    monkeypatch.setattr(prometheus, "scrape", scrape)
    monkeypatch.setattr(prometheus.time, "time", lambda: clock[0])
    return prometheus.sample(["http://127.0.0.1:1/metrics"], duration=3.0, period=1.0, vcpus=2, sleep=lambda s: None)


def test_a_series_sum_times_the_period_is_the_count_between_the_first_and_last_scrape(scraped):
    assert scraped.brokers["0"]["MessagesInPerSec"] == [3_000.0, 500.0, 5_500.0]
    assert sum(scraped.brokers["0"]["MessagesInPerSec"]) * scraped.period == 9_000
    assert sum(scraped.topic_bytes["(all topics)"]) * scraped.period == 200 * 9_000


def test_a_share_of_time_is_over_the_seconds_that_passed(scraped):
    # 0.65 CPU seconds in 1.30 s, 0.325 in 0.65 s, 0.725 in 1.45 s: half a core each time, 25 % of two
    assert scraped.brokers["0"]["CpuUser"] == pytest.approx([25.0, 25.0, 25.0])
