package quietload.trace;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JVM's one recorder: each thread appends its events to a buffer of its own (chunks of
 * primitive arrays: no object per event, no lock shared between threads); the file is written
 * when a producer closes and at the JVM's exit, each time whole (a temporary file renamed).
 *
 * <p>The file, {@code quietload-trace-PID.qltrace}, big-endian:
 * <pre>
 *   "QLTRACE1"                      8 bytes
 *   anchor wall clock               long, ns since the epoch, taken with
 *   anchor nanoTime                 long, System.nanoTime() at the same moment
 *   pid                             long
 *   events dropped                  long (beyond quietload.trace.max.events)
 *   producers                       int, then each client.id (modified UTF-8, DataOutput.writeUTF)
 *   threads                         int, then each thread:
 *     thread id                     long
 *     events                        int, then each event:
 *       kind                        byte: 0 send, 1 acknowledged, 2 failed, 3 the thread's name
 *       dt                          unsigned varint, ns since the thread's previous event (the first: since the anchor)
 *       kind 0-2: producer          unsigned varint, index in the producers
 *                 partition         zigzag varint (-1: not known at send(), the partitioner picks it later)
 *                 key, value size   zigzag varints (bytes; -1 none, -2 not bytes or text)
 *       kind 3:   name              modified UTF-8 (a Spark task thread is renamed for every task)
 * </pre>
 */
final class Recorder {
    static final byte SEND = 0, ACK = 1, ERROR = 2, NAME = 3;
    static final Recorder JVM = new Recorder();
    private static final int CHUNK = 8192;
    private static final long DEFAULT_MAX_EVENTS = 20_000_000L;

    private final long anchorWall, anchorNano;
    private final List<String> producers = new ArrayList<>();
    private final List<Buffer> buffers = new ArrayList<>();
    private final ThreadLocal<Buffer> own = ThreadLocal.withInitial(this::newBuffer);
    private final AtomicLong kept = new AtomicLong(), dropped = new AtomicLong();
    private volatile long maxEvents = DEFAULT_MAX_EVENTS;
    private String dir;
    private boolean hooked;

    private Recorder() {
        Instant now = Instant.now();
        anchorNano = System.nanoTime();
        anchorWall = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    synchronized int register(String clientId, String directory, long max) {
        if (directory != null && !directory.isBlank()) dir = directory.trim();
        if (max > 0) maxEvents = max;
        if (!hooked) {
            hooked = true;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> write(), "quietload-trace-writer"));
        }
        producers.add(clientId);
        return producers.size() - 1;
    }

    private synchronized Buffer newBuffer() {
        Buffer buffer = new Buffer(Thread.currentThread().getId());
        buffers.add(buffer);
        return buffer;
    }

    void event(byte kind, int producer, int partition, int key, int value) {
        if (kept.incrementAndGet() > maxEvents) {
            kept.decrementAndGet();
            dropped.incrementAndGet();
            return;
        }
        own.get().add(kind, producer, partition, key, value);
    }

    /** The whole file again, under a temporary name then renamed (or, to a Hadoop file system, written in place). */
    synchronized String write() {
        if (producers.isEmpty()) return null;     // no producer of this loader's: nothing of its to write
        String where = dir != null ? dir : System.getenv("QUIETLOAD_TRACE_DIR");
        if (where == null || where.isBlank()) where = System.getProperty("java.io.tmpdir");
        String name = "quietload-trace-" + ProcessHandle.current().pid() + ".qltrace";
        try {
            if (where.contains("://")) {
                String uri = where.endsWith("/") ? where + name : where + "/" + name;
                try (OutputStream out = HadoopFiles.create(uri)) {
                    writeTo(out);
                }
                return uri;
            }
            Path folder = Path.of(where);
            Files.createDirectories(folder);
            Path partial = folder.resolve(name + ".partial");
            try (OutputStream out = Files.newOutputStream(partial)) {
                writeTo(out);
            }
            Files.move(partial, folder.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return folder.resolve(name).toString();
        } catch (IOException | RuntimeException e) {
            System.err.println("quietload append trace: not written to " + where + ": " + e);
            return null;
        }
    }

    private void writeTo(OutputStream raw) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw, 1 << 16));
        out.writeBytes("QLTRACE1");
        out.writeLong(anchorWall);
        out.writeLong(anchorNano);
        out.writeLong(ProcessHandle.current().pid());
        out.writeLong(dropped.get());
        out.writeInt(producers.size());
        for (String producer : producers) out.writeUTF(producer);
        out.writeInt(buffers.size());
        for (Buffer buffer : buffers) buffer.writeTo(out, anchorNano);
        out.flush();
    }

    /** One thread's events; written by its thread, read under its lock by the writer. */
    private static final class Buffer {
        final long threadId;
        final List<long[]> times = new ArrayList<>();
        final List<int[]> fields = new ArrayList<>();      // kind | producer << 8, partition, key, value
        final Map<Integer, String> names = new HashMap<>(); // event index -> the thread's new name
        String lastName;
        int size;

        Buffer(long threadId) {
            this.threadId = threadId;
        }

        synchronized void add(byte kind, int producer, int partition, int key, int value) {
            long now = System.nanoTime();
            String name = Thread.currentThread().getName();
            if (name != lastName) {      // the same String while the thread keeps its name
                lastName = name;
                names.put(size, name);
            }
            int slot = size % CHUNK;
            if (slot == 0) {
                times.add(new long[CHUNK]);
                fields.add(new int[CHUNK * 4]);
            }
            times.get(size / CHUNK)[slot] = now;
            int[] f = fields.get(size / CHUNK);
            f[slot * 4] = kind | producer << 8;
            f[slot * 4 + 1] = partition;
            f[slot * 4 + 2] = key;
            f[slot * 4 + 3] = value;
            size++;
        }

        synchronized void writeTo(DataOutputStream out, long anchor) throws IOException {
            out.writeLong(threadId);
            out.writeInt(size + names.size());
            long last = anchor;
            for (int i = 0; i < size; i++) {
                long t = times.get(i / CHUNK)[i % CHUNK];
                String name = names.get(i);
                if (name != null) {
                    out.writeByte(NAME);
                    varint(out, Math.max(0, t - last));
                    out.writeUTF(name);
                    last = Math.max(last, t);
                }
                int[] f = fields.get(i / CHUNK);
                int at = (i % CHUNK) * 4;
                out.writeByte(f[at] & 0xff);
                varint(out, Math.max(0, t - last));
                varint(out, f[at] >>> 8);
                zigzag(out, f[at + 1]);
                zigzag(out, f[at + 2]);
                zigzag(out, f[at + 3]);
                last = Math.max(last, t);
            }
        }
    }

    static void varint(DataOutputStream out, long value) throws IOException {
        while ((value & ~0x7FL) != 0) {
            out.writeByte((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.writeByte((int) value);
    }

    static void zigzag(DataOutputStream out, int value) throws IOException {
        varint(out, ((value << 1) ^ (value >> 31)) & 0xFFFFFFFFL);
    }
}
