package io.farm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Runs {@code farm command... options...} with {@code defaults} (option name to value), each
     * replaced by the same option in {@code options}: name and value pairs, or the flag
     * {@code --json}.
     */
    public static FarmRun withDefaults(List<String> command, Map<String, String> defaults, String... options) {
        Map<String, String> values = new LinkedHashMap<>(defaults);
        List<String> flags = new ArrayList<>();
        for (int i = 0; i < options.length; i++) {
            if (options[i].equals("--json")) {
                flags.add(options[i]);
            } else {
                values.put(options[i], options[++i]);
            }
        }
        List<String> args = new ArrayList<>(command);
        values.forEach((name, value) -> args.addAll(List.of(name, value)));
        args.addAll(flags);
        return of(args.toArray(String[]::new));
    }

    /** The JSON object that must be all of standard output, one line. */
    public JsonNode onlyJsonLine() throws IOException {
        List<String> lines = stdoutLines();
        assertEquals(1, lines.size(), "stdout holds the JSON line and nothing else\n" + this);
        JsonNode json = new ObjectMapper().readTree(lines.getLast());
        assertTrue(json.isObject(), toString());
        return json;
    }

    /** {@link #onlyJsonLine} of a run that exited 0. */
    public JsonNode successfulJsonLine() throws IOException {
        assertEquals(0, exitCode, toString());
        return onlyJsonLine();
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
