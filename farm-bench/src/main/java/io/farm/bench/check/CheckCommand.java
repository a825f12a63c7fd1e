package io.farm.bench.check;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code farm check NAME}: correctness checks that run a workload on a cluster and judge what it did. */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Run a correctness check on a cluster; exit status 0 only if it passed.",
        "With --json it prints one JSON object as the last line of stdout."},
    subcommands = {BankCheckCommand.class, BankNodeCommand.class, CommandLine.HelpCommand.class})
public final class CheckCommand implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a check: " + String.join(", ",
            spec.subcommands().keySet().stream().filter(n -> !n.equals("help") && !spec.subcommands().get(n)
                .getCommandSpec().usageMessage().hidden()).toList()));
    }
}
