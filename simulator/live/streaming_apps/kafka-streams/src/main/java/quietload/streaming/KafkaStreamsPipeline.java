package quietload.streaming;

import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A record-at-a-time pipeline: every record of the input topic, after a stated amount of work,
 * to the output topic, key and value unchanged (the value carries the upstream producer's
 * intended send time, which the measuring consumer reads).
 *
 *   java -cp 'lib/*' quietload.streaming.KafkaStreamsPipeline PROPERTIES_FILE
 *
 * The file holds Kafka Streams' own properties (application.id, num.stream.threads,
 * commit.interval.ms, processing.guarantee, consumer.fetch.min.bytes, ...) and three of ours:
 * quietload.input, quietload.output, quietload.work.ns (CPU-busy nanoseconds per record).
 * Prints RUNNING once the streams client is RUNNING; stops when its standard input closes,
 * after printing its producers' produce requests.
 */
public final class KafkaStreamsPipeline {

    private KafkaStreamsPipeline() {
    }

    public static void main(String[] args) throws Exception {
        Properties all = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            all.load(in);
        }
        String input = (String) all.remove("quietload.input");
        String output = (String) all.remove("quietload.output");
        long workNs = Long.parseLong((String) all.remove("quietload.work.ns"));
        all.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        all.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
               .mapValues(value -> Pipelines.work(value, workNs))
               .to(output, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        KafkaStreams streams = new KafkaStreams(builder.build(), all);
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) {
                System.err.println("quietload: the streams client failed");
                System.exit(1);
            }
        });
        streams.start();
        if (!running.await(120, TimeUnit.SECONDS)) {
            System.err.println("quietload: the streams client did not reach RUNNING in 120 s");
            System.exit(1);
        }
        System.out.println(Pipelines.RUNNING);
        System.out.flush();
        Pipelines.awaitStop();
        System.out.println(Pipelines.PRODUCE_REQUESTS + Pipelines.produceRequests());
        System.out.flush();
        streams.close(java.time.Duration.ofSeconds(20));
    }
}
