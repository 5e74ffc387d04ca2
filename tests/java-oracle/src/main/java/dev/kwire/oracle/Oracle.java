package dev.kwire.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Kafka's generated message classes as an oracle for kwire (driven by tests/tests/java_oracle.rs).
 *
 * <p>One JVM serves a whole run. Frames on stdin, replies on stdout, big-endian throughout; a
 * string is an int32 byte length and UTF-8, a blob an int32 length and its bytes.
 *
 * <ul>
 *   <li>{@code 'V'} name: the versions of Kafka's class for the spec {@code name}
 *       ({@code org.apache.kafka.common.message.<name>Data}, or {@code …<name>} for specs that
 *       are not requests, responses or headers).
 *       Reply: byte 0, int16 lowest, int16 highest, int16 api key (-1 when the class is not an
 *       {@code ApiMessage}); or byte 1 and a string when there is no such class.
 *   <li>{@code 'R'} name, int16 version, blob: decode the blob with {@code read} (every byte must
 *       be consumed), write the message back with Kafka's serializer, and render it with the
 *       generated {@code <name>DataJsonConverter.write(data, version)}. Reply: byte 0, the bytes
 *       as a blob, the JSON as a string; or byte 1 and the Java exception as a string.
 * </ul>
 *
 * End of input ends the program.
 */
public final class Oracle {
    private static final String PACKAGE = "org.apache.kafka.common.message.";

    /** A generated message class and its JSON converter's {@code write(data, version)}. */
    private record Entry(Class<? extends Message> data, Method toJson) {}

    private final Map<String, Entry> entries = new HashMap<>();

    private Oracle() {}

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 16));
        Oracle oracle = new Oracle();
        while (true) {
            int op;
            try {
                op = in.readUnsignedByte();
            } catch (EOFException e) {
                break;
            }
            String name = readString(in);
            switch (op) {
                case 'V' -> oracle.versions(name, out);
                case 'R' -> {
                    short version = in.readShort();
                    byte[] bytes = new byte[in.readInt()];
                    in.readFully(bytes);
                    oracle.roundTrip(name, version, bytes, out);
                }
                default -> throw new IOException("unknown op " + op);
            }
            out.flush();
        }
        out.flush();
    }

    @SuppressWarnings("unchecked")
    private Entry entry(String name) throws ReflectiveOperationException {
        Entry e = entries.get(name);
        if (e == null) {
            // Kafka's generator names the classes of requests, responses and headers
            // <name>Data, those of other specs (type "data", "metadata") <name>.
            Class<?> data;
            try {
                data = Class.forName(PACKAGE + name + "Data");
            } catch (ClassNotFoundException notApi) {
                data = Class.forName(PACKAGE + name);
            }
            Class<?> converter = Class.forName(data.getName() + "JsonConverter");
            e = new Entry((Class<? extends Message>) data, converter.getMethod("write", data, short.class));
            entries.put(name, e);
        }
        return e;
    }

    private void versions(String name, DataOutputStream out) throws IOException {
        Message m;
        try {
            m = entry(name).data().getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            out.writeByte(1);
            writeString(out, e.toString());
            return;
        }
        out.writeByte(0);
        out.writeShort(m.lowestSupportedVersion());
        out.writeShort(m.highestSupportedVersion());
        out.writeShort(m instanceof ApiMessage api ? api.apiKey() : -1);
    }

    private void roundTrip(String name, short version, byte[] bytes, DataOutputStream out) throws IOException {
        byte[] written;
        String json;
        try {
            Entry e = entry(name);
            Message m = e.data().getConstructor().newInstance();
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            m.read(new ByteBufferAccessor(buf), version);
            if (buf.hasRemaining()) {
                throw new IllegalStateException(buf.remaining() + " of " + bytes.length + " bytes left after read");
            }
            ObjectSerializationCache cache = new ObjectSerializationCache();
            int size = m.size(cache, version);
            ByteBuffer w = ByteBuffer.allocate(size);
            m.write(new ByteBufferAccessor(w), cache, version);
            if (w.hasRemaining()) {
                throw new IllegalStateException("size() said " + size + " bytes, write() wrote " + w.position());
            }
            written = w.array();
            json = ((JsonNode) e.toJson().invoke(null, m, version)).toString();
        } catch (InvocationTargetException e) {
            fail(out, e.getCause());
            return;
        } catch (Exception e) {
            fail(out, e);
            return;
        }
        out.writeByte(0);
        out.writeInt(written.length);
        out.write(written);
        writeString(out, json);
    }

    private static void fail(DataOutputStream out, Throwable t) throws IOException {
        out.writeByte(1);
        writeString(out, t.toString());
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
