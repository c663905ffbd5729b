package quietload.streaming;

import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.AbstractDeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A record-at-a-time Flink pipeline: every record of the input topic, after a stated amount of
 * work, to the output topic, value unchanged (it carries the upstream producer's intended send
 * time). Runs on Flink's local MiniCluster inside this JVM.
 *
 *   java -cp 'lib/*' quietload.streaming.FlinkPipeline PROPERTIES_FILE
 *
 * The file holds quietload.input, quietload.output, quietload.work.ns, quietload.bootstrap,
 * quietload.group; Flink's own parallelism.default, execution.buffer-timeout (ms),
 * execution.checkpointing.interval (ms, 0: none) and sink.delivery-guarantee; and the
 * connector's Kafka client properties as consumer.<name> and producer.<name>. Prints RUNNING
 * once the job is submitted; stops when its standard input closes, after printing its
 * producers' produce requests.
 */
public final class FlinkPipeline {
    static volatile boolean stopping;

    private FlinkPipeline() {
    }

    static final class Bytes extends AbstractDeserializationSchema<byte[]> {
        Bytes() {
            super(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        }

        @Override
        public byte[] deserialize(byte[] message) {
            return message;
        }
    }

    static final class Same implements SerializationSchema<byte[]> {
        @Override
        public byte[] serialize(byte[] value) {
            return value;
        }
    }

    static Properties prefixed(Properties all, String prefix) {
        Properties out = new Properties();
        for (String name : all.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name.substring(prefix.length()), all.getProperty(name));
            }
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        Properties all = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            all.load(in);
        }
        String bootstrap = all.getProperty("quietload.bootstrap");
        long workNs = Long.parseLong(all.getProperty("quietload.work.ns"));
        long checkpointMs = Long.parseLong(all.getProperty("execution.checkpointing.interval", "0"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(Integer.parseInt(all.getProperty("parallelism.default", "1")));
        env.setBufferTimeout(Long.parseLong(all.getProperty("execution.buffer-timeout", "100")));
        if (checkpointMs > 0) {
            env.enableCheckpointing(checkpointMs);
        }
        KafkaSource<byte[]> source = KafkaSource.<byte[]>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(all.getProperty("quietload.input"))
            .setGroupId(all.getProperty("quietload.group"))
            .setStartingOffsets(OffsetsInitializer.latest())
            .setValueOnlyDeserializer(new Bytes())
            .setProperties(prefixed(all, "consumer."))
            .build();
        DeliveryGuarantee guarantee = DeliveryGuarantee.valueOf(
            all.getProperty("sink.delivery-guarantee", "at-least-once").toUpperCase().replace('-', '_'));
        KafkaSink<byte[]> output = KafkaSink.<byte[]>builder()
            .setBootstrapServers(bootstrap)
            .setKafkaProducerConfig(prefixed(all, "producer."))
            .setRecordSerializer(KafkaRecordSerializationSchema.<byte[]>builder()
                .setTopic(all.getProperty("quietload.output"))
                .setValueSerializationSchema(new Same())
                .build())
            .setDeliveryGuarantee(guarantee)
            .setTransactionalIdPrefix(all.getProperty("quietload.group"))
            .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "input")
           .map(value -> Pipelines.work(value, workNs)).returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
           .sinkTo(output);
        JobClient job = env.executeAsync("quietload-flink-pipeline");
        Thread watch = new Thread(() -> {
            try {
                job.getJobExecutionResult().get();
            } catch (Exception failed) {
                if (!stopping) {
                    failed.printStackTrace();
                    System.err.println("quietload: the Flink job failed");
                    System.exit(1);
                }
            }
        });
        watch.setDaemon(true);
        watch.start();
        System.out.println(Pipelines.RUNNING);
        System.out.flush();
        Pipelines.awaitStop();
        System.out.println(Pipelines.PRODUCE_REQUESTS + Pipelines.produceRequests());
        System.out.flush();
        stopping = true;
        job.cancel().get();
    }
}
