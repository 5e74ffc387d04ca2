package dev.kwire.streams;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * One instance of a stateful word count run by Kafka Streams 4.4 with {@code group.protocol=streams}
 * (KIP-1071), driven line by line over stdin and reporting line by line on stdout (the Rust test
 * tests/tests/it/java_streams.rs starts one JVM per instance).
 *
 * <p>Topology: {@code <input>} (sentences) → flatMapValues (lower-cased words) → groupBy(word) (the
 * repartition topic {@code <app>-words-repartition}) → count (the store {@code counts}, changelog
 * {@code <app>-counts-changelog}) → {@code <output>} (word → count as a long). Subtopology 0 reads
 * the input, subtopology 1 the repartition topic. At-least-once, commit interval 100 ms, repartition
 * purge interval 500 ms, no record cache (every count update is written to the output).
 *
 * <p>Arguments: {@code bootstrap name port stateDir appId input output}; {@code 127.0.0.1:<port>} is
 * the instance's {@code application.server} (port 0: none). Commands (stdin, one a line):
 * <ul>
 *   <li>{@code create <partitions>}: creates the input and output topics with Admin (Streams creates no
 *       source or sink topic) and waits until Admin describes both; {@code CREATED <input> <output>}.</li>
 *   <li>{@code start}: starts the KafkaStreams instance.</li>
 *   <li>{@code produce <sentence>}: one record (null key); {@code flush}: flushes, {@code PRODUCED <n>}
 *       (records sent so far).</li>
 *   <li>{@code consume}: reads the output topic from the beginning in a thread: {@code OUT <word> <count>}.</li>
 *   <li>{@code committed}: {@code LAG <n>}: the end offsets of the input and repartition topics minus the
 *       group's committed offsets (Admin listStreamsGroupOffsets), summed.</li>
 *   <li>{@code metadata}: {@code META <name> <host:port>|<active partitions>|<standby partitions>;…}
 *       from {@code metadataForAllStreamsClients()} (partitions as {@code topic:p,…}, {@code -} for none).</li>
 *   <li>{@code now}: {@code NOW <nanos>}.</li>
 *   <li>{@code close}: closes the instance, leaving the group; {@code CLOSED <name>} then exit.</li>
 * </ul>
 * Reports: {@code STATE <name> <nanos> <new> <old>}, {@code TASKS <name> <nanos> <active> <standby>} (task
 * ids as {@code 0_1,1_0}, {@code -} for none; printed when they change, polled every 50 ms),
 * {@code ERROR <name> <text>}. Nanos are {@code System.nanoTime()} (CLOCK_MONOTONIC on Linux: one clock
 * for all the JVMs of a machine).
 */
