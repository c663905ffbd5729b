package quietload.trace;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Records a producer's append process: each {@code send()} (its time, thread, partition when the
 * record names one, key and value sizes) and each acknowledgement (time, partition, serialized
 * sizes, failed or not), into one file per JVM (see {@link Recorder}). Nothing is changed: the
 * record goes on as it came.
 *
 * <p>Producer properties (Spark's Kafka sink: {@code kafka.}-prefixed options):
 * {@code interceptor.classes=quietload.trace.AppendTraceInterceptor},
 * {@code quietload.trace.dir} (a local directory, or a Hadoop file system URI such as
 * {@code s3://bucket/traces/}; default: the environment's QUIETLOAD_TRACE_DIR, else java.io.tmpdir),
 * {@code quietload.trace.max.events} (default 20,000,000 per JVM; beyond, events are counted, not kept).
 */
public class AppendTraceInterceptor<K, V> implements ProducerInterceptor<K, V> {
    private int producer;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get("quietload.trace.dir");
        Object max = configs.get("quietload.trace.max.events");
        Object clientId = configs.get("client.id");
        producer = Recorder.JVM.register(clientId == null ? "" : clientId.toString(),
                dir == null ? null : dir.toString(), max == null ? 0 : Long.parseLong(max.toString().trim()));
    }

    @Override
    public ProducerRecord<K, V> onSend(ProducerRecord<K, V> record) {
        Integer partition = record.partition();
        Recorder.JVM.event(Recorder.SEND, producer, partition == null ? -1 : partition, size(record.key()),
                size(record.value()));
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        Recorder.JVM.event(exception == null ? Recorder.ACK : Recorder.ERROR, producer,
                metadata == null ? -1 : metadata.partition(),
                metadata == null ? -1 : metadata.serializedKeySize(),
                metadata == null ? -1 : metadata.serializedValueSize());
    }

    @Override
    public void close() {
        Recorder.JVM.write();
    }

    /** The JVM's trace file written now (as at a producer's close); its path or URI, null if it could not be written. */
    public static String writeTrace() {
        return Recorder.JVM.write();
    }

    /** Bytes of a byte[] (Spark's sink), characters of a String, -1 for none, -2 for another type. */
    static int size(Object value) {
        if (value == null) return -1;
        if (value instanceof byte[] bytes) return bytes.length;
        if (value instanceof CharSequence text) return text.length();
        return -2;
    }
}
