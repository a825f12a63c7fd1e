package io.farm.bench.ycsb;

import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import site.ycsb.Client;
import site.ycsb.ClientThread;
import site.ycsb.DB;
import site.ycsb.DBFactory;
import site.ycsb.StatusThread;
import site.ycsb.TerminatorThread;
import site.ycsb.UnknownDBException;
import site.ycsb.Utils;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.MeasurementsExporter;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;

import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * One phase of YCSB (load or run) in this JVM, through YCSB's own classes: the workload named by
 * the {@code workload} property, one {@link ClientThread} per client thread with a DB from
 * {@link DBFactory} (YCSB's {@code DBWrapper}, which measures every operation and counts its
 * status), the optional {@link StatusThread} ({@code -s}) and {@link TerminatorThread}
 * ({@code maxexecutiontime}), and the measurements exported by YCSB's exporter, in YCSB's format.
 *
 * <p>These are the steps of YCSB's {@code Client.main}, which cannot be called here: it ends the
 * JVM ({@code System.exit}) after its one phase, and the cluster the records live in is in this
 * JVM and must outlive the load for the run. So each phase runs here, with YCSB's measurements
 * started afresh.
 */
final class YcsbPhase {
    private YcsbPhase() {
    }

    /**
     * What a phase did.
     *
     * @param requested  operations the phase was to do (records to insert in a load)
     * @param done       operations the client threads did
     * @param runtimeMs  wall-clock time of the client threads
     */
    record Outcome(long requested, long done, long runtimeMs) {
    }

    /**
     * Runs a phase with {@code properties} (the workload file's with the command line's over
     * them, {@code db} set), printing YCSB's report on {@code out} (or the {@code exportfile}).
     *
     * @param transactions true for the run phase, false for the load
     * @throws IllegalArgumentException if the workload or exporter class cannot be made, a count
     *                                  is not a number, or the workload refuses its properties
     */
    static Outcome run(Properties properties, boolean transactions, PrintStream out) throws IOException {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(Client.DO_TRANSACTIONS_PROPERTY, Boolean.toString(transactions));
        int threads = integer(props, Client.THREAD_COUNT_PROPERTY, "1");
        int target = integer(props, Client.TARGET_PROPERTY, "0");
        long maxExecutionSeconds = integer(props, Client.MAX_EXECUTION_TIME, "0");
        int operations = transactions ? integer(props, Client.OPERATION_COUNT_PROPERTY, "0")
            : props.containsKey(Client.INSERT_COUNT_PROPERTY) ? integer(props, Client.INSERT_COUNT_PROPERTY, "0")
            : integer(props, Client.RECORD_COUNT_PROPERTY, Client.DEFAULT_RECORD_COUNT);
        if (threads < 1) {
            throw new IllegalArgumentException("threadcount " + threads + " is not accepted: 1 or more client threads");
        }
        threads = Math.max(1, Math.min(threads, operations));

        startMeasurementsAfresh(props);
        Workload workload = workload(props);
        Tracer tracer = new Tracer.Builder("YCSB " + workload.getClass().getSimpleName())
            .conf(HTraceConfiguration.fromMap(htraceProperties(props))).build();
        String db = props.getProperty(Client.DB_PROPERTY);
        double targetPerThreadPerMs = target > 0 ? target / (double) threads / 1000.0 : -1;
        CountDownLatch finished = new CountDownLatch(threads);
        List<ClientThread> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            DB wrapped;
            try {
                wrapped = DBFactory.newDB(db, props, tracer);
            } catch (UnknownDBException e) {
                throw new IllegalArgumentException("YCSB cannot make a DB of class " + db + ": " + e.getMessage(), e);
            }
            int share = operations / threads + (t < operations % threads ? 1 : 0);
            ClientThread client = new ClientThread(wrapped, transactions, workload, props, share, targetPerThreadPerMs,
                finished);
            client.setThreadId(t);
            client.setThreadCount(threads);
            clients.add(client);
        }

