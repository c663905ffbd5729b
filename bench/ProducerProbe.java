import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * One Java producer fed by an append process the bench controls, records of SIZE value bytes:
 *
 *   RATE or steady:RATE:THREADS   THREADS threads busy between records (as a Spark task parsing CSV
 *                                 and serialising JSON), RATE bytes per second in all
 *   bursts:N:T:THREADS            every T ms each thread sends N records back to back, then sleeps
 *   busy:THREADS                  THREADS threads calling send() as fast as they can
 *
 * for SECONDS, after the same process has run WARM seconds (the property probe.warm.s, default 2)
 * on a producer of its own, so that the JVM has compiled the client's paths. The property
 * probe.keys=K gives each record one of K keys (16 bytes; 0, the default: no key).
 * Prints one line of key=value figures: the measured producer's own metrics, and the Linux
 * scheduler's figures for its sender thread and the appending threads
 * (/proc/self/task/TID/schedstat: time on a core, time runnable but waiting for one, and times it
 * was put on a core).
 *
 *   java -cp KAFKA_CLASSPATH:. ProducerProbe BOOTSTRAP TOPIC SECONDS APPEND SIZE [property=value ...]
 */
public class ProducerProbe {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1];
        double seconds = Double.parseDouble(args[2]);
        String[] append = (args[3].contains(":") ? args[3] : "steady:" + args[3] + ":1").split(":");
        int size = Integer.parseInt(args[4]);
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        double warm = 2.0;
        int keys = 0;
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv[0].equals("probe.warm.s")) warm = Double.parseDouble(kv[1]);
            else if (kv[0].equals("probe.keys")) keys = Integer.parseInt(kv[1]);
            else props.put(kv[0], kv[1]);
        }
        byte[] value = new byte[size];
        new Random(1).nextBytes(value);
        byte[][] keyBytes = new byte[keys][];
        for (int k = 0; k < keys; k++) keyBytes[k] = String.format("card-%011d", k).getBytes(StandardCharsets.US_ASCII);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            run(producer, topic, append, warm, size, value, keyBytes);
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.partitionsFor(topic);   // metadata before the clock starts
            long[] sched0 = schedstat("kafka-producer");
            double[] done = run(producer, topic, append, seconds, size, value, keyBytes);
            long[] sched = schedstat("kafka-producer");
            double requests = metric(producer, "producer-metrics", "request-total");
            double batchBytes = metric(producer, "producer-topic-metrics", "byte-total");
            System.out.printf("records=%.0f requests=%.0f seconds=%.3f request_latency_avg_ms=%.3f sender_run_s=%.4f "
                            + "sender_runqueue_s=%.4f sender_timeslices=%d request_latency_max_ms=%.3f batch_size_avg=%.1f "
                            + "records_per_request_avg=%.2f batches=%.1f request_size_avg=%.1f request_size_max=%.0f "
                            + "appender_run_s=%.4f appender_runqueue_s=%.4f appender_timeslices=%d append_s=%.3f%n",
                    done[0], requests, done[1], metric(producer, "producer-metrics", "request-latency-avg"),
                    (sched[0] - sched0[0]) / 1e9, (sched[1] - sched0[1]) / 1e9, sched[2] - sched0[2],
                    metric(producer, "producer-metrics", "request-latency-max"),
                    metric(producer, "producer-metrics", "batch-size-avg"),
                    metric(producer, "producer-metrics", "records-per-request-avg"),
                    batchBytes / metric(producer, "producer-metrics", "batch-size-avg"),
                    metric(producer, "producer-metrics", "request-size-avg"),
                    metric(producer, "producer-metrics", "request-size-max"),
                    done[3] / 1e9, done[4] / 1e9, (long) done[5], done[2]);
        }
    }

    /** The append process for SECONDS on THREADS threads, then flush(): {records, seconds to the flush's end, seconds
     *  appending, the appending threads' ns on a core, ns waiting for one, times put on one}. */
    static double[] run(KafkaProducer<byte[], byte[]> producer, String topic, String[] append, double seconds, int size,
                        byte[] value, byte[][] keys) throws InterruptedException {
        int threads = Integer.parseInt(append[append.length - 1]);
        long[] sent = new long[threads];
        long[][] sched = new long[threads][];
        long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
        List<Thread> appenders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int me = t;
            Thread thread = new Thread(() -> {
                Random random = new Random(me);
                long count = 0;
                switch (append[0]) {
                    case "steady" -> {
                        long gap = (long) (size / (Double.parseDouble(append[1]) / threads) * 1e9);
                        for (long next = start + gap; next < end; next += gap) {
                            long spins = 0;
                            while (System.nanoTime() < next) spins++;   // the task's own work until the next record
                            sink += spins;
                            send(producer, topic, value, keys, random);
                            count++;
                        }
                    }
                    case "bursts" -> {
                        int n = Integer.parseInt(append[1]);
                        long every = (long) (Double.parseDouble(append[2]) * 1e6);
                        for (long next = start; next < end; next += every) {
                            while (System.nanoTime() < next) LockSupport.parkNanos(next - System.nanoTime());
                            for (int i = 0; i < n; i++) send(producer, topic, value, keys, random);
                            count += n;
                        }
                    }
                    case "busy" -> {
                        while (System.nanoTime() < end) {
                            send(producer, topic, value, keys, random);
                            count++;
                        }
                    }
                    default -> throw new IllegalArgumentException("append process: " + append[0]);
                }
                sent[me] = count;
                try {
                    String[] fields = Files.readString(Path.of("/proc/thread-self/schedstat")).trim().split(" ");
                    sched[me] = new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])};
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, "appender-" + t);
            appenders.add(thread);
            thread.start();
        }
        for (Thread thread : appenders) thread.join();
        double appending = (System.nanoTime() - start) / 1e9;
        producer.flush();
        double[] out = {0, (System.nanoTime() - start) / 1e9, appending, 0, 0, 0};
        for (int t = 0; t < threads; t++) {
            out[0] += sent[t];
            for (int i = 0; i < 3; i++) out[3 + i] += sched[t][i];
        }
        return out;
    }

    static void send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value, byte[][] keys, Random random) {
        byte[] key = keys.length == 0 ? null : keys[random.nextInt(keys.length)];
        producer.send(new ProducerRecord<>(topic, key, value));
    }

    static double metric(KafkaProducer<byte[], byte[]> producer, String group, String name) {
        double sum = 0;
        boolean found = false;
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet())
            if (e.getKey().name().equals(name) && e.getKey().group().equals(group)) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
                found = true;
            }
        return found ? sum : Double.NaN;
    }

    /** Time on a core, time waiting for one and times put on one, summed over the threads whose name starts with PREFIX. */
    static long[] schedstat(String prefix) throws IOException {
        long[] sum = new long[3];
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String[] fields;
                try {
                    if (!Files.readString(task.resolve("comm")).startsWith(prefix.substring(0, Math.min(15, prefix.length()))))
                        continue;
                    fields = Files.readString(task.resolve("schedstat")).trim().split(" ");
                } catch (IOException ended) {   // a thread that ended meanwhile (the JVM's, not the sender)
                    continue;
                }
                for (int i = 0; i < 3; i++) sum[i] += Long.parseLong(fields[i]);
            }
        }
        return sum;
    }
}
