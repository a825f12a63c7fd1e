package io.farm.bench.check;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.tx.history.InitialVersions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bank's accounts: the address of each 8-byte balance object and the version it had once
 * set up (before any transfer), which the history checker takes as its initial version. Saved
 * as text, one account per line: {@code <address hex> <version>}.
 *
 * @param addresses the accounts' object addresses
 * @param versions  the version of each account after setup, by position
 */
record Accounts(long[] addresses, long[] versions) {
    /**
     * @throws IllegalArgumentException if the arrays differ in length
     */
    Accounts {
        if (addresses.length != versions.length) {
            throw new IllegalArgumentException(addresses.length + " addresses but " + versions.length + " versions");
        }
    }

    /** How many accounts. */
    int count() {
        return addresses.length;
    }

    /** The accounts of every part, in order. */
    static Accounts concat(List<Accounts> parts) {
        long[] addresses = parts.stream().flatMapToLong(part -> Arrays.stream(part.addresses)).toArray();
        long[] versions = parts.stream().flatMapToLong(part -> Arrays.stream(part.versions)).toArray();
        return new Accounts(addresses, versions);
    }

    /** Registers every account's setup version as its initial version. */
    InitialVersions initialVersions() {
        InitialVersions initial = new InitialVersions();
        for (int i = 0; i < addresses.length; i++) {
            initial.register(addresses[i], versions[i]);
        }
        return initial;
    }

    /** Writes the accounts to {@code file}, atomically: a reader sees the whole file or none. */
    void store(Path file) {
        StringBuilder text = new StringBuilder(addresses.length * 24);
        for (int i = 0; i < addresses.length; i++) {
            text.append(Long.toHexString(addresses[i])).append(' ').append(versions[i]).append('\n');
        }
        try {
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.writeString(partial, text);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the accounts to " + file, e);
        }
    }

    /**
     * Reads what {@link #store} wrote.
     *
     * @throws IllegalStateException if a line is not an account
     */
    static Accounts load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the accounts in " + file, e);
        }
        List<long[]> accounts = new ArrayList<>(lines.size());
        for (String line : lines) {
            String[] fields = line.split(" ");
            try {
                if (fields.length != 2) {
                    throw new NumberFormatException("two fields expected");
                }
                accounts.add(new long[] {Long.parseUnsignedLong(fields[0], 16), Long.parseLong(fields[1])});
            } catch (NumberFormatException e) {
                throw new IllegalStateException("line '" + line + "' of " + file + " is no account ('<address hex> <version>'): "
                    + e.getMessage());
            }
        }
        return new Accounts(accounts.stream().mapToLong(a -> a[0]).toArray(), accounts.stream().mapToLong(a -> a[1]).toArray());
    }

    @Override
    public String toString() {
        return count() + " accounts" + (count() == 0 ? "" : ", first at " + GlobalAddress.toString(addresses[0]));
    }
}
