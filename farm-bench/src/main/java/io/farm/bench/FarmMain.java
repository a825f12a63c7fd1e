package io.farm.bench;

import io.farm.bench.fabric.FabricBenchCommand;
import io.farm.bench.fabric.FabricBenchServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code farm} command: {@code bin/farm} runs this class. */
@Command(name = "farm", mixinStandardHelpOptions = true, version = "farm 0.1.0",
    description = "FaRM (Fast Remote Memory) in Java.",
    subcommands = {DemoCommand.class, NodeCommand.class, ClusterCommand.class, FarmMain.Bench.class,
        CommandLine.HelpCommand.class})
public final class FarmMain implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** {@code farm bench NAME}: the benchmark drivers. */
    @Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a benchmark driver. With --json it prints one JSON object as the last line of stdout.",
        subcommands = {FabricBenchCommand.class, FabricBenchServerCommand.class, CommandLine.HelpCommand.class})
    static final class Bench implements Runnable {
        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark: " + String.join(", ",
                spec.subcommands().keySet().stream().filter(n -> !n.equals("help") && !spec.subcommands().get(n)
                    .getCommandSpec().usageMessage().hidden()).toList()));
        }
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command (see --help)");
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        CommandLine commandLine = new CommandLine(new FarmMain());
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
                cmd.getErr().println("farm " + cmd.getCommandName() + ": " + e.getMessage());
                return 2;
            }
            throw e;
        });
        System.exit(commandLine.execute(args));
    }
}
