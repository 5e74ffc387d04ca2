package dev.kwire.oracle;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's Java producer with its default settings (idempotence on, acks=all; since Kafka 3.0)
 * writes to a topic that does not exist yet, and Kafka's Java consumer reads it back; driven by
 * tests/tests/it/java_clients.rs against a kwire-server.
 *
 * <p>Arguments: the bootstrap address, then one or more compression types ({@code none} leaves
 * {@code compression.type} unset, the default; any other value sets it). For each, the producer
 * sends {@link #COUNT} messages to the topic {@code java-default-<codec>}: null keys, null values,
 * both null, empty keys and values, duplicate header keys, null and empty header values, and
 * producer timestamps out of order. The delivered offsets of each partition must run 0..n-1 in
 * the order sent. A consumer without a group ({@code assign}) then reads every partition from the
 * start, and every record must equal what was sent at the offset its send reported: key, value,
 * headers in order, and the producer's timestamp as CreateTime.
 *
 * <p>Output on stdout, one line each: {@code PARTITION <topic> <partition> <count>} for every
 * partition written, then {@code OK <codec> <topic> <count> <ms>}; or {@code FAIL <codec> <why>},
 * the codecs after it are not run, and the exit code is 1. Every wait is bounded (30 s): besides
 * the serializers and the client id, the producer's one setting is {@code max.block.ms}, which
 * bounds the wait for metadata in {@code send()} and changes nothing that is sent.
 */
public final class ProducerRoundTrip {
    static final int COUNT = 240;
    static final Duration DEADLINE = Duration.ofSeconds(30);

    /** One message as sent. */
    record Msg(byte[] key, byte[] value, List<Header> headers, long timestamp) {}

    private ProducerRoundTrip() {}

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: ProducerRoundTrip BOOTSTRAP CODEC...");
            System.exit(2);
        }
        boolean failed = false;
        for (int i = 1; i < args.length; i++) {
            String codec = args[i];
            try {
                long t0 = System.nanoTime();
                String topic = "java-default-" + codec;
                int n = roundTrip(args[0], codec, topic, i);
                System.out.printf("OK %s %s %d %d%n", codec, topic, n, (System.nanoTime() - t0) / 1_000_000);
            } catch (Throwable e) { // every failure is reported, then the next codec runs
                failed = true;
                StringBuilder why = new StringBuilder(String.valueOf(e));
                for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                    why.append(" (caused by ").append(c).append(')');
                }
                System.out.println("FAIL " + codec + " " + why.toString().replace('\n', ' '));
                e.printStackTrace();
            }
            System.out.flush();
            if (failed) {
                break; // the next codecs would most likely fail the same way, each after its deadline
            }
        }
        System.exit(failed ? 1 : 0);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Header h(String key, byte[] value) {
        return new RecordHeader(key, value);
    }

    /** The same eight shapes as server/tests/python/test_producers.py. */
    static List<Msg> messages(int seed) {
        Random rnd = new Random(seed);
        long base = System.currentTimeMillis() - 3_600_000L;
        List<Msg> out = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            long ts = base + 17L * i - (i % 5) * 1000L;
            Msg m;
            switch (i % 8) {
                case 0 -> m = new Msg(null, utf8("null key " + i),
                        List.of(h("dup", utf8("1")), h("dup", utf8("2")), h("dup", utf8("1"))), ts);
                case 1 -> m = new Msg(utf8("tombstone-" + i), null, List.of(h("null-value", null)), ts);
                case 2 -> m = new Msg(new byte[0], new byte[0], List.of(), ts);
                case 3 -> m = new Msg(null, null,
                        List.of(h("a", new byte[0]), h("a", null), h("b", utf8("x")), h("a", utf8("third"))), ts);
                case 4 -> {
                    byte[] key = new byte[256];
                    for (int b = 0; b < 256; b++) {
                        key[b] = (byte) b;
                    }
                    m = new Msg(key, utf8(String.format("%06d", i) + "compressible ".repeat(150)), List.of(), ts);
                }
                case 5 -> {
                    byte[] v = new byte[64 + 512];
                    byte[] r = new byte[64];
                    rnd.nextBytes(r);
                    System.arraycopy(r, 0, v, 0, 64);
                    m = new Msg(utf8("ключ-" + i), v, List.of(h("ü-ß", new byte[] {0, (byte) 0xff})), ts);
                }
                case 6 -> {
                    List<Header> hs = new ArrayList<>();
                    for (int j = 0; j < 6; j++) {
                        hs.add(h("h" + j, utf8(String.valueOf(j).repeat(j))));
                    }
                    m = new Msg(utf8("k"), utf8("v"), hs, ts);
                }
                default -> m = new Msg(null, utf8("{\"i\": " + i + ", \"text\": \"" + "abc".repeat(40) + "\"}"),
                        List.of(h("", utf8("empty key"))), ts);
            }
            out.add(m);
        }
        return out;
    }

    /** Sends, reads back and compares; returns the number of records. */
    static int roundTrip(String bootstrap, String codec, String topic, int seed) throws Exception {
        List<Msg> sent = messages(seed);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "kwire-java-producer-" + codec);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (!codec.equals("none")) {
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        }
        // Bounds how long send() waits for the topic's metadata (default 60 s), so that a server
        // that does not create the topic fails the run sooner; it changes nothing that is sent.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(DEADLINE.toMillis()));
        RecordMetadata[] delivered = new RecordMetadata[sent.size()];
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        try {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (Msg m : sent) {
                Future<RecordMetadata> f =
                        producer.send(new ProducerRecord<>(topic, null, m.timestamp(), m.key(), m.value(), m.headers()));
                if (f.isDone()) {
                    f.get(); // a send that failed at once (no metadata in max.block.ms): stop here
                }
                futures.add(f);
            }
            for (int i = 0; i < futures.size(); i++) {
                delivered[i] = futures.get(i).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            producer.close(Duration.ofSeconds(10));
        }
        // Offsets per partition in send order: 0..n-1.
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        Map<TopicPartition, Map<Long, Integer>> at = new HashMap<>();
        for (int i = 0; i < sent.size(); i++) {
            RecordMetadata md = delivered[i];
            offsets.computeIfAbsent(md.partition(), k -> new ArrayList<>()).add(md.offset());
            at.computeIfAbsent(new TopicPartition(topic, md.partition()), k -> new HashMap<>()).put(md.offset(), i);
        }
        for (Map.Entry<Integer, List<Long>> e : offsets.entrySet()) {
            List<Long> offs = e.getValue();
            for (int j = 0; j < offs.size(); j++) {
                if (offs.get(j) != j) {
                    throw new AssertionError("partition " + e.getKey() + ": offsets in send order " + offs);
                }
            }
        }

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "kwire-java-readback-" + codec);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(DEADLINE.toMillis()));
        int seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : consumer.partitionsFor(topic)) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long end = System.nanoTime() + DEADLINE.toNanos();
            while (seen < sent.size()) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("read " + seen + " of " + sent.size() + " in " + DEADLINE);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Integer i = at.getOrDefault(new TopicPartition(topic, r.partition()), Map.of()).get(r.offset());
                    if (i == null) {
                        throw new AssertionError("a record at " + r.partition() + "@" + r.offset() + " that no send reported");
                    }
                    check(sent.get(i), r);
                    seen++;
                }
            }
            for (Map.Entry<TopicPartition, Long> e : consumer.endOffsets(tps).entrySet()) {
                long n = offsets.getOrDefault(e.getKey().partition(), List.of()).size();
                if (e.getValue() != n) {
                    throw new AssertionError(e.getKey() + ": end offset " + e.getValue() + ", " + n + " records sent");
                }
            }
        }
        for (Map.Entry<Integer, List<Long>> e : offsets.entrySet()) {
            System.out.printf("PARTITION %s %d %d%n", topic, e.getKey(), e.getValue().size());
        }
        return seen;
    }

    static String show(byte[] b) {
        return b == null ? "null" : "[" + b.length + "]" + Arrays.toString(Arrays.copyOf(b, Math.min(b.length, 16)));
    }

    static void check(Msg m, ConsumerRecord<byte[], byte[]> r) {
        String where = r.topic() + "[" + r.partition() + "]@" + r.offset();
        if (!Arrays.equals(m.key(), r.key()) || (m.key() == null) != (r.key() == null)) {
            throw new AssertionError(where + ": key " + show(r.key()) + ", sent " + show(m.key()));
        }
        if (!Arrays.equals(m.value(), r.value()) || (m.value() == null) != (r.value() == null)) {
            throw new AssertionError(where + ": value " + show(r.value()) + ", sent " + show(m.value()));
        }
        if (r.timestampType() != TimestampType.CREATE_TIME || r.timestamp() != m.timestamp()) {
            throw new AssertionError(where + ": timestamp " + r.timestampType() + " " + r.timestamp() + ", sent " + m.timestamp());
        }
        Header[] got = r.headers().toArray();
        boolean same = got.length == m.headers().size();
        for (int j = 0; same && j < got.length; j++) {
            Header want = m.headers().get(j);
            same = got[j].key().equals(want.key()) && Arrays.equals(got[j].value(), want.value())
                    && (got[j].value() == null) == (want.value() == null);
        }
        if (!same) {
            throw new AssertionError(where + ": headers " + Arrays.toString(got) + ", sent " + m.headers());
        }
    }
}