public final class WordCountInstance {
    private static final PrintStream OUT =
            new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);

    private static synchronized void say(String line) {
        OUT.println(line);
        OUT.flush();
    }

    private static String tasks(Set<TaskId> ids) {
        if (ids.isEmpty()) {
            return "-";
        }
        return ids.stream().map(t -> t.subtopology() + "_" + t.partition()).sorted().collect(Collectors.joining(","));
    }

    private static String parts(Set<TopicPartition> tps) {
        if (tps.isEmpty()) {
            return "-";
        }
        return tps.stream().map(tp -> tp.topic() + ":" + tp.partition()).sorted().collect(Collectors.joining(","));
    }

    static Topology topology(String input, String output) {
        StreamsBuilder b = new StreamsBuilder();
        b.stream(input, org.apache.kafka.streams.kstream.Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(v -> Arrays.asList(v.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((k, w) -> !w.isEmpty())
                .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String name = args[1];
        int port = Integer.parseInt(args[2]);
        String stateDir = args[3];
        String appId = args[4];
        String input = args[5];
        String output = args[6];

        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.CLIENT_ID_CONFIG, appId + "-" + name);
        if (port != 0) {
            p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:" + port);
        }
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // Under the streams protocol the group's configuration decides (the broker's
        // group.streams.num.standby.replicas); the client's value only matters to the classic protocol.
        p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // Purge the repartition topic (Admin deleteRecords up to the committed offsets) every 500 ms
        // instead of every 30 s, so that a short run exercises it.
        p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 500);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

        Topology topology = topology(input, output);
        KafkaStreams streams = new KafkaStreams(topology, p);
        streams.setStateListener((n, o) -> say("STATE " + name + " " + System.nanoTime() + " " + n + " " + o));
        streams.setUncaughtExceptionHandler(e -> {
            say("ERROR " + name + " uncaught " + e.toString().replace('\n', ' '));
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });

        AtomicBoolean stop = new AtomicBoolean();
        Thread poller = new Thread(() -> {
            String last = "";
            while (!stop.get()) {
                try {
                    KafkaStreams.State s = streams.state();
                    if (s == KafkaStreams.State.RUNNING || s == KafkaStreams.State.REBALANCING) {
                        Set<TaskId> active = new TreeSet<>();
                        Set<TaskId> standby = new TreeSet<>();
                        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
                            t.activeTasks().forEach(m -> active.add(m.taskId()));
                            t.standbyTasks().forEach(m -> standby.add(m.taskId()));
                        }
                        String now = tasks(active) + " " + tasks(standby);
                        if (!now.equals(last)) {
                            say("TASKS " + name + " " + System.nanoTime() + " " + now);
                            last = now;
                        }
                    }
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // The instance changed state between the check and the call: poll again.
                }
            }
        }, "tasks-poller");
        poller.setDaemon(true);

        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, appId + "-" + name + "-producer");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        KafkaProducer<String, String> producer = null;
        long produced = 0;
        Admin admin = null;

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.split(" ", 2);
            try {
                switch (w[0]) {
                    case "create": {
                        if (admin == null) {
                            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
                        }
                        int n = Integer.parseInt(w[1]);
                        admin.createTopics(List.of(new NewTopic(input, n, (short) 1), new NewTopic(output, n, (short) 1)))
                                .all().get();
                        // Until the broker's metadata has both with their partitions (a streams group whose
                        // coordinator does not see a source topic yet answers MISSING_SOURCE_TOPICS, which
                        // Kafka Streams turns into a fatal MissingSourceTopicException).
                        while (true) {
                            try {
                                if (admin.describeTopics(List.of(input, output)).allTopicNames().get().values().stream()
                                        .allMatch(d -> d.partitions().size() == n)) {
                                    break;
                                }
                            } catch (java.util.concurrent.ExecutionException e) {
                                // Not known yet: ask again.
                            }
                        }
                        say("CREATED " + input + " " + output);
                        break;
                    }
                    case "start":
                        streams.start();
                        poller.start();
                        break;
                    case "produce":
                        if (producer == null) {
                            producer = new KafkaProducer<>(pp);
                        }
                        producer.send(new ProducerRecord<>(input, null, w[1]));
                        produced++;
                        break;
                    case "flush":
                        producer.flush();
                        say("PRODUCED " + produced);
                        break;
                    case "consume": {
                        Thread t = new Thread(() -> consume(bootstrap, appId + "-" + name + "-reader", output), "output-reader");
                        t.setDaemon(true);
                        t.start();
                        break;
                    }
                    case "committed": {
                        if (admin == null) {
                            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
                        }
                        say("LAG " + lag(admin, appId, List.of(input, appId + "-words-repartition")));
                        break;
                    }
                    case "now":
                        say("NOW " + System.nanoTime());
                        break;
                    case "metadata": {
                        List<String> clients = new ArrayList<>();
                        for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
                            clients.add(m.host() + ":" + m.port() + "|" + parts(m.topicPartitions()) + "|"
                                    + parts(m.standbyTopicPartitions()));
                        }
                        clients.sort(null);
                        say("META " + name + " " + (clients.isEmpty() ? "-" : String.join(";", clients)));
                        break;
                    }
                    case "close":
                        stop.set(true);
                        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                                .withTimeout(Duration.ofSeconds(30)));
                        if (producer != null) {
                            producer.close();
                        }
                        if (admin != null) {
                            admin.close();
                        }
                        say("CLOSED " + name);
                        System.exit(0);
                        break;
                    default:
                        say("ERROR " + name + " unknown command " + line);
                }
            } catch (Exception e) {
                say("ERROR " + name + " " + w[0] + ": " + e.toString().replace('\n', ' '));
            }
        }
        System.exit(0);
    }

    /** The end offsets of every partition of {@code topics} minus the group's committed offsets, summed. */
    private static long lag(Admin admin, String group, List<String> topics) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((t, d) ->
                d.partitions().forEach(pi -> latest.put(new TopicPartition(t, pi.partition()), OffsetSpec.latest())));
        Map<TopicPartition, OffsetAndMetadata> committed = admin
                .listStreamsGroupOffsets(Map.of(group, new ListStreamsGroupOffsetsSpec()))
                .partitionsToOffsetAndMetadata(group).get();
        long lag = 0;
        for (var e : admin.listOffsets(latest).all().get().entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            lag += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return lag;
    }

    /** Reads {@code topic} from the beginning (all partitions, no group) and prints every record. */
    private static void consume(String bootstrap, String clientId, String topic) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(cp)) {
            List<TopicPartition> tps = new ArrayList<>();
            while (tps.isEmpty()) {
                c.partitionsFor(topic, Duration.ofSeconds(5))
                        .forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            while (true) {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(200))) {
                    say("OUT " + r.key() + " " + r.value());
                }
            }
        } catch (Exception e) {
            say("ERROR reader " + e.toString().replace('\n', ' '));
        }
    }
}
