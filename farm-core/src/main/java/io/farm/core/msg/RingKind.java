package io.farm.core.msg;

/** The two kinds of ring a node holds for every sender thread (DESIGN §5). */
public enum RingKind {
    /**
     * Messages (RPC requests and replies): the receiver frees a record as soon as its handler
     * has returned.
     */
    MESSAGE,
    /**
     * Transaction log records: the receiver delivers a record once and frees it only when the
     * layer above truncates it.
     */
    LOG
}
