package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;

import java.util.List;

/**
 * A history no correct execution can produce, about one version of one object.
 *
 * @param kind           what is wrong
 * @param address        the object
 * @param version        the version
 * @param transactionIds the transactions involved: the writers for {@link Kind#WRITTEN_TWICE},
 *                       the readers and overwriters for {@link Kind#NEVER_WRITTEN}
 */
public record Impossibility(Kind kind, long address, long version, List<Long> transactionIds) {
    /** What is wrong with a version. */
    public enum Kind {
        /**
         * Two transactions installed the same version, or a transaction installed the initial
         * version; versions are unique, so one of them did not really commit it.
         */
        WRITTEN_TWICE,
        /** A version was read or overwritten that nobody wrote and that is not the initial version. */
        NEVER_WRITTEN
    }

    /** Copies the ids. */
    public Impossibility {
        transactionIds = List.copyOf(transactionIds);
    }

    /** A readable account naming the object, version and transactions. */
    @Override
    public String toString() {
        String object = GlobalAddress.toString(address) + " v" + version;
        String who = transactionIds.stream().map(id -> "T" + id).toList().toString();
        return switch (kind) {
            case WRITTEN_TWICE -> object + " was written more than once (the initial state counts as a writer): " + who;
            case NEVER_WRITTEN -> object + " was read or overwritten by " + who + " but nobody wrote it and it is not initial";
        };
    }
}
