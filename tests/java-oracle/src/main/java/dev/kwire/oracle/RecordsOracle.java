package dev.kwire.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.OptionalLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * Kafka's record batch code as an oracle for kwire's records module (driven by
 * tests/tests/it/records_java.rs): {@code MemoryRecordsBuilder} writes batches from a JSON
 * description, {@code MemoryRecords.readableRecords} reads any record set back into JSON.
 *
 * <p>One JVM serves a whole run. Frames on stdin, replies on stdout, big-endian throughout; a blob
 * is an int32 byte length and its bytes, a string a blob of UTF-8.
 *
 * <ul>
 *   <li>{@code 'B'} string: build the record set described by the JSON (below) with Kafka's
 *       builders, one batch after the other. Reply: byte 0 and the bytes as a blob; or byte 1 and
 *       the Java exception as a string.
 *   <li>{@code 'D'} blob: read the bytes with {@code MemoryRecords.readableRecords}, check every
 *       batch ({@code ensureValid}: size and CRC) and iterate its records (decompressing). Reply:
 *       byte 0 and the JSON (below) as a string; or byte 1 and the Java exception as a string.
 * </ul>
 *
 * End of input ends the program.
 *
 * <p>Build input: {@code {"batches": [batch, …]}}, each batch either
 *
 * <pre>
 * {"magic": 2, "compression": "none|gzip|snappy|lz4|zstd", "level": n (optional),
 *  "timestampType": "CreateTime|LogAppendTime|NoTimestampType", "logAppendTime": ms,
 *  "baseOffset": n, "producerId": n, "producerEpoch": n, "baseSequence": n,
 *  "transactional": bool, "partitionLeaderEpoch": n, "deleteHorizonMs": ms or -1,
 *  "records": [{"offset": n (optional: appendWithOffset), "timestamp": ms,
 *               "key": hex|null, "value": hex|null,
 *               "headers": [{"key": string, "value": hex|null}, …]}, …]}
 * </pre>
 *
 * (every field but {@code records} optional, with Kafka's "none" values as defaults), or a
 * transaction marker written by {@code MemoryRecords.withEndTransactionMarker}:
 *
 * <pre>
 * {"marker": "COMMIT|ABORT", "coordinatorEpoch": n, "baseOffset": n, "timestamp": ms,
 *  "partitionLeaderEpoch": n, "producerId": n, "producerEpoch": n}
 * </pre>
 *
 * <p>Decode output: {@code {"validBytes": n, "batches": [{…every header field as the batch's
 * getters report it…, "records": [{"offset", "timestamp", "key", "value", "headers"}, …]}, …]}},
 * keys, values and header values in lower-case hex (or null), header keys as Java decodes them (UTF-8).
 */
public final class RecordsOracle {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private RecordsOracle() {}

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 16));
        while (true) {
            int op;
            try {
                op = in.readUnsignedByte();
            } catch (EOFException e) {
                break;
            }
            byte[] arg = new byte[in.readInt()];
            in.readFully(arg);
            try {
                byte[] reply = switch (op) {
                    case 'B' -> build(JSON.readTree(arg));
                    case 'D' -> decode(arg).getBytes(StandardCharsets.UTF_8);
                    default -> throw new IOException("unknown op " + op);
                };
                out.writeByte(0);
                out.writeInt(reply.length);
                out.write(reply);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                byte[] why = e.toString().getBytes(StandardCharsets.UTF_8);
                out.writeByte(1);
                out.writeInt(why.length);
                out.write(why);
            }
            out.flush();
        }
        out.flush();
    }

    // -----------------------------------------------------------------------------------------
    // Building
    // -----------------------------------------------------------------------------------------

    static byte[] build(JsonNode spec) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (JsonNode b : spec.get("batches")) {
            ByteBuffer buf = b.has("marker") ? marker(b) : batch(b);
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            all.write(bytes);
        }
        return all.toByteArray();
    }

    private static long num(JsonNode b, String field, long dflt) {
        JsonNode n = b.get(field);
        return n == null || n.isNull() ? dflt : n.asLong();
    }

    private static byte[] bytes(JsonNode n) {
        return n == null || n.isNull() ? null : HEX.parseHex(n.asText());
    }

    static Compression compression(String name, JsonNode level) {
        boolean lv = level != null && !level.isNull();
        return switch (name) {
            case "none" -> Compression.NONE;
            case "gzip" -> lv ? Compression.gzip().level(level.asInt()).build() : Compression.gzip().build();
            case "snappy" -> Compression.snappy().build();
            case "lz4" -> lv ? Compression.lz4().level(level.asInt()).build() : Compression.lz4().build();
            case "zstd" -> lv ? Compression.zstd().level(level.asInt()).build() : Compression.zstd().build();
            default -> throw new IllegalArgumentException("unknown compression " + name);
        };
    }

    static TimestampType timestampType(String name) {
        return switch (name) {
            case "CreateTime" -> TimestampType.CREATE_TIME;
            case "LogAppendTime" -> TimestampType.LOG_APPEND_TIME;
            case "NoTimestampType" -> TimestampType.NO_TIMESTAMP_TYPE;
            default -> throw new IllegalArgumentException("unknown timestamp type " + name);
        };
    }

    /** One batch (or, for magic 0 and 1, one message set) written by {@code MemoryRecordsBuilder}. */
    private static ByteBuffer batch(JsonNode b) {
        byte magic = (byte) num(b, "magic", RecordBatch.MAGIC_VALUE_V2);
        Compression compression = compression(b.path("compression").asText("none"), b.get("level"));
        TimestampType tsType = timestampType(b.path("timestampType").asText("CreateTime"));
        ByteBufferOutputStream stream = new ByteBufferOutputStream(1024);
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(
                stream,
                magic,
                compression,
                tsType,
                num(b, "baseOffset", 0),
                num(b, "logAppendTime", RecordBatch.NO_TIMESTAMP),
                num(b, "producerId", RecordBatch.NO_PRODUCER_ID),
                (short) num(b, "producerEpoch", RecordBatch.NO_PRODUCER_EPOCH),
                (int) num(b, "baseSequence", RecordBatch.NO_SEQUENCE),
                b.path("transactional").asBoolean(false),
                false,
                (int) num(b, "partitionLeaderEpoch", RecordBatch.NO_PARTITION_LEADER_EPOCH),
                Integer.MAX_VALUE,
                num(b, "deleteHorizonMs", RecordBatch.NO_TIMESTAMP));
        for (JsonNode r : b.get("records")) {
            JsonNode hs = r.path("headers");
            Header[] headers = new Header[hs.size()];
            for (int i = 0; i < headers.length; i++) {
                JsonNode h = hs.get(i);
                headers[i] = new RecordHeader(h.get("key").asText(), bytes(h.get("value")));
            }
            long ts = num(r, "timestamp", RecordBatch.NO_TIMESTAMP);
            byte[] key = bytes(r.get("key"));
            byte[] value = bytes(r.get("value"));
            if (r.has("offset")) {
                builder.appendWithOffset(r.get("offset").asLong(), ts, key, value, headers);
            } else {
                builder.append(ts, key, value, headers);
            }
        }
        return builder.build().buffer();
    }

    /** A control batch with one transaction marker ({@code MemoryRecords.withEndTransactionMarker}). */
    private static ByteBuffer marker(JsonNode b) {
        ControlRecordType type = ControlRecordType.valueOf(b.get("marker").asText());
        EndTransactionMarker m = new EndTransactionMarker(type, (int) num(b, "coordinatorEpoch", 0));
        return MemoryRecords.withEndTransactionMarker(
                        num(b, "baseOffset", 0),
                        num(b, "timestamp", RecordBatch.NO_TIMESTAMP),
                        (int) num(b, "partitionLeaderEpoch", RecordBatch.NO_PARTITION_LEADER_EPOCH),
                        num(b, "producerId", RecordBatch.NO_PRODUCER_ID),
                        (short) num(b, "producerEpoch", RecordBatch.NO_PRODUCER_EPOCH),
                        m)
                .buffer();
    }

    // -----------------------------------------------------------------------------------------
    // Decoding
    // -----------------------------------------------------------------------------------------

    private static String hex(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return HEX.formatHex(a);
    }

    static String decode(byte[] input) throws IOException {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(input));
        ObjectNode root = JSON.createObjectNode();
        root.put("validBytes", records.validBytes());
        ArrayNode batches = root.putArray("batches");
        int index = 0;
        for (MutableRecordBatch batch : records.batches()) {
            try {
                batch.ensureValid();
            } catch (RuntimeException e) {
                throw new IllegalStateException("batch " + index + ": " + e, e);
            }
            ObjectNode o = batches.addObject();
            o.put("baseOffset", batch.baseOffset());
            o.put("lastOffset", batch.lastOffset());
            o.put("sizeInBytes", batch.sizeInBytes());
            o.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
            o.put("magic", batch.magic());
            o.put("crc", batch.checksum());
            o.put("compression", batch.compressionType().name);
            o.put("timestampType", batch.timestampType().name);
            o.put("isTransactional", batch.isTransactional());
            o.put("isControl", batch.isControlBatch());
            OptionalLong horizon = batch.deleteHorizonMs();
            if (horizon.isPresent()) {
                o.put("deleteHorizonMs", horizon.getAsLong());
            } else {
                o.putNull("deleteHorizonMs");
            }
            if (batch instanceof org.apache.kafka.common.record.internal.DefaultRecordBatch d) {
                o.put("baseTimestamp", d.baseTimestamp());
            }
            o.put("maxTimestamp", batch.maxTimestamp());
            o.put("producerId", batch.producerId());
            o.put("producerEpoch", batch.producerEpoch());
            o.put("baseSequence", batch.baseSequence());
            Integer count = batch.countOrNull();
            if (count == null) {
                o.putNull("recordCount");
            } else {
                o.put("recordCount", count);
            }
            ArrayNode recs = o.putArray("records");
            Iterator<Record> it = batch.iterator();
            while (it.hasNext()) {
                Record r = it.next();
                r.ensureValid();
                ObjectNode ro = recs.addObject();
                ro.put("offset", r.offset());
                ro.put("timestamp", r.timestamp());
                ro.put("key", hex(r.key()));
                ro.put("value", hex(r.value()));
                ArrayNode hs = ro.putArray("headers");
                for (Header h : r.headers()) {
                    ObjectNode ho = hs.addObject();
                    ho.put("key", h.key());
                    ho.put("value", h.value() == null ? null : HEX.formatHex(h.value()));
                }
                if (batch.isControlBatch()) {
                    ControlRecordType type = ControlRecordType.parse(r.key());
                    ro.put("controlType", type.name());
                    if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                        ro.put("coordinatorEpoch", EndTransactionMarker.deserialize(r).coordinatorEpoch());
                    }
                }
            }
            index++;
        }
        return JSON.writeValueAsString(root);
    }
}
