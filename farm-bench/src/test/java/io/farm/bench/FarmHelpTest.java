package io.farm.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command's {@code --help} renders as written: picocli formats descriptions, so a bare {@code %} breaks them. */
class FarmHelpTest {
    @Test
    void everyCommandsHelpRendersWithoutAPicocliWarning() {
        List<CommandLine> commands = new ArrayList<>();
        collect(FarmMain.commandLine(), commands);
        assertTrue(commands.size() >= 10, () -> "the farm command tree has its subcommands: " + commands.size());
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<String> warned = new ArrayList<>();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            for (CommandLine command : commands) {
                captured.reset();
                String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
                String warnings = captured.toString(StandardCharsets.UTF_8);
                if (!warnings.isEmpty() || usage.contains("%n")) {
                    warned.add(command.getCommandSpec().qualifiedName() + ": " + warnings.strip());
                }
            }
        } finally {
            System.setErr(stderr);
        }
        assertEquals(List.of(), warned, "commands whose help did not render (escape % as %% in descriptions)");
    }

    private static void collect(CommandLine command, List<CommandLine> into) {
        into.add(command);
        command.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
    }
}