        StatusThread status = null;
        if (Boolean.parseBoolean(props.getProperty(Client.STATUS_PROPERTY, "false"))) {
            boolean standardStatus = "timeseries".equals(props.getProperty(Measurements.MEASUREMENT_TYPE_PROPERTY, ""));
            boolean trackJvm = "true".equals(props.getProperty(Measurements.MEASUREMENT_TRACK_JVM_PROPERTY,
                Measurements.MEASUREMENT_TRACK_JVM_PROPERTY_DEFAULT));
            status = new StatusThread(finished, clients, props.getProperty(Client.LABEL_PROPERTY, ""), standardStatus,
                integer(props, "status.interval", "10"), trackJvm);
            status.start();
        }
        Map<Thread, ClientThread> running = new LinkedHashMap<>();
        for (ClientThread client : clients) {
            running.put(Thread.ofPlatform().name("ycsb-client-" + running.size()).unstarted(client), client);
        }
        Map<String, Long[]> gcBefore = Utils.getGCStatst();
        long start = System.currentTimeMillis();
        running.keySet().forEach(Thread::start);
        TerminatorThread terminator = null;
        if (maxExecutionSeconds > 0) {
            terminator = new TerminatorThread(maxExecutionSeconds, running.keySet(), workload);
            terminator.start();
        }
        long done = 0;
        for (Map.Entry<Thread, ClientThread> client : running.entrySet()) {
            join(client.getKey());
            done += client.getValue().getOpsDone();
        }
        long runtime = System.currentTimeMillis() - start;
        if (terminator != null) {
            terminator.interrupt();
        }
        if (status != null) {
            status.interrupt();
            join(status);
        }
        try {
            workload.cleanup();
        } catch (WorkloadException e) {
            throw new IllegalStateException("YCSB workload cleanup failed: " + e.getMessage(), e);
        }
        export(props, done, runtime, gcBefore, status, out);
        return new Outcome(operations, done, runtime);
    }

    /**
     * YCSB keeps its measurements in a process-wide singleton made on first use; a second phase
     * in the JVM must not add to the first one's, so the singleton is dropped (YCSB has no API
     * for it) and the next use makes a new one from this phase's properties.
     */
    private static void startMeasurementsAfresh(Properties props) {
        try {
            Field singleton = Measurements.class.getDeclaredField("singleton");
            singleton.setAccessible(true);
            singleton.set(null, null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this YCSB's Measurements has no singleton field to reset between phases: "
                + "farm ycsb is written for YCSB 0.17", e);
        }
        Measurements.setProperties(props);
    }

    private static Workload workload(Properties props) {
        String name = props.getProperty(Client.WORKLOAD_PROPERTY);
        if (name == null) {
            throw new IllegalArgumentException("no workload class: a workload file (-P) sets workload=, e.g. "
                + "workload=site.ycsb.workloads.CoreWorkload");
        }
        Workload workload;
        try {
            workload = Class.forName(name, true, Client.class.getClassLoader()).asSubclass(Workload.class)
                .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("workload=" + name + " is not accepted: a YCSB workload class with a public"
                + " no-argument constructor (" + e + ")", e);
        }
        try {
            workload.init(props);
        } catch (WorkloadException e) {
            throw new IllegalArgumentException("workload " + name + " refused its properties: " + e.getMessage(), e);
        }
        return workload;
    }

    /** YCSB's report; the collector counts are this phase's (YCSB's are since the JVM started, one phase earlier). */
    private static void export(Properties props, long operations, long runtimeMs, Map<String, Long[]> gcBefore,
                               StatusThread status, PrintStream out) throws IOException {
        String exportFile = props.getProperty(Client.EXPORT_FILE_PROPERTY);
        OutputStream target = exportFile != null ? new FileOutputStream(exportFile) : new FilterOutputStream(out) {
            @Override
            public void close() throws IOException {
                flush(); // the exporter closes its stream: standard output stays open
            }
        };
        String exporterClass = props.getProperty(Client.EXPORTER_PROPERTY, TextMeasurementsExporter.class.getName());
        MeasurementsExporter exporter;
        try {
            exporter = Class.forName(exporterClass, true, Client.class.getClassLoader())
                .asSubclass(MeasurementsExporter.class).getConstructor(OutputStream.class).newInstance(target);
        } catch (ReflectiveOperationException | ClassCastException e) {
            target.close();
            throw new IllegalArgumentException("exporter=" + exporterClass + " is not accepted: a YCSB MeasurementsExporter"
                + " class with a constructor taking an OutputStream (" + e + ")", e);
        }
        try (exporter) {
            exporter.write("OVERALL", "RunTime(ms)", runtimeMs);
            exporter.write("OVERALL", "Throughput(ops/sec)", 1000.0 * operations / runtimeMs);
            long gcCount = 0;
            long gcTime = 0;
            for (Map.Entry<String, Long[]> gc : Utils.getGCStatst().entrySet()) {
                Long[] before = gcBefore.getOrDefault(gc.getKey(), new Long[] {0L, 0L});
                long count = gc.getValue()[0] - before[0];
                long time = gc.getValue()[1] - before[1];
                exporter.write("TOTAL_GCS_" + gc.getKey(), "Count", count);
                exporter.write("TOTAL_GC_TIME_" + gc.getKey(), "Time(ms)", time);
                exporter.write("TOTAL_GC_TIME_%_" + gc.getKey(), "Time(%)", 100.0 * time / runtimeMs);
                gcCount += count;
                gcTime += time;
            }
            exporter.write("TOTAL_GCs", "Count", gcCount);
            exporter.write("TOTAL_GC_TIME", "Time(ms)", gcTime);
            exporter.write("TOTAL_GC_TIME_%", "Time(%)", 100.0 * gcTime / runtimeMs);
            if (status != null && status.trackJVMStats()) {
                exporter.write("MAX_MEM_USED", "MBs", status.getMaxUsedMem());
                exporter.write("MIN_MEM_USED", "MBs", status.getMinUsedMem());
                exporter.write("MAX_THREADS", "Count", status.getMaxThreads());
                exporter.write("MIN_THREADS", "Count", status.getMinThreads());
                exporter.write("MAX_SYS_LOAD_AVG", "Load", status.getMaxLoadAvg());
                exporter.write("MIN_SYS_LOAD_AVG", "Load", status.getMinLoadAvg());
            }
            Measurements.getMeasurements().exportMeasurements(exporter);
        }
    }

    private static Map<String, String> htraceProperties(Properties props) {
        Map<String, String> htrace = new HashMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith("htrace.")) {
                htrace.put(key.substring("htrace.".length()), props.getProperty(key));
            }
        }
        return htrace;
    }

    private static int integer(Properties props, String key, String defaultValue) {
        String value = props.getProperty(key, defaultValue);
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("YCSB property " + key + "=" + value + " is not accepted: an integer");
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + thread.getName(), e);
        }
    }
}
