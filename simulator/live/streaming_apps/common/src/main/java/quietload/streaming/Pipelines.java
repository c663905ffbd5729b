package quietload.streaming;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** What every Java pipeline shares; compiled into each one (their Kafka clients differ). */
final class Pipelines {
    static final String RUNNING = "quietload: pipeline running";
    static final String PRODUCE_REQUESTS = "quietload: produce requests ";
    static volatile long sink;

    private Pipelines() {
    }

    /** Busy for the record's stated cost, as a parse/enrich step is: the thread holds its core. */
    static byte[] work(byte[] value, long nanos) {
        long until = System.nanoTime() + nanos;
        long spin = 0;
        while (System.nanoTime() < until) {
            spin++;
        }
        sink += spin;
        return value;
    }

    /** Produce requests sent by this JVM's Kafka producers (kafka-clients' request-total, from JMX). */
    static long produceRequests() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        double total = 0;
        for (ObjectName name : server.queryNames(new ObjectName("kafka.producer:type=producer-metrics,client-id=*"), null)) {
            total += ((Number) server.getAttribute(name, "request-total")).doubleValue();
        }
        return Math.round(total);
    }

    /** Blocks until the parent closes our standard input (its stop signal). */
    static void awaitStop() throws java.io.IOException {
        while (System.in.read() >= 0) {
            // nothing: input is only a stop signal
        }
    }
}
