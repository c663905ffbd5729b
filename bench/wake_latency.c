/*
 * How long a thread that wakes waits for a core busy with BUSY other threads: the scheduler's
 * share of a Kafka sender thread's wait on an executor whose task threads keep its cores busy.
 *
 * BUSY threads spin on the core; every PERIOD_US the first of them wakes the "sender" through a
 * pipe (as KafkaProducer.send() wakes the Sender's selector), and the sender works WORK_US,
 * then sleeps in poll() again. Prints the wake-to-run latency over SECONDS.
 *
 *   gcc -O2 -pthread bench/wake_latency.c -o /tmp/wake_latency
 *   for busy in 1 2 3; do taskset -c 1 /tmp/wake_latency 300 80 $busy 4; done
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES 200000
static int pipe_fd[2];
static atomic_int stop, pending;
static _Atomic double written_at;
static double period_us, work_us, latency_us[MAX_SAMPLES];
static int samples;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void spin(double us) {
    double until = now() + us * 1e-6;
    while (now() < until) {}
}

static void *busy(void *first) {
    double next = now();
    while (!stop) {
        spin(10);
        if (first && now() >= next) {
            next += period_us * 1e-6;
            if (!atomic_exchange(&pending, 1)) {
                written_at = now();
                char byte = 1;
                if (write(pipe_fd[1], &byte, 1) != 1) abort();
            }
        }
    }
    return NULL;
}

static void *sender(void *unused) {
    struct pollfd wake = {pipe_fd[0], POLLIN, 0};
    char buffer[64];
    while (!stop) {
        if (poll(&wake, 1, 100) <= 0) continue;
        double woke = now();
        if (read(pipe_fd[0], buffer, sizeof buffer) < 0) abort();
        if (samples < MAX_SAMPLES) latency_us[samples++] = (woke - written_at) * 1e6;
        atomic_store(&pending, 0);
        spin(work_us);
    }
    return unused;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s PERIOD_US WORK_US BUSY SECONDS\n", argv[0]);
        return 2;
    }
    period_us = atof(argv[1]);
    work_us = atof(argv[2]);
    int threads = atoi(argv[3]);
    if (pipe(pipe_fd) || threads < 1 || threads > 16) return 2;
    pthread_t waker, busy_threads[16];
    pthread_create(&waker, NULL, sender, NULL);
    for (int i = 0; i < threads; i++) pthread_create(&busy_threads[i], NULL, busy, i == 0 ? (void *)1 : NULL);
    sleep(atoi(argv[4]));
    stop = 1;
    for (int i = 0; i < threads; i++) pthread_join(busy_threads[i], NULL);
    pthread_join(waker, NULL);
    qsort(latency_us, samples, sizeof(double), by_value);
    double sum = 0;
    for (int i = 0; i < samples; i++) sum += latency_us[i];
    printf("busy=%d wakes=%d wait_us mean=%.0f p50=%.0f p90=%.0f p99=%.0f max=%.0f\n", threads, samples,
           sum / samples, latency_us[samples / 2], latency_us[samples * 9 / 10], latency_us[samples * 99 / 100],
           latency_us[samples - 1]);
    return 0;
}
