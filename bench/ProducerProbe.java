import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * One Java producer fed by one thread that is busy between records, as a Spark task is while it
 * parses CSV and serialises JSON: records of SIZE bytes at RATE bytes per second for SECONDS.
 * Prints one line of key=value figures: the producer's own metrics, and the Linux scheduler's
 * figures for its sender thread (/proc/self/task/TID/schedstat: time on a core, time runnable
 * but waiting for one, and times it was put on a core).
 *
 *   java -cp KAFKA_CLASSPATH:. ProducerProbe BOOTSTRAP TOPIC SECONDS RATE SIZE [property=value ...]
 */
public class ProducerProbe {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1];
        double seconds = Double.parseDouble(args[2]), rate = Double.parseDouble(args[3]);
        int size = Integer.parseInt(args[4]);
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            props.put(kv[0], kv[1]);
        }
        byte[] value = new byte[size];
        new Random(1).nextBytes(value);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < 2000; i++) producer.send(new ProducerRecord<>(topic, value));   // warm-up
            producer.flush();
            double requests0 = metric(producer, "request-total");
            long[] sched0 = senderSchedstat();
            long records = (long) (rate * seconds / size), gap = (long) (size / rate * 1e9);
            long start = System.nanoTime(), next = start;
            for (long i = 0; i < records; i++) {
                next += gap;
                long spins = 0;
                while (System.nanoTime() < next) spins++;   // the task's own work until the next record
                sink += spins;
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
            double elapsed = (System.nanoTime() - start) / 1e9;
            double requests = metric(producer, "request-total") - requests0;
            long[] sched = senderSchedstat();
            System.out.printf("records=%d requests=%.0f seconds=%.3f request_latency_avg_ms=%.3f sender_run_s=%.3f "
                            + "sender_runqueue_s=%.3f sender_timeslices=%d request_latency_max_ms=%.3f batch_size_avg=%.1f "
                            + "records_per_request_avg=%.2f%n",
                    records, requests, elapsed, metric(producer, "request-latency-avg"), (sched[0] - sched0[0]) / 1e9,
                    (sched[1] - sched0[1]) / 1e9, sched[2] - sched0[2], metric(producer, "request-latency-max"),
                    metric(producer, "batch-size-avg"), metric(producer, "records-per-request-avg"));
        }
    }

    static double metric(KafkaProducer<byte[], byte[]> producer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet())
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                return ((Number) e.getValue().metricValue()).doubleValue();
        return Double.NaN;
    }

    static long[] senderSchedstat() throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator)
                if (Files.readString(task.resolve("comm")).startsWith("kafka-producer")) {
                    String[] fields = Files.readString(task.resolve("schedstat")).trim().split(" ");
                    return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])};
                }
        }
        throw new IllegalStateException("no kafka-producer-network-thread in /proc/self/task");
    }
}
