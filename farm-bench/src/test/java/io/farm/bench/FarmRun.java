package io.farm.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One run of the {@code farm} command line in this JVM, as {@link FarmMain#main} runs it but
 * without exiting: its exit status and what it printed. Commands print with {@code System.out}
 * and {@code System.err}, so both are redirected for the run (tests run one at a time).
 *
 * @param exitCode the status {@code main} would exit with
 * @param stdout   what went to standard output
 * @param stderr   what went to standard error
 */
public record FarmRun(int exitCode, String stdout, String stderr) {
    /** Runs {@code farm args...}. */
    public static FarmRun of(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int exitCode;
        try {
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
            exitCode = FarmMain.commandLine().execute(args);
        } finally {
            System.out.flush();
            System.err.flush();
            System.setOut(out);
            System.setErr(err);
        }
        return new FarmRun(exitCode, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    }

    /** The lines of standard output. */
    public List<String> stdoutLines() {
        return stdout.lines().toList();
    }

    /** Everything printed, for failure messages. */
    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr + "--- end ---";
    }
}
