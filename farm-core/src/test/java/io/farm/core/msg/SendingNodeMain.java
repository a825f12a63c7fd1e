package io.farm.core.msg;

import io.farm.core.fabric.FabricPort;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static io.farm.core.msg.CrossProcessTraffic.DATA;
import static io.farm.core.msg.CrossProcessTraffic.ECHO;
import static io.farm.core.msg.CrossProcessTraffic.END;
import static io.farm.core.msg.CrossProcessTraffic.FIN;
import static io.farm.core.msg.CrossProcessTraffic.LOG;
import static io.farm.core.msg.CrossProcessTraffic.LOG_BLOCKED;

/**
 * Node 1 of {@link ShmCrossProcessMessagingTest}, in a JVM of its own, with arguments
 * {@code clusterDir messages logRecords}: opens its messaging region and shm fabric in the
 * cluster directory (node 0 runs already), sends a burst of messages larger than the ring
 * before node 0 polls and prints {@code BURST backlog=<n>}, then sends the rest of the
 * messages and the log records under back-pressure as {@link CrossProcessTraffic} describes,
 * checks node 0's echoes and, after node 0's FIN, prints {@code DONE ...} and exits 0. Any
 * failure prints its stack trace and exits 1.
 */
public final class SendingNodeMain {
    /** Messages kept in the backlog at most before the loop stops offering more. */
    private static final int BACKLOG_LIMIT = 16;

    private final Messenger messenger;
    private final int messages;
    private final int echoes;
    private int echoesReceived;
    private boolean fin;

    private SendingNodeMain(Messenger messenger, int messages) {
        this.messenger = messenger;
        this.messages = messages;
        this.echoes = CrossProcessTraffic.echoes(messages);
    }

    public static void main(String[] args) {
        ParentWatch.exitWhenParentDies();
        try {
            run(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static void run(Path clusterDir, int messages, int logRecords) {
        try (ShmMessagingNode node = new ShmMessagingNode(clusterDir, 1, CrossProcessTraffic.LAYOUT)) {
            FabricPort port = node.openPort();
            try (Messenger messenger = node.messenger(port)) {
                new SendingNodeMain(messenger, messages).send(port, logRecords);
            }
            port.close();
        }
    }

    private void send(FabricPort port, int logRecords) {
        int sent = 0;
        while (sent < CrossProcessTraffic.BURST) {
            send(DATA, CrossProcessTraffic.message(sent++));
        }
        int burstBacklog = messenger.backlog(0, RingKind.MESSAGE);
        check(burstBacklog > 0, "a burst of " + sent + " messages larger than the ring left no backlog");
        System.out.println("BURST backlog=" + burstBacklog);
        System.out.flush();

        int logsSent = 0;
        int blocks = 0;
        boolean ended = false;
        MemorySegment count = MemorySegment.ofArray(new int[1]);
        while (!(fin && port.outstanding() == 0)) {
            boolean progress = port.poll(Integer.MAX_VALUE) > 0;
            progress |= messenger.poll(this::onMessage, 64) > 0;
            while (sent < messages && messenger.backlog(0, RingKind.MESSAGE) < BACKLOG_LIMIT) {
                send(DATA, CrossProcessTraffic.message(sent++));
                progress = true;
            }
            while (logsSent < logRecords && messenger.backlog(0, RingKind.LOG) == 0) {
                MemorySegment record = CrossProcessTraffic.logRecord(logsSent++);
                messenger.sendLog(0, LOG, record, 0, (int) record.byteSize());
                progress = true;
                if (messenger.backlog(0, RingKind.LOG) > 0) {
                    // The ring is full of records node 0 has not truncated: tell it how many it holds.
                    blocks++;
                    count.set(ValueLayout.JAVA_INT, 0, logsSent - 1);
                    send(LOG_BLOCKED, count);
                }
            }
            if (!ended && sent == messages && logsSent == logRecords && messenger.backlog(0, RingKind.LOG) == 0) {
                count.set(ValueLayout.JAVA_INT, 0, blocks);
                send(END, count);
                ended = true;
            }
            if (!progress) {
                Thread.yield();
            }
        }
        check(ended && messenger.backlog(0, RingKind.MESSAGE) == 0, "FIN arrived before everything was sent");
        System.out.println("DONE messages=" + sent + " logRecords=" + logsSent + " echoes=" + echoesReceived
            + " logBlocks=" + blocks);
        System.out.flush();
    }

    private void send(int type, MemorySegment payload) {
        messenger.send(0, type, payload, 0, (int) payload.byteSize());
    }

    private void onMessage(int node, int thread, int type, MemorySegment payload, long offset, int length) {
        check(node == 0 && thread == 0, "a message from node " + node + " thread " + thread);
        check(!fin, "a message of type " + type + " after FIN");
        if (type == FIN) {
            check(echoesReceived == echoes, "FIN after " + echoesReceived + " of " + echoes + " echoes");
            fin = true;
            return;
        }
        check(type == ECHO, "a message of unknown type " + type);
        check(echoesReceived < echoes, "more than " + echoes + " echoes");
        int seq = echoesReceived * CrossProcessTraffic.ECHO_EVERY;
        MemorySegment expected = CrossProcessTraffic.message(seq);
        check(expected.byteSize() == length && expected.mismatch(payload.asSlice(offset, length)) == -1,
            "echo " + echoesReceived + " is not message " + seq + " (" + expected.byteSize() + " bytes): " + length + " bytes");
        echoesReceived++;
    }

    private static void check(boolean condition, String failure) {
        if (!condition) {
            throw new AssertionError(failure);
        }
    }
}
