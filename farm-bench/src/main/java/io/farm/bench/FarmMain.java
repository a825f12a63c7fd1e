package io.farm.bench;

import io.farm.bench.alloc.AllocBenchCommand;
import io.farm.bench.check.CheckCommand;
import io.farm.bench.fabric.FabricBenchCommand;
import io.farm.bench.fabric.FabricBenchServerCommand;
import io.farm.bench.hashtable.HashtableBenchCommand;
import io.farm.bench.hashtable.HashtableBenchServerCommand;
import io.farm.bench.txn.TxnBenchCommand;
import io.farm.bench.txn.TxnBenchServerCommand;
import io.farm.bench.ycsb.YcsbCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code farm} command: {@code bin/farm} runs this class. */
@Command(name = "farm", mixinStandardHelpOptions = true, version = "farm 0.1.0",
    description = "FaRM (Fast Remote Memory) in Java.",
    subcommands = {DemoCommand.class, NodeCommand.class, ClusterCommand.class, FarmMain.Bench.class,
        CheckCommand.class, YcsbCommand.class, CommandLine.HelpCommand.class})
public final class FarmMain implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** {@code farm bench NAME}: the benchmark drivers. */
    @Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a benchmark driver. With --json it prints one JSON object as the last line of stdout.",
        subcommands = {FabricBenchCommand.class, FabricBenchServerCommand.class, AllocBenchCommand.class,
            TxnBenchCommand.class, TxnBenchServerCommand.class, HashtableBenchCommand.class,
            HashtableBenchServerCommand.class, CommandLine.HelpCommand.class})
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

    /**
     * The {@code farm} command line as {@link #main} runs it: bad input that a command finds
     * itself (an {@link IllegalArgumentException} or {@link IllegalStateException}) is reported in
     * one line on stderr, naming the command, with exit status 2, as picocli reports bad options.
     */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new FarmMain());
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
                cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage());
                return CommandLine.ExitCode.USAGE;
            }
            throw e;
        });
        return commandLine;
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
