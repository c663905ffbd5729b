import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A request stream replayed against one broker: pre-built produce requests written to a socket of their
 * own per stream at a fixed cadence, as a producer's sender writes them, with Kafka's own wire format
 * (kafka-clients' ProduceRequest, v11, acks=1, records of 1 KB values without keys, no compression).
 *
 *   STREAM = NAME:BATCHES:BATCH_BYTES:TOPIC:PARTITIONS:EVERY_MS:IN_FLIGHT
 *
 * Every EVERY_MS the stream writes one request of BATCHES batches (one a partition, the partitions taken
 * round-robin over the topic's PARTITIONS) of BATCH_BYTES of records each; at most IN_FLIGHT requests are
 * outstanding on its connection (max.in.flight.requests.per.connection): a request due while the window is
 * full waits for a response. The streams run WARM seconds first (not counted: the broker's JIT compiles its
 * produce paths), then SECONDS. Per stream it prints one line of key=value figures: requests, their latency
 * from the write's start to the response's last byte read (p50, p90, p99, p999, max, mean, in ms), the lag
 * of writes behind their due time, and the responses that carried an error. Before them, the lines
 * measure-start and measure-end say when the measured part began and when its last response was read.
 *
 *   java -cp KAFKA_CLASSPATH:. BrokerProbe HOST:PORT WARM SECONDS STREAM [STREAM ...]
 */
public class BrokerProbe {
    static final short VERSION = 11;
    static final int VALUE_BYTES = 1000;

    record Stream(String name, int batches, int batchBytes, String topic, int partitions, double everyMs, int inFlight) {
        static Stream parse(String text) {
            String[] f = text.split(":");
            return new Stream(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], Integer.parseInt(f[4]),
                    Double.parseDouble(f[5]), Integer.parseInt(f[6]));
        }
    }

    /** The stream's requests, one per round-robin step over the partitions, framed (size prefix) and ready. */
    static List<byte[]> requests(Stream s) {
        int records = Math.max(1, s.batchBytes / (VALUE_BYTES + 10));
        byte[] value = new byte[Math.min(VALUE_BYTES, s.batchBytes)];
        new Random(1).nextBytes(value);
        List<byte[]> out = new ArrayList<>();
        int steps = Math.max(1, s.partitions / gcd(s.partitions, s.batches));
        for (int step = 0; step < steps; step++) {
            List<ProduceRequestData.PartitionProduceData> parts = new ArrayList<>();
            for (int b = 0; b < s.batches; b++) {
                SimpleRecord[] batch = new SimpleRecord[records];
                Arrays.fill(batch, new SimpleRecord(value));
                parts.add(new ProduceRequestData.PartitionProduceData().setIndex((step * s.batches + b) % s.partitions)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, batch)));
            }
            ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
            topics.add(new ProduceRequestData.TopicProduceData().setName(s.topic).setPartitionData(parts));
            ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
            ProduceRequest request = ProduceRequest.builder(data).build(VERSION);
            ByteBuffer body = request.serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, VERSION, "probe-" + s.name, step));
            byte[] framed = new byte[4 + body.remaining()];
            ByteBuffer.wrap(framed).putInt(body.remaining()).put(body);
            out.add(framed);
        }
        return out;
    }

    static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** One stream on its own connection: a writer at the cadence, a reader timing each response. */
    static final class Runner {
        final Stream stream;
        final List<byte[]> requests;
        final Socket socket;
        final Semaphore window;
        final ArrayBlockingQueue<long[]> sent = new ArrayBlockingQueue<>(1024);   // {write start, due}
        final long[] latency, lag;
        int count, errors;
        volatile long measureFrom;

        Runner(Stream stream, String host, int port, int capacity) throws IOException {
            this.stream = stream;
            this.requests = requests(stream);
            this.socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port));
            this.window = new Semaphore(stream.inFlight);
            this.latency = new long[capacity];
            this.lag = new long[capacity];
        }

        void write(long start, long end) {
            try {
                OutputStream out = socket.getOutputStream();
                long every = (long) (stream.everyMs * 1e6);
                int i = 0;
                for (long due = start; due < end; due += every) {
                    while (System.nanoTime() < due) LockSupport.parkNanos(due - System.nanoTime());
                    window.acquireUninterruptibly();
                    long at = System.nanoTime();
                    sent.put(new long[] {at, due});
                    out.write(requests.get(i++ % requests.size()));
                    out.flush();
                }
                sent.put(new long[] {-1, -1});
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(stream.name + ": " + e, e);
            }
        }

        void read() {
            try {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                short headerVersion = ApiKeys.PRODUCE.responseHeaderVersion(VERSION);
                while (true) {
                    long[] request = sent.take();
                    if (request[0] < 0) return;
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    long done = System.nanoTime();
                    window.release();
                    ByteBuffer buffer = ByteBuffer.wrap(frame);
                    ResponseHeader.parse(buffer, headerVersion);
                    ProduceResponse response = ProduceResponse.parse(new ByteBufferAccessor(buffer), VERSION);
                    boolean failed = response.errorCounts().keySet().stream().anyMatch(e -> e != Errors.NONE);
                    if (request[1] >= measureFrom && count < latency.length) {
                        latency[count] = done - request[0];
                        lag[count] = request[0] - request[1];
                        count++;
                        if (failed) errors++;
                    }
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(stream.name + ": " + e, e);
            }
        }

        String figures(double seconds) {
            long[] l = Arrays.copyOf(latency, count), g = Arrays.copyOf(lag, count);
            Arrays.sort(l);
            Arrays.sort(g);
            double mean = Arrays.stream(l).average().orElse(0) / 1e6;
            return String.format("stream=%s requests=%d per_s=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f "
                            + "mean_ms=%.3f lag_p50_ms=%.3f lag_p99_ms=%.3f errors=%d bytes=%d",
                    stream.name, count, count / seconds, at(l, 0.5), at(l, 0.9), at(l, 0.99), at(l, 0.999),
                    count == 0 ? 0 : l[count - 1] / 1e6, mean, at(g, 0.5), at(g, 0.99), errors, requests.get(0).length);
        }

        static double at(long[] sorted, double q) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
        }
    }

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        double warm = Double.parseDouble(args[1]), seconds = Double.parseDouble(args[2]);
        List<Runner> runners = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            Stream stream = Stream.parse(args[i]);
            int capacity = (int) Math.min(20_000_000, (seconds * 1000 / stream.everyMs) + 16);
            runners.add(new Runner(stream, hostPort[0], Integer.parseInt(hostPort[1]), capacity));
        }
        long start = System.nanoTime() + 50_000_000L;
        long from = start + (long) (warm * 1e9), end = from + (long) (seconds * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (Runner runner : runners) {
            runner.measureFrom = from;
            threads.add(new Thread(() -> runner.write(start, end), runner.stream.name + "-writer"));
            threads.add(new Thread(runner::read, runner.stream.name + "-reader"));
        }
        threads.forEach(Thread::start);
        // the bench scrapes the broker's metrics at these two lines: its figures over exactly the measured part
        while (System.nanoTime() < from) LockSupport.parkNanos(from - System.nanoTime());
        System.out.println("measure-start");
        System.out.flush();
        for (Thread thread : threads) thread.join();
        System.out.println("measure-end");
        System.out.flush();
        for (Runner runner : runners) {
            System.out.println(runner.figures(seconds));
            runner.socket.close();
        }
    }
}
