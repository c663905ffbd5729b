import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import quietload.trace.AppendTraceInterceptor;

/**
 * What the append-trace interceptor adds to each send(): onSend() on N records of SIZE value bytes, on
 * one thread, timed after as many calls to warm it; prints ns per call. (An acknowledgement costs
 * the same on the sender thread.)
 *
 *   java -cp KAFKA_CLASSPATH:INTERCEPTOR_JAR:. InterceptorCost N SIZE DIR
 */
public class InterceptorCost {
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        byte[] value = new byte[Integer.parseInt(args[1])];
        Map<String, Object> config = new HashMap<>();
        config.put("client.id", "cost");
        config.put("quietload.trace.dir", args[2]);
        config.put("quietload.trace.max.events", Long.toString(4L * n));
        AppendTraceInterceptor<byte[], byte[]> interceptor = new AppendTraceInterceptor<>();
        interceptor.configure(config);
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("t", value);
        for (int i = 0; i < n; i++) interceptor.onSend(record);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) interceptor.onSend(record);
        long took = System.nanoTime() - start;
        long written = System.nanoTime();
        interceptor.close();
        System.out.printf("ns_per_send=%.1f events=%d write_s=%.3f%n", (double) took / n, 2L * n, (System.nanoTime() - written) / 1e9);
    }
}
