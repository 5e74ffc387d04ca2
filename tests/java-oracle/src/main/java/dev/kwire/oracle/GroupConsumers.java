package dev.kwire.oracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's Java {@code KafkaConsumer} (kafka-clients 4.4.0) in groups, driven line by line by
 * tests/tests/it/java_groups.rs against a kwire-server: any number of consumers, each in its own
 * thread, with {@code group.protocol=classic} (JoinGroup/SyncGroup/Heartbeat, client-side assignor)
 * or {@code group.protocol=consumer} (KIP-848 ConsumerGroupHeartbeat), started and closed on command.
 *
 * <p>Argument: the bootstrap address. Commands on stdin, one a line, words separated by spaces:
 * <ul>
 *   <li>{@code start <name> <group> classic <range|cooperative-sticky> <topic>}: a classic consumer
 *       with that assignor, session.timeout.ms {@link #SESSION_MS}, heartbeat.interval.ms
 *       {@link #HEARTBEAT_MS}, max.poll.interval.ms (its rebalance timeout) {@link #MAX_POLL_MS};
 *   <li>{@code start <name> <group> consumer <assignor|-> <topic>}: a KIP-848 consumer
 *       ({@code group.remote.assignor} when not {@code -}; the broker owns the timeouts);
 *   <li>{@code close <name>}: the consumer's thread closes it (LeaveGroup, or the leave heartbeat);
 *   <li>{@code produce <topic> <count> <prefix>}: a producer sends {@code count} records, key and value
 *       {@code <prefix><i>}, and flushes.
 * </ul>
 * End of stdin closes everything and exits.
 *
 * <p>Every consumer reads from the earliest offset when its group has none committed, and after every
 * poll that returned records commits synchronously, for the partitions it owns, the offset after the
 * last record it read. Output on stdout, one line each (a partition is {@code topic:partition}, a set
 * of them comma-separated, {@code -} when empty; times are {@code System.nanoTime()}):
 * <ul>
 *   <li>{@code STARTED <name>}, {@code CLOSED <name>};
 *   <li>{@code ASSIGNED|REVOKED|LOST <name> <nanos> <partitions>} from the rebalance listener, and
 *       {@code STOPPING <name> <nanos>} just before close (the ledger of who owned what when);
 *   <li>{@code OWNED <name> <partitions>} after a poll whose assignment differs from the last one;
 *   <li>{@code RECORD <name> <topic> <partition> <offset> <value>};
 *   <li>{@code COMMITTED <name> <topic> <partition> <offset>}, {@code COMMIT_FAILED <name> <exception>};
 *   <li>{@code PRODUCED <count>};
 *   <li>{@code ERROR <name> <exception>}: the consumer's thread died (the test fails).
 * </ul>
 */
public final class GroupConsumers {
    static final int SESSION_MS = 3000;
    static final int HEARTBEAT_MS = 100;
    static final int MAX_POLL_MS = 10000;

    private static final PrintStream OUT =
            new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

    private GroupConsumers() {}

    static void emit(String line) {
        synchronized (OUT) {
            OUT.println(line);
            OUT.flush();
        }
    }

    static String tps(Collection<TopicPartition> parts) {
        if (parts.isEmpty()) {
            return "-";
        }
        TreeSet<String> s = new TreeSet<>();
        for (TopicPartition tp : parts) {
            s.add(tp.topic() + ":" + tp.partition());
        }
        return String.join(",", s);
    }

    /** One consumer and its thread. */
    static final class Runner implements Runnable {
        final String name;
        final Properties props;
        final String topic;
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Runner(String name, Properties props, String topic) {
            this.name = name;
            this.props = props;
            this.topic = topic;
            this.thread = new Thread(this, name);
        }

        @Override
        public void run() {
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props)) {
                c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                        emit("REVOKED " + name + " " + System.nanoTime() + " " + tps(parts));
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                        emit("ASSIGNED " + name + " " + System.nanoTime() + " " + tps(parts));
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> parts) {
                        emit("LOST " + name + " " + System.nanoTime() + " " + tps(parts));
                    }
                });
                emit("STARTED " + name);
                String owned = "-";
                Map<TopicPartition, Long> upto = new HashMap<>();
                Map<TopicPartition, Long> committed = new HashMap<>();
                while (!stop.get()) {
                    ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(50));
                    for (ConsumerRecord<byte[], byte[]> r : recs) {
                        emit("RECORD " + name + " " + r.topic() + " " + r.partition() + " " + r.offset() + " "
                                + new String(r.value(), StandardCharsets.UTF_8));
                        upto.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    }
                    Set<TopicPartition> now = c.assignment();
                    String s = tps(now);
                    if (!s.equals(owned)) {
                        owned = s;
                        emit("OWNED " + name + " " + s);
                    }
                    Map<TopicPartition, OffsetAndMetadata> todo = new HashMap<>();
                    for (Map.Entry<TopicPartition, Long> e : upto.entrySet()) {
                        if (now.contains(e.getKey()) && !e.getValue().equals(committed.get(e.getKey()))) {
                            todo.put(e.getKey(), new OffsetAndMetadata(e.getValue()));
                        }
                    }
                    if (!todo.isEmpty()) {
                        try {
                            c.commitSync(todo, Duration.ofSeconds(5));
                            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : todo.entrySet()) {
                                committed.put(e.getKey(), e.getValue().offset());
                                emit("COMMITTED " + name + " " + e.getKey().topic() + " " + e.getKey().partition()
                                        + " " + e.getValue().offset());
                            }
                        } catch (RuntimeException e) {
                            // Refused during a rebalance (RebalanceInProgress, CommitFailed, stale epoch):
                            // retried after a later poll, as an application would.
                            emit("COMMIT_FAILED " + name + " " + e.getClass().getSimpleName());
                        }
                    }
                }
                emit("STOPPING " + name + " " + System.nanoTime());
            } catch (Throwable t) {
                emit("ERROR " + name + " " + t.toString().replace('\n', ' '));
            }
            emit("CLOSED " + name);
        }
    }

    static Properties consumerProps(String bootstrap, String name, String group, String protocol, String assignor) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        p.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        if (protocol.equals("classic")) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(SESSION_MS));
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(HEARTBEAT_MS));
            p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Integer.toString(MAX_POLL_MS));
            String cls = switch (assignor) {
                case "range" -> RangeAssignor.class.getName();
                case "cooperative-sticky" -> CooperativeStickyAssignor.class.getName();
                default -> throw new IllegalArgumentException("unknown classic assignor " + assignor);
            };
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, cls);
        } else if (!assignor.equals("-")) {
            p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
        }
        return p;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GroupConsumers <bootstrap>");
            System.exit(2);
        }
        String bootstrap = args[0];
        Map<String, Runner> runners = new ConcurrentHashMap<>();
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, "java-groups-producer");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" +");
            switch (w[0]) {
                case "start" -> {
                    Runner r = new Runner(w[1], consumerProps(bootstrap, w[1], w[2], w[3], w[4]), w[5]);
                    runners.put(w[1], r);
                    r.thread.start();
                }
                case "close" -> {
                    Runner r = runners.get(w[1]);
                    r.stop.set(true);
                    r.thread.join(TimeUnit.SECONDS.toMillis(30));
                }
                case "produce" -> {
                    if (producer == null) {
                        producer = new KafkaProducer<>(pp);
                    }
                    int n = Integer.parseInt(w[2]);
                    List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        byte[] v = (w[3] + i).getBytes(StandardCharsets.UTF_8);
                        sent.add(producer.send(new ProducerRecord<>(w[1], v, v)));
                    }
                    producer.flush();
                    for (java.util.concurrent.Future<?> f : sent) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    emit("PRODUCED " + n);
                }
                case "" -> { }
                default -> throw new IllegalArgumentException("unknown command " + line);
            }
        }
        for (Runner r : runners.values()) {
            r.stop.set(true);
        }
        for (Runner r : runners.values()) {
            r.thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
    }
}
